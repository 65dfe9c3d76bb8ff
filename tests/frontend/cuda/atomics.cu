// Every atomic function on int, unsigned, unsigned long long and float, on global and shared
// memory.

extern "C" __global__ void atomics_int(int* i, unsigned* u, int* results) {
  int r = 0;
  r += atomicAdd(&i[0], 1);
  r += atomicSub(&i[1], 2);
  r += atomicExch(&i[2], 3);
  r += atomicMin(&i[3], 4);
  r += atomicMax(&i[4], 5);
  r += atomicCAS(&i[5], 6, 7);
  r += atomicAnd(&i[6], 8);
  r += atomicOr(&i[7], 9);
  r += atomicXor(&i[8], 10);
  unsigned s = 0;
  s += atomicAdd(&u[0], 1u);
  s += atomicSub(&u[1], 2u);
  s += atomicExch(&u[2], 3u);
  s += atomicMin(&u[3], 4u);
  s += atomicMax(&u[4], 5u);
  s += atomicInc(&u[5], 6u);
  s += atomicDec(&u[6], 7u);
  s += atomicCAS(&u[7], 8u, 9u);
  s += atomicAnd(&u[8], 10u);
  s += atomicOr(&u[9], 11u);
  s += atomicXor(&u[10], 12u);
  results[threadIdx.x] = r + static_cast<int>(s);
}

extern "C" __global__ void atomics_wide(unsigned long long* ull, float* f, unsigned long long* results) {
  unsigned long long r = atomicAdd(&ull[0], 1ull);
  r += atomicExch(&ull[1], 2ull);
  r += atomicCAS(&ull[2], 3ull, 4ull);
  float x = atomicAdd(&f[0], 1.5f);
  results[threadIdx.x] = r + static_cast<unsigned long long>(x);
}

extern "C" __global__ void atomics_shared(int* out) {
  __shared__ int histogram[16];
  if (threadIdx.x < 16) histogram[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&histogram[threadIdx.x % 16], 1);
  atomicMax(&histogram[0], static_cast<int>(threadIdx.x));
  __syncthreads();
  if (threadIdx.x < 16) out[threadIdx.x] = histogram[threadIdx.x];
}
