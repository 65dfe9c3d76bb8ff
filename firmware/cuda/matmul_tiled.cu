// matmul_tiled: C = A * B (row-major, A m x k, B k x n) with 16x16 tiles staged in shared memory.
// Each 16x16 block computes one tile of C: per phase every thread loads one element of A's and of
// B's tile (zero outside the matrices, so any size works), __syncthreads(), 16 fmaf steps from
// shared memory, __syncthreads() before the tiles are overwritten. The padding adds fmaf(0, 0, acc)
// = acc, so the result is the plain k-order fmaf chain, bit-exact against the same reference as
// matmul_naive. Exercises __shared__ 2D arrays, barriers in a loop and bounds-checked loads.
// Host program and reference: firmware/host/matmul.cpp.
#define TILE_WIDTH 16

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int m, int k, int n) {
  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_WIDTH + ty;
  const int col = blockIdx.x * TILE_WIDTH + tx;
  float acc = 0.0f;
  for (int phase = 0; phase < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++phase) {
    const int a_col = phase * TILE_WIDTH + tx;
    const int b_row = phase * TILE_WIDTH + ty;
    As[ty][tx] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE_WIDTH; ++i) acc = fmaf(As[ty][i], Bs[i][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}
