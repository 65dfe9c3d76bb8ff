// cuda_bf16.h for TeslaSM's clang front end: bfloat16 is not supported (the SM has no 16-bit float
// arithmetic). A stub found before any CUDA SDK's header (see cuda_fp16.h here), so that using
// __nv_bfloat16 is one error at the use that names what is not supported. nvcc uses its own header.
#pragma once

#define __TSM_NO_BF16                                                                        \
  __attribute__((unavailable("bfloat16 (cuda_bf16.h: __nv_bfloat16, __float2bfloat16, ...) " \
                             "is not supported: the SM has no 16-bit float arithmetic")))

struct __TSM_NO_BF16 __nv_bfloat16 {};
struct __TSM_NO_BF16 __nv_bfloat162 {};
__device__ __nv_bfloat16 __float2bfloat16(float) __TSM_NO_BF16;
__device__ float __bfloat162float(__nv_bfloat16) __TSM_NO_BF16;

#undef __TSM_NO_BF16
