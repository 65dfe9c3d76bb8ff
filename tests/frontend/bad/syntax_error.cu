// A CUDA syntax error: both front ends report line 4.
__global__ void broken(int* p) {
  int x = 3;
  p[0] = (x + );
}
