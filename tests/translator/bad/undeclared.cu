// A CUDA error the front end reports: file and line of the source, not of generated PTX.
extern "C" __global__ void k(int* out) {
  out[threadIdx.x] = missing_variable;
}
