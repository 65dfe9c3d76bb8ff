// Device printf (lowered to vprintf with the arguments packed in a local buffer) and assert
// (a call to __assertfail).

extern "C" __global__ void print(const float* values, const char* name) {
  const int t = threadIdx.x;
  printf("thread %d block %u: %f %s %lld %c\n", t, blockIdx.x, values[t], name, 1ll << 40, 'x');
  if (t == 0) printf("no arguments\n");
}

extern "C" __global__ void check(const int* values) {
  assert(values[threadIdx.x] >= 0);
}
