// Textures are out of scope (the SM has no texture units): a texture object read with tex1Dfetch
// is an error naming it, from clang's header (tsm_cuda.h) or, through nvcc, from the translator.
extern "C" __global__ void fetch(cudaTextureObject_t tex, float* out) {
  out[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x);
}
