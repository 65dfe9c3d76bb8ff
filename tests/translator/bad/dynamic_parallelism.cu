// Dynamic parallelism (a kernel launching a kernel) is refused by both front ends.
__global__ void child(int* out) { out[threadIdx.x] = 1; }
extern "C" __global__ void parent(int* out) {
  if (threadIdx.x == 0) child<<<1, 32>>>(out);
}
