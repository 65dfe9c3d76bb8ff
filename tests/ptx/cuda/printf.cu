// Device printf: format strings as global byte arrays, the vprintf call sequence and its local buffer.
extern "C" __global__ void hello(int n, float f, double d) {
  printf("hello from thread %d of %d\n", (int)threadIdx.x, n);
  if (threadIdx.x == 0) printf("f=%f d=%f n=%d %s\n", f, d, n, "done");
}
