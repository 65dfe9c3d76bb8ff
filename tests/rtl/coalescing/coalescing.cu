// Access patterns for the transactions counter (docs/sm-rtl.md §4): each kernel reads and writes
// p[threadIdx.x * stride + offset] once, so a launch makes two warp accesses of one shape. The
// expected counts, worked out by hand from the compute capability 1.2 rules, are in
// tests/tools/check_transactions.py.

template <typename T>
__device__ void bump(T* p, int stride, int offset) {
  const int i = static_cast<int>(threadIdx.x) * stride + offset;
  p[i] = static_cast<T>(p[i] + 1);
}

extern "C" __global__ void u8(unsigned char* p, int stride, int offset) { bump(p, stride, offset); }
extern "C" __global__ void u16(unsigned short* p, int stride, int offset) { bump(p, stride, offset); }
extern "C" __global__ void f32(float* p, int stride, int offset) { bump(p, stride, offset); }
extern "C" __global__ void u64(unsigned long long* p, int stride, int offset) { bump(p, stride, offset); }

extern "C" __global__ void v4(int4* p, int stride, int offset) {
  const int i = static_cast<int>(threadIdx.x) * stride + offset;
  int4 v = p[i];
  v.x += 1;
  v.y += 2;
  v.z += 3;
  v.w += 4;
  p[i] = v;
}
