// Several kernels and a templated one in one module; one with launch bounds.
template <typename T>
__global__ void fill(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
template __global__ void fill<int>(int*, int, int);
template __global__ void fill<double>(double*, double, int);

extern "C" __global__ void __launch_bounds__(128, 4) bounded(unsigned char* p, short s, char c) {
  p[threadIdx.x] = (unsigned char)(s + c + threadIdx.z + blockIdx.z + gridDim.y);
}
