// Values that live across 64-bit divisions (lowered to sequences whose operands must stay in
// registers through the sequence's loop), more of them than a 32-register budget holds: the
// allocator keeps them in local memory between the sequences (found by the random CUDA
// differential, seed 243: "needs more than the 32 registers ... even with every other value
// spilled").
extern "C" __global__ void pinned(const long long* in, long long* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v[12];
#pragma unroll
  for (int k = 0; k < 12; ++k) v[k] = in[(i + 37 * k) % n];
  long long d = (v[0] | 1) * ((v[1] & 0xff) + 3);
  long long acc = 0;
#pragma unroll
  for (int k = 0; k < 12; ++k) {
    const long long q = v[k] / (d | 1);
    const long long r = v[(k + 5) % 12] % ((v[k] & 0xfff) + 7);
    acc = acc * 31 + q + r;
    d = d * 5 + (q ^ r);
  }
#pragma unroll
  for (int k = 0; k < 12; ++k) acc += v[k] * (k + 1);
  out[i] = acc;
}
