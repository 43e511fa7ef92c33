// chapters/07-tiled/tiled.cu - chapter 7's contenders from tiled.cuh, defined once: the programs
// that race them link this object. tiled.cuh holds the code and the story.

#include "tiled.cuh"

extern const msa_kernel fused_tiled_kernel = {tiled_refuses, tiled_scratch_floats, tiled_launch};
