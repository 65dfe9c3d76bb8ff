// Needs -DSCALE=... and -I options/include: the front ends pass both through.
#include "options_helper.h"

extern "C" __global__ void scaled(int* out) { out[threadIdx.x] = helper_offset() * SCALE; }
