// Doubles put together from and taken apart into 32-bit halves: nvcc writes these as
// mov.b64 d, {lo, hi} and mov.b64 {lo, hi}, s (found by the random CUDA differential, seeds 8798
// and 8895: "unexpected operand").
extern "C" __global__ void pack(const unsigned* in, const double* din, double* doubles, int* halves, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned lo = in[i], hi = in[(i + 1) % n];
  doubles[i] = __hiloint2double(static_cast<int>(hi), static_cast<int>(lo));
  const double d = din[i];
  halves[2 * i] = __double2hiint(d) + 1;
  halves[2 * i + 1] = __double2loint(d) ^ static_cast<int>(lo);
}
