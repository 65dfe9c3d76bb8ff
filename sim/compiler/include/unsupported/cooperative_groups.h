// cooperative_groups.h for TeslaSM's clang front end: cooperative groups are not supported (no
// grid-wide barrier, no group objects). A stub found before any CUDA SDK's header (see
// cuda_fp16.h here), so that `cg::this_grid()`, `grid.sync()`, `cg::this_thread_block()` or a
// group type is one error at the use that names what is not supported. nvcc uses its own header;
// the translator then refuses the PTX of its grid.sync() at an inline-asm read of %envreg2.
#pragma once

#define __TSM_NO_CG                                                                          \
  __attribute__((unavailable("cooperative groups (cooperative_groups.h) are not supported; " \
                             "use __syncthreads() and the warp intrinsics")))

namespace cooperative_groups {
struct __TSM_NO_CG thread_group {};
struct __TSM_NO_CG thread_block {};
struct __TSM_NO_CG grid_group {};
struct __TSM_NO_CG multi_grid_group {};
struct __TSM_NO_CG coalesced_group {};
template <unsigned Size, typename Parent = void>
struct __TSM_NO_CG thread_block_tile {};
__device__ grid_group this_grid() __TSM_NO_CG;
__device__ multi_grid_group this_multi_grid() __TSM_NO_CG;
__device__ thread_block this_thread_block() __TSM_NO_CG;
__device__ coalesced_group coalesced_threads() __TSM_NO_CG;
template <typename... Args>
__device__ thread_group tiled_partition(Args...) __TSM_NO_CG;
template <typename... Args>
__device__ void sync(Args...) __TSM_NO_CG;
}  // namespace cooperative_groups

#undef __TSM_NO_CG
