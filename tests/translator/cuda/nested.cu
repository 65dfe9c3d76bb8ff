// Early return from inside two nested loops (a 2D search): the inner loop is left both to the
// outer loop's body and past the outer loop, so its exits meet in a landing block that dispatches
// inside the outer loop, which then leaves by its own exits.
extern "C" __global__ void find2d(int n, int m, const int* grid, int key, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = key + t;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      if (grid[i * m + j] == k) {
        out[t] = i * 1000 + j;
        return;
      }
      if (grid[i * m + j] < 0) break;  // a row ends early
    }
  }
  out[t] = -1;
}

// A loop left from inside an if with work before the break: the if's paths meet only after the
// loop, so it needs no SSY (one would be pushed again on every iteration).
extern "C" __global__ void break_with_work(int n, const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int acc = 0, k = 0;
  for (; k < 64; ++k) {
    const int v = in[(t + k) % n];
    if (v % 7 == 0) {
      acc = acc * 3 + v;
      out[n + t] = k;
      break;
    }
    acc += v;
  }
  out[t] = acc;
}
