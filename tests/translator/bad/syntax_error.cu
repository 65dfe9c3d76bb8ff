// A CUDA syntax error: the front end's diagnostic names file and line.
extern "C" __global__ void broken(int* out) {
  out[threadIdx.x] = 1 +;
}
