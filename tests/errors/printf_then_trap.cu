// Prints, then traps: what a kernel printed before it faulted must reach the user.
#include <cstdio>
__global__ void printf_then_trap() {
  if (threadIdx.x == 0) printf("thread 0 was here\n");
  __syncthreads();
  if (threadIdx.x == 0) __trap();
}
