// Many values live at once; with --maxrregcount 2 a single instruction cannot get its operands
// even when everything else is spilled.
extern "C" __global__ void pressure(const float* in, float* out) {
  float a = in[0], b = in[1], c = in[2], d = in[3], e = in[4], f = in[5], g = in[6], h = in[7];
  out[threadIdx.x] = a * b + c * d + e * f + g * h + a * h + b * g + c * f + d * e;
}
