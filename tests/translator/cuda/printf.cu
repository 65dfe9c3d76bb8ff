// Device printf with every kind of argument the record format carries: int, unsigned, hex,
// 64-bit, char, double (from float), strings, '*' widths, and a conditional call.
extern "C" __global__ void print(int n, const float* v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  printf("[%d] u=%u x=%#x ll=%lld c=%c f=%.3f s=%s w=%*d|\n", i, 4000000000u + i, 0xABC0 + i,
         -1234567890123LL * (i + 1), 'a' + i % 26, v[i], (i & 1) ? "odd" : "even", 4, i);
  if (i % 4 == 0) printf("%d is a multiple of 4\n", i);
}
