// 08-tensor-epilogue.cu - exercise 8.2: which scores the accumulators hold, stored in pairs.
//
// exercises/08-tensor-epilogue.cu is the student's copy, made from
// solutions/08-tensor-epilogue.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-epilogue
//   build/exercises/08-tensor-epilogue B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.2: the accumulators, stored 8 bytes at a time

*Difficulty: medium.* File: `exercises/08-tensor-epilogue.cu`.

The same tile kernel as exercise 8.1, its fragments written this time:
each warp has accumulated its $64 \times 32$ piece in `sum[m][n][0..3]`,
one $16 \times 8$ tile of $C$ per m-tile `m` and n-tile `n`. Write:

1. `c_row(lane, i)` and `c_col(lane, i)`: the row (query) and column (key)
   within the $16 \times 8$ tile of accumulator $i = 0 \ldots 3$ of lane
   `lane`, as the instruction lays them out;
2. the epilogue: every kept score ($j \le i$), scaled by $1/\sqrt{HS}$,
   into `preatt`, with **8-byte stores**: each lane's accumulators come in
   pairs that are neighbours in one row, and each pair is one `float2`.

The grader checks your two functions on the CPU against the instruction's
layout, and that the pairs you store are neighbours at an even column; it
reads the PTX for 8-byte stores and no 4-byte ones (with `cuobjdump`, the
machine code for `STG.E.64`); on a GPU, memcheck and the values.

Hints:

- Why even? An 8-byte store must be 8-byte aligned, and `preatt` rows are
  $T$ floats apart, $T$ a multiple of 128.
- On the diagonal a pair may hold one kept and one masked score. The
  referee ignores masked ones: when is a pair worth writing?

Check it with `make grade EX=08-tensor-epilogue`. The untouched exercise
writes nothing, so every score stays NaN.
*/

#include "08-tensor-tile.cuh" // exercise:inline

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"tf32", 8, CONTENDER_STEP, GPU_PIPE_TENSOR, TOLERANCE_TF32}, &tensor_tile_kernel};
    return triangle_chapter_main(argc, argv, "08-tensor-epilogue", 8,
                                 "exercise 8.2, the accumulators in pairs", &contender, 1);
}
