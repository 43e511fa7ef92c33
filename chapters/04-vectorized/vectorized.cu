// chapters/04-vectorized/vectorized.cu - chapter 4's contenders from vectorized.cuh, defined once: the programs
// that race them link this object. vectorized.cuh holds the code and the story.

#include "vectorized.cuh"

extern const triangle_kernel vectorized_kernel = {vectorized_refuses, vectorized_launch};
