// chapters/10-hopper/store.cu - chapter 10's kernels with the copy engine both ways, from
// store.cuh, defined once: the programs that race them link this object. store.cuh holds the
// code and the story.

#include "store.cuh"

/* The sizes are the walk's (hopper.cuh); the maps' 32-bit coordinates need
 * B*NH*T rows at most 2^31 - 1, which the program's own limit on the number
 * of input floats already ensures. */
extern const triangle_kernel tf32_tma_store_kernel =
    {tf32x3_wgmma_refuses, tma_store_launch<1>, tma_store_unfit};
extern const triangle_kernel tf32x3_tma_store_kernel =
    {tf32x3_wgmma_refuses, tma_store_launch<3>, tma_store_unfit};
