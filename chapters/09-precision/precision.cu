// chapters/09-precision/precision.cu - chapter 9's contenders from precision.cuh, defined once: the programs
// that race them link this object. precision.cuh holds the code and the story.

#include "precision.cuh"

extern const triangle_kernel tf32x3_kernel = {tf32_refuses, tf32x3_launch, tf32x3_unfit};
