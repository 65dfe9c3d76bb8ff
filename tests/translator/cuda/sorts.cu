// Per-thread sorts over small local arrays: nvcc unrolls the insertion sort into hundreds of
// instructions over dozens of values (once 90 registers here, ptxas needs 36), and the bitonic
// network keeps many comparisons live.
extern "C" __global__ void insertion16(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = in[i * 16 + k];
  for (int k = 1; k < 16; ++k) {
    int key = a[k];
    int j = k - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = key;
  }
  for (int k = 0; k < 16; ++k) out[i * 16 + k] = a[k];
}

__device__ __forceinline__ void cas(int& x, int& y, bool up) {
  if ((x > y) == up) { int t = x; x = y; y = t; }
}
extern "C" __global__ void bitonic32(const int* in, int* out, int n, int dir) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[32];
#pragma unroll
  for (int k = 0; k < 32; ++k) a[k] = in[i * 32 + k];
#pragma unroll
  for (int size = 2; size <= 32; size <<= 1)
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1)
#pragma unroll
      for (int k = 0; k < 32; ++k) {
        int l = k ^ stride;
        if (l > k) cas(a[k], a[l], ((k & size) == 0) != (dir != 0));
      }
#pragma unroll
  for (int k = 0; k < 32; ++k) out[i * 32 + k] = a[k];
}
extern "C" __global__ void bitonic16(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) a[k] = in[i * 16 + k];
#pragma unroll
  for (int size = 2; size <= 16; size <<= 1)
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1)
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        int l = k ^ stride;
        if (l > k) {
          bool up = (k & size) == 0;
          int x = a[k], y = a[l];
          if ((x > y) == up) { a[k] = y; a[l] = x; }
        }
      }
#pragma unroll
  for (int k = 0; k < 16; ++k) out[i * 16 + k] = a[k];
}
