// Every atomic function on int and unsigned, global and shared, plus atomicAdd on float, with
// operands whose final results do not depend on the order the threads arrive in.
extern "C" __global__ void atomics(int n, const int* in, int* g, unsigned* gu, float* gf) {
  __shared__ int s[8];
  __shared__ unsigned su[4];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < 8) s[t] = t == 2 ? 0x7FFFFFFF : t == 3 ? (int)0x80000000 : t == 5 ? -1 : 0;
  if (t < 4) su[t] = 0;
  __syncthreads();
  if (i < n) {
    const int v = in[i];
    atomicAdd(&g[0], v);
    atomicSub(&g[1], v);
    atomicMin(&g[2], v);
    atomicMax(&g[3], v);
    atomicAnd(&g[4], ~(1 << (i & 31)));
    atomicOr(&g[5], 1 << (v & 31));
    atomicXor(&g[6], v);
    atomicInc(&gu[0], 9u);
    atomicDec(&gu[1], 6u);
    atomicExch(&gu[2], 7u);
    int old = g[7], seen;  // an add built from compare-and-swap
    do {
      seen = old;
      old = atomicCAS(&g[7], seen, seen + v);
    } while (old != seen);
    atomicAdd(gf, (float)(v & 255));
    atomicAdd(&s[0], v);
    atomicSub(&s[1], v);
    atomicMin(&s[2], v);
    atomicMax(&s[3], v);
    atomicOr(&s[4], 1 << (v & 31));
    atomicAnd(&s[5], ~(1 << (v & 31)));
    atomicXor(&s[6], v);
    atomicInc(&su[0], 4u);
    unsigned o = su[1], prev;
    do {
      prev = o;
      o = atomicCAS(&su[1], prev, prev + 1);
    } while (o != prev);
  }
  __syncthreads();
  if (t < 7) atomicAdd(&g[8 + t], s[t]);
  if (t < 2) atomicAdd(&gu[3 + t], su[t]);
}
