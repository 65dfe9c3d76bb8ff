// Device functions the compiler keeps as calls (__noinline__): a struct passed by value with
// sub-word members, float and 64-bit returns, a void function with an early return, nested calls,
// and calls from divergent code. The translator inlines each call site.
struct Item {
  int weight;
  float scale;
  char bias;
  short tag;
};

__device__ __noinline__ int score(int x, Item it) {
  return x * it.weight + static_cast<int>(it.scale * 4.0f) + it.bias - it.tag;
}
__device__ __noinline__ float halve(float x) { return x * 0.5f; }
__device__ __noinline__ long long widen(int x, long long y) { return static_cast<long long>(x) * y + 1; }
__device__ __noinline__ void mark(int* out, int v) {
  if (v % 3 == 0) {
    out[0] = v;
    return;
  }
  out[1] = -v;
}
__device__ __noinline__ int twice_score(int x, Item it) { return score(x, it) + score(x + 1, it); }

extern "C" __global__ void calls(int n, const int* in, int* out, long long* wide) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = in[i];
  Item it{x & 7, 1.25f * static_cast<float>(x & 3), static_cast<char>(x & 0x7F), static_cast<short>(x >> 4)};
  int r = score(x, it);
  if (x & 1) r += twice_score(x, it);  // divergent call
  r += static_cast<int>(halve(static_cast<float>(x)));
  out[3 * i] = r;
  mark(out + 3 * i + 1, x);
  wide[i] = widen(x, 0x100000001LL * (i + 1));
}
