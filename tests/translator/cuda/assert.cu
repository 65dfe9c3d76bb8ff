// assert() in a kernel: the failing threads print CUDA's message and the launch fails.
extern "C" __global__ void check(int n, const int* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(in[i] >= 0);
}
