// A square root rounded upward (__fsqrt_ru: sqrt.rp.f32): not supported yet, an error rather than
// the approximation it was once lowered to.
extern "C" __global__ void root_up(const float* in, float* out) { out[threadIdx.x] = __fsqrt_ru(in[threadIdx.x]); }
