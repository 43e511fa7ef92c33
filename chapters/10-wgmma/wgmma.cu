// chapters/10-hopper/hopper.cu - chapter 10's triangle on wgmma from hopper.cuh, defined once:
// the programs that race it link this object. hopper.cuh holds the code and the story.

#include "wgmma.cuh"

extern const triangle_kernel tf32x3_wgmma_kernel =
    {tf32x3_wgmma_refuses, tf32x3_wgmma_launch, tf32x3_wgmma_unfit};
