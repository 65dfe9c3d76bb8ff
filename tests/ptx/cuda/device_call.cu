// Non-inlined device functions: scalar and pointer parameters, return values, recursion.
__device__ __noinline__ float scale(float x, float s) { return x * s + 1.0f; }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ void store_pair(int* p, int a, int b) {
  p[0] = a;
  p[1] = b;
}

extern "C" __global__ void calls(float* out, int* pairs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = scale(out[i], 2.0f);
  store_pair(pairs + 2 * i, fib(i & 7), i);
}
