// chapters/10-wgmma/wgmma.cu - chapter 10's triangle on wgmma from wgmma.cuh, defined once:
// the programs that race it link this object. wgmma.cuh holds the code and the story.

#include "wgmma.cuh"

extern const triangle_kernel tf32x3_wgmma_kernel =
    {tf32x3_wgmma_refuses, tf32x3_wgmma_launch, tf32x3_wgmma_unfit};
