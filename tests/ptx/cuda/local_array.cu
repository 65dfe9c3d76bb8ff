// A dynamically indexed per-thread array forces local memory.
extern "C" __global__ void local_sort(const int* in, int* out, int k) {
  int buf[16];
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  for (int i = 0; i < 16; ++i) buf[i] = in[base + i];
  for (int i = 0; i < 16; ++i)
    for (int j = i + 1; j < 16; ++j)
      if (buf[j] < buf[i]) {
        int t = buf[i];
        buf[i] = buf[j];
        buf[j] = t;
      }
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[k & 15];
}
