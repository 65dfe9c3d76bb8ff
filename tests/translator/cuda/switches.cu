// Switches whose arms share blocks: clang lowers them to compare chains in which one chain falls
// through into a block that another chain also branches to (the `default` arm), with an early
// `return` among the arms and `bra.uni` between them. Each reconvergence region must be entered
// only through its branch (docs/translator.md §5); before that, lanes that took `default` ran a
// SYNC that was not theirs and skipped the store.

// The kernel that showed it (30 of 256 words left unwritten with clang's PTX).
extern "C" __global__ void sw7(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r = 0;
  switch (((v % 7) + 7) % 7) {
    case 0: r = 10; break;
    case 1: r = 11; break;
    case 2: r = 12; break;
    case 3: r = 13; break;
    case 4: r = -v; break;
    case 5: return;
    default:
      for (int k = 0; k < 3; ++k) {
        if ((v >> k) & 1) continue;
        r += 1 << k;
      }
      break;
  }
  out[i] = r + i;
}

// Fall-through between arms, two early returns, and a shared tail reached from both compare chains.
extern "C" __global__ void fallthrough(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], r = v;
  switch (v % 11u) {
    case 1: r ^= 0x55u;  // fall through
    case 2: r += 3u; break;
    case 4:
      if (v & 0x100u) return;
      r = r * 5u;
      // fall through
    case 6: r -= 7u; break;
    case 8: out[i] = 0xdeadu; return;
    case 9:
    case 10: r = ~r; break;
    default: r = (r << 3) | (r >> 29); break;
  }
  out[i] = r;
}

// A switch inside a loop whose arms continue, break out of the loop or return.
__device__ int classify(int v) {
  switch (v & 7) {
    case 0: return 1;
    case 3: return v > 0 ? 2 : 3;
    case 5: return 4;
    default: return 0;
  }
}
extern "C" __global__ void loopswitch(const int* in, int* out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = 0;
  for (int k = 0; k < m; ++k) {
    const int v = in[(i + k) % n];
    switch (classify(v)) {
      case 1: continue;
      case 2: acc += v; break;
      case 3: acc -= 3; if (acc < -20) { out[i] = -1; return; } break;
      case 4: k = m; break;
      default: acc ^= k; break;
    }
    acc += 1;
  }
  out[i] = acc;
}
