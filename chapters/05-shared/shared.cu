// chapters/05-shared/shared.cu - chapter 5's contenders from shared.cuh, defined once: the programs
// that race them link this object. shared.cuh holds the code and the story.

#include "shared.cuh"

extern const triangle_kernel shared_staged_kernel =
    {shared_whole_refuses, shared_staged_launch, shared_whole_unfit};
extern const triangle_kernel shared_padded_kernel =
    {shared_whole_refuses, shared_padded_launch, shared_whole_unfit};
extern const triangle_kernel shared_kernel = {shared_whole_refuses, shared_launch, shared_whole_unfit};
extern const triangle_kernel shared_rows_kernel =
    {shared_rows_refuses, shared_rows_launch, shared_rows_unfit};
extern const triangle_kernel shared_rows_interleaved_kernel =
    {shared_rows_refuses, shared_rows_interleaved_launch, shared_rows_unfit};
