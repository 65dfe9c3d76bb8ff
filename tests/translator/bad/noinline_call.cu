// A call to a device function the compiler did not inline: not translated yet.
__device__ __noinline__ int twice(int x) { return 2 * x; }
extern "C" __global__ void caller(int* out) { out[threadIdx.x] = twice(threadIdx.x); }
