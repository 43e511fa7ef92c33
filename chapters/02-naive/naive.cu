// chapters/02-naive/naive.cu - chapter 2's contenders from naive.cuh, defined once: the programs
// that race them link this object. naive.cuh holds the code and the story.

#include "naive.cuh"

extern const triangle_kernel naive_kernel = {naive_refuses, naive_launch};
