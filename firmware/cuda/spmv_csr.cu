// spmv_csr: y = A*x for a sparse matrix in CSR form, one row per thread. Rows have varied lengths
// (empty ones included), so the per-thread loop trip counts diverge; x is gathered through the
// column indices. The sum is accumulated with fmaf in row order, so the host reference (std::fma
// in the same order) is bit-exact. Host program and reference: firmware/host/spmv_csr.cpp.
extern "C" __global__ void spmv_csr(int rows, const int* row_ptr, const int* col, const float* val,
                                    const float* x, float* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    const int end = row_ptr[row + 1];
    for (int k = row_ptr[row]; k < end; ++k) sum = fmaf(val[k], x[col[k]], sum);
    y[row] = sum;
  }
}
