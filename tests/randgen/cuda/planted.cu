// A kernel with a difference planted on purpose (test randgen.cuda.planted_kernel_file): the device
// build flips a bit that the host build does not, so `./tsm random --level cuda --seed 400 --count 1
// --kernel-file tests/randgen/cuda/planted.cu` must report a failure. The oracle cannot pass it
// whatever the translator does.
extern "C" __global__ void k400(const unsigned* __restrict__ in, unsigned* __restrict__ out, int pa, unsigned pb, float pf,
                                long long pl) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nthr = blockDim.x * blockDim.y * blockDim.z;
  const unsigned gid = (blockIdx.x + gridDim.x * blockIdx.y) * nthr + tid;
  unsigned v = in[gid & 511u] ^ pb;
#ifdef __CUDA_ARCH__
  v ^= 0x100u;
#endif
  out[gid * 16u + 15u] = v;
}
