// Found only through -I: see options.cu.
#pragma once
__device__ inline int helper_offset() { return 1234; }
