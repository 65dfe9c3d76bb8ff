// Built-in variables, dim3, vector types and the CUDA qualifiers: every one must compile with both
// front ends and reach the PTX (special registers, .shared/.const, launch bounds, a real call).

struct __align__(16) Particle {
  float4 position;
  int2 cell;
};

__constant__ float scale[4];
__device__ int launches;

__host__ __device__ inline int square(int v) { return v * v; }
__device__ __forceinline__ float twice(float v) { return v + v; }
__device__ __noinline__ float not_inlined(float v) { return v * 3.0f + 1.0f; }

extern "C" __global__ void __launch_bounds__(256, 2)
builtins(float* __restrict__ out, const float4* __restrict__ in, Particle* particles) {
  __shared__ float tile[256];
  extern __shared__ float dynamic_tile[];
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  const unsigned i = block * (blockDim.x * blockDim.y * blockDim.z) + tid;
  dim3 shape = blockDim;
  uint3 index = threadIdx;
  dim3 defaults(4);  // (4, 1, 1)
  tile[tid] = in[i].x + in[i].w;
  dynamic_tile[tid] = static_cast<float>(shape.x + index.y + defaults.y + warpSize);
  __syncthreads();
  float4 p = make_float4(tile[(tid + 1) % 256], dynamic_tile[tid], 0.0f, 1.0f);
  int2 cell = make_int2(square(static_cast<int>(tid)), static_cast<int>(block));
  uchar4 c = make_uchar4(1, 2, 3, 4);
  double2 d = make_double2(1.0, 2.0);
  particles[i].position = p;
  particles[i].cell = cell;
  out[i] = twice(p.x) + not_inlined(scale[tid & 3]) + c.w + static_cast<float>(d.y) +
           static_cast<float>(sizeof(float3) + sizeof(short2) + alignof(float4) + alignof(int2));
  if (i == 0) launches = launches + 1;
}

// memcpy in device code (expanded inline, no call), the cycle counters and read-only loads.
__device__ float bits_to_float(unsigned bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

extern "C" __global__ void counters(long long* cycles, float* out, const float* __restrict__ in,
                                    const unsigned* bits) {
  const long long start = clock64();
  const long begin = clock();
  out[threadIdx.x] = __ldg(&in[threadIdx.x]) + bits_to_float(bits[threadIdx.x]);
  cycles[threadIdx.x] = clock64() - start + (clock() - begin);
}
