// A structure passed to a kernel by value (parameter layout with padding and sub-word members).
struct Params {
  char tag;
  short scale;
  float offset;
  double unused;
  int count;
  const int* data;
};

extern "C" __global__ void apply(Params p, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.count) return;
  out[i] = p.data[i] * p.scale + (int)p.offset + p.tag;
}
