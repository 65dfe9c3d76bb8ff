// Barriers, barrier reductions, warp synchronization and memory fences.

extern "C" __global__ void barriers(int* out, const int* in) {
  __shared__ int buffer[128];
  const int t = threadIdx.x;
  buffer[t] = in[t];
  __syncthreads();  // bar.sync 0
  const int count = __syncthreads_count(buffer[(t + 1) % 128] > 0);  // bar.red.popc.u32
  const int all = __syncthreads_and(buffer[t] != 0);                  // bar.red.and.pred
  const int any = __syncthreads_or(buffer[t] < 0);                    // bar.red.or.pred
  __syncwarp();                                                       // bar.warp.sync
  out[t] = count + all * 2 + any * 4;
}

extern "C" __global__ void fences(volatile int* flag, int* data) {
  data[threadIdx.x] = 1;
  __threadfence_block();   // membar.cta
  data[threadIdx.x + 32] = 2;
  __threadfence();         // membar.gl
  data[threadIdx.x + 64] = 3;
  __threadfence_system();  // membar.sys
  if (threadIdx.x == 0) *flag = 1;
}
