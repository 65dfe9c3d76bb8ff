// Cooperative groups are not supported: a grid-wide barrier (grid.sync()) is an error naming them
// from the clang front end's cooperative_groups.h stub (include/unsupported/).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void twophase(int* data) {
  cg::grid_group grid = cg::this_grid();
  data[grid.thread_rank()] = 1;
  grid.sync();
  data[grid.thread_rank()] += data[0];
}
