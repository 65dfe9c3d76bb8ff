// matmul_naive: C = A * B for row-major A (m x k), B (k x n), C (m x n). One thread per element of
// C on a 2D grid of 2D blocks; threads past the right or bottom edge of C (the sizes are not
// multiples of the block) do nothing. Each dot product is an explicit fmaf chain in k order, so a
// host reference with std::fma in the same order is bit-exact. Exercises 2D thread and block
// indices, integer address arithmetic and a loop of dependent FFMAs with strided global loads.
// Host program and reference: firmware/host/matmul.cpp.
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int m, int k, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc = fmaf(A[row * k + i], B[i * n + col], acc);
  C[row * n + col] = acc;
}
