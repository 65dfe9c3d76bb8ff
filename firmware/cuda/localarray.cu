// localarray: each thread insertion-sorts its own segment of up to 16 ints in a per-thread array.
// The sort indexes the array with data-dependent positions, so the array lives in local memory
// (ld.local/st.local); the last thread's segment is partial. Host program and reference:
// firmware/host/localarray.cpp.
#define SEGMENT 16

extern "C" __global__ void localarray(int n, const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int base = t * SEGMENT;
  if (base >= n) return;
  const int count = min(SEGMENT, n - base);
  int a[SEGMENT];
  for (int k = 0; k < count; ++k) a[k] = in[base + k];
  for (int k = 1; k < count; ++k) {
    const int key = a[k];
    int j = k - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = key;
  }
  for (int k = 0; k < count; ++k) out[base + k] = a[k];
}
