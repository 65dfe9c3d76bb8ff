// Indirect calls are not supported (device functions are inlined): a call through a function
// pointer chosen at run time is an error at the call.
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
extern "C" __global__ void apply(int* data) {
  int (*op)(int) = (threadIdx.x & 1) ? twice : square;
  data[threadIdx.x] = op(data[threadIdx.x]);
}
