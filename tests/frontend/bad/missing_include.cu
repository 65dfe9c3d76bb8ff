// Includes a header that does not exist (line 2).
#include "no_such_header.h"
__global__ void k(int* p) { p[0] = 1; }
