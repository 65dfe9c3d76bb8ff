// G80 runs at most 512 threads per block: launch bounds of 1024 can never be met.
extern "C" __global__ void __launch_bounds__(1024) wide(int* out) { out[threadIdx.x] = threadIdx.x; }
