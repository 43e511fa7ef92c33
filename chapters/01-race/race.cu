// chapters/01-race/race.cu - chapter 1's contenders from race.cuh, defined once: the programs
// that race them link this object. race.cuh holds the code and the story.

#include "race.cuh"

extern const triangle_kernel cublas_permute_kernel = {NULL, launch_cublas_permute};
extern const triangle_kernel cublas_direct_kernel = {NULL, launch_cublas_direct};
extern const triangle_kernel cublas_rows_kernel = {NULL, launch_cublas_rows};
extern const triangle_kernel cublas_tf32_kernel = {NULL, launch_cublas_tf32};
