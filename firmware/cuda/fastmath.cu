// fastmath: CUDA's fast intrinsics over input arrays, one thread per element. The single-precision
// ones run on the SFU (__sinf, __cosf: sin/cos.approx; __expf: ex2.approx after a multiply by
// log2 e; __logf: lg2.approx, then a multiply by ln 2; __powf: ex2(y * lg2 x); __fdividef:
// div.approx; rsqrtf: rsqrt.approx) or are a saturating move (__saturatef: cvt.sat); the integer
// ones are exact (__mul24, __umul24: products of the low 24 bits, clang's mul24.lo, which nvcc
// emulates with shifts and mul.lo; __mulhi, __umulhi: mul.hi) and so are the bit
// reinterpretations (__float_as_int, __int_as_float, __float_as_uint, __uint_as_float: moves, no
// arithmetic, NaN payloads kept).
//
// Buffers are struct-of-arrays: slot s of a buffer holds elements [s*n, (s+1)*n). x and y are the
// float inputs and f the float outputs, a and b the integer inputs and r the integer outputs;
// slots 0 and 1 of every buffer belong to the bit reinterpretations. Host program, error bounds
// (CUDA C Programming Guide) and reference: firmware/host/fastmath.cpp.

// Slots shared by all buffers: the bit reinterpretations.
constexpr unsigned kBits = 0;   // __float_as_int (x -> r), __int_as_float (a -> f)
constexpr unsigned kUbits = 1;  // __float_as_uint (x -> r), __uint_as_float (a -> f)
// Float slots (x, y -> f).
constexpr unsigned kSin = 2, kCos = 3, kExp = 4, kLog = 5, kPow = 6, kDiv = 7, kRsqrt = 8, kSaturate = 9;
// Integer slots (a, b -> r).
constexpr unsigned kMul24 = 2, kUmul24 = 3, kMulhi = 4, kUmulhi = 5;

extern "C" __global__ void fastmath(unsigned n, const float* x, const float* y, const int* a, const int* b,
                                    float* f, int* r) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // Element i of slot s.
  auto at = [n, i](unsigned s) { return s * n + i; };

  f[at(kSin)] = __sinf(x[at(kSin)]);
  f[at(kCos)] = __cosf(x[at(kCos)]);
  f[at(kExp)] = __expf(x[at(kExp)]);
  f[at(kLog)] = __logf(x[at(kLog)]);
  f[at(kPow)] = __powf(x[at(kPow)], y[at(kPow)]);
  f[at(kDiv)] = __fdividef(x[at(kDiv)], y[at(kDiv)]);
  f[at(kRsqrt)] = rsqrtf(x[at(kRsqrt)]);
  f[at(kSaturate)] = __saturatef(x[at(kSaturate)]);

  r[at(kMul24)] = __mul24(a[at(kMul24)], b[at(kMul24)]);
  r[at(kUmul24)] = __umul24(a[at(kUmul24)], b[at(kUmul24)]);  // as unsigned
  r[at(kMulhi)] = __mulhi(a[at(kMulhi)], b[at(kMulhi)]);
  r[at(kUmulhi)] = __umulhi(a[at(kUmulhi)], b[at(kUmulhi)]);  // as unsigned

  r[at(kBits)] = __float_as_int(x[at(kBits)]);
  f[at(kBits)] = __int_as_float(a[at(kBits)]);
  r[at(kUbits)] = __float_as_uint(x[at(kUbits)]);
  f[at(kUbits)] = __uint_as_float(a[at(kUbits)]);
}
