// spmv_csr_cached: y = A*x in CSR form, one row per thread, for a mostly banded matrix. Each block
// first stages the window of x its rows mostly touch -- its own rows' columns plus `halo` on each
// side -- in dynamic shared memory (all threads copy, strided, then __syncthreads()); a nonzero
// whose column lies inside the window reads shared memory, any other (the matrix has some far
// off-band entries) reads global memory. Accumulation is fmaf in row order, as in spmv_csr, so the
// result is bit-exact against std::fma. Launch with (blockDim.x + 2 * halo) * 4 bytes of dynamic
// shared memory. Host program and reference: firmware/host/spmv_csr_cached.cpp.
extern "C" __global__ void spmv_csr_cached(int rows, int cols, int halo, const int* row_ptr,
                                           const int* col, const float* val, const float* x,
                                           float* y) {
  extern __shared__ float x_window[];
  const int first_row = blockIdx.x * blockDim.x;
  const int lo = max(first_row - halo, 0);
  const int hi = min(first_row + (int)blockDim.x + halo, cols);
  for (int j = lo + threadIdx.x; j < hi; j += blockDim.x) x_window[j - lo] = x[j];
  __syncthreads();

  const int row = first_row + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  const int end = row_ptr[row + 1];
  for (int k = row_ptr[row]; k < end; ++k) {
    const int c = col[k];
    const float xc = (c >= lo && c < hi) ? x_window[c - lo] : x[c];
    sum = fmaf(val[k], xc, sum);
  }
  y[row] = sum;
}
