// cuda_fp16.h for TeslaSM's clang front end: half precision is not supported (the SM has no f16
// arithmetic, and the translator refuses .f16 PTX). The clang front end searches this directory
// before the system's (-isystem), so that `#include <cuda_fp16.h>` finds this stub rather than a
// CUDA SDK's header, which cannot compile next to tsm_cuda.h: using __half, or a function on it, is
// then one error at the use that names what is not supported. nvcc uses its own header.
#pragma once

#define __TSM_NO_HALF                                                                       \
  __attribute__((unavailable("half precision (cuda_fp16.h: __half, __hadd, ...) is not "   \
                             "supported: the SM has no f16 arithmetic")))

struct __TSM_NO_HALF __half {};
struct __TSM_NO_HALF __half2 {};
typedef __half half __TSM_NO_HALF;
typedef __half2 half2 __TSM_NO_HALF;

// The common operations, so that a call without a __half in sight is refused too. (__hadd on two
// ints, CUDA's integer average, stays tsm_cuda.h's.)
__device__ __half __hadd(__half, __half) __TSM_NO_HALF;
__device__ __half __hsub(__half, __half) __TSM_NO_HALF;
__device__ __half __hmul(__half, __half) __TSM_NO_HALF;
__device__ __half __hdiv(__half, __half) __TSM_NO_HALF;
__device__ __half __hfma(__half, __half, __half) __TSM_NO_HALF;
__device__ __half __hneg(__half) __TSM_NO_HALF;
__device__ __half2 __hadd2(__half2, __half2) __TSM_NO_HALF;
__device__ __half2 __hmul2(__half2, __half2) __TSM_NO_HALF;
__device__ __half2 __hfma2(__half2, __half2, __half2) __TSM_NO_HALF;
__device__ __half __float2half(float) __TSM_NO_HALF;
__device__ __half __float2half_rn(float) __TSM_NO_HALF;
__device__ float __half2float(__half) __TSM_NO_HALF;
__device__ __half2 __floats2half2_rn(float, float) __TSM_NO_HALF;
__device__ __half2 __float2half2_rn(float) __TSM_NO_HALF;
__device__ float2 __half22float2(__half2) __TSM_NO_HALF;

#undef __TSM_NO_HALF
