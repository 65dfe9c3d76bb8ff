// Device functions are inlined, so recursion cannot be translated: a clear error at the call.
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void caller(unsigned* out) { out[threadIdx.x] = fib(threadIdx.x); }
