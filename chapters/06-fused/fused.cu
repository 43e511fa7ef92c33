// chapters/06-fused/fused.cu - chapter 6's contenders from fused.cuh, defined once: the programs
// that race them link this object. fused.cuh holds the code and the story.

#include "fused.cuh"

extern const msa_kernel fused_kernel = {fused_refuses, NULL, fused_launch, one_block_unfit};
