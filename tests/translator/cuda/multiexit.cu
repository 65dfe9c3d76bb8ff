// A loop with several exit targets: a linear search that leaves through `found`, `greater` or the
// end of the data, each with different code after it.
extern "C" __global__ void search(int n, const int* keys, const int* data, int m, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int key = keys[i];
  int j = 0;
  for (; j < m; ++j) {
    if (data[j] == key) goto found;
    if (data[j] > key) goto greater;
  }
  out[i] = -1;
  return;
found:
  out[i] = j;
  return;
greater:
  out[i] = -2 - j;
}
