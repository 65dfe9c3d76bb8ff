// __device__ variables initialized with addresses of other variables: a pointer table, string
// pointers for printf, and (nvcc only) a pointer inside a packed structure, which nvcc writes byte
// by byte as 0xFF00(generic(values)+4). clang 14 emits an initializer list for such a structure
// that does not match its own declaration, so that part is compiled for nvcc alone.
__device__ int values[4] = {10, 20, 30, 40};
__device__ int* picks[3] = {&values[3], &values[0], &values[2]};
__device__ const char* names[2] = {"alpha", "beta"};
#if defined(__NVCC__)
struct __attribute__((packed)) Tagged {
  char tag;
  int* ptr;
};
__device__ Tagged tagged = {'t', &values[1]};
#endif

extern "C" __global__ void globals(int* out) {
  const int i = threadIdx.x;
  if (i < 3) out[i] = *picks[i];
#if defined(__NVCC__)
  if (i == 3) out[3] = *tagged.ptr + tagged.tag;
#else
  if (i == 3) out[3] = 20 + 't';
#endif
  if (i < 2) printf("name %d = %s\n", i, names[i]);
  if (i == 4) picks[0] = &values[1];  // the table is ordinary writable memory
}
