// chapters/08-tensor/tensor.cu - chapter 8's contenders from tensor.cuh, defined once: the programs
// that race them link this object. tensor.cuh holds the code and the story.

#include "tensor.cuh"

extern const triangle_kernel tf32_kernel = {tf32_refuses, tf32_tiles_launch, tf32_tiles_unfit};
extern const triangle_kernel tf32_rows_kernel = {tf32_refuses, tf32_rows_launch, tf32_rows_unfit};
extern const triangle_kernel tf32_rows_cut_kernel =
    {tf32_refuses, tf32_rows_cut_launch, tf32_rows_unfit};
