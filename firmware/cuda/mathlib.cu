// mathlib: the accurate single-precision math library over input arrays, one thread per element,
// every function on its own inputs. nvcc links NVIDIA's libdevice (range reduction and polynomials
// built from FMAs and SFU approximations, a double-precision Payne-Hanek path with a local-memory
// array for huge sin/cos/tan arguments); clang inlines TeslaSM's tsm_cuda_math.h (binary32 only).
// So the kernel exercises long straight-line FP code, data-dependent branches to slow paths,
// 64-bit integer arithmetic and, with nvcc, f64 lowered to integer sequences and local memory.
//
// Buffers are struct-of-arrays: slot s holds elements [s*n, (s+1)*n); x and y are the inputs, r
// the results. Host program, error bounds (CUDA C Programming Guide) and reference:
// firmware/host/mathlib.cpp.
constexpr unsigned kSin = 0, kCos = 1, kTan = 2, kExp = 3, kExp2 = 4, kLog = 5, kLog2 = 6, kPow = 7, kSqrt = 8,
                   kFabs = 9, kFmin = 10, kFmax = 11, kFloor = 12, kCeil = 13, kTrunc = 14, kRound = 15, kFmod = 16,
                   kAtan2 = 17;

extern "C" __global__ void mathlib(unsigned n, const float* x, const float* y, float* r) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // Element i of slot s.
  auto at = [n, i](unsigned s) { return s * n + i; };

  r[at(kSin)] = sinf(x[at(kSin)]);
  r[at(kCos)] = cosf(x[at(kCos)]);
  r[at(kTan)] = tanf(x[at(kTan)]);
  r[at(kExp)] = expf(x[at(kExp)]);
  r[at(kExp2)] = exp2f(x[at(kExp2)]);
  r[at(kLog)] = logf(x[at(kLog)]);
  r[at(kLog2)] = log2f(x[at(kLog2)]);
  r[at(kPow)] = powf(x[at(kPow)], y[at(kPow)]);
  r[at(kSqrt)] = sqrtf(x[at(kSqrt)]);
  r[at(kFabs)] = fabsf(x[at(kFabs)]);
  r[at(kFmin)] = fminf(x[at(kFmin)], y[at(kFmin)]);
  r[at(kFmax)] = fmaxf(x[at(kFmax)], y[at(kFmax)]);
  r[at(kFloor)] = floorf(x[at(kFloor)]);
  r[at(kCeil)] = ceilf(x[at(kCeil)]);
  r[at(kTrunc)] = truncf(x[at(kTrunc)]);
  r[at(kRound)] = roundf(x[at(kRound)]);
  r[at(kFmod)] = fmodf(x[at(kFmod)], y[at(kFmod)]);
  r[at(kAtan2)] = atan2f(y[at(kAtan2)], x[at(kAtan2)]);  // atan2f(y, x): the angle of the point (x, y)
}
