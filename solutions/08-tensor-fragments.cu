// 08-tensor-fragments.cu - exercise 8.1: which values of A and B a lane hands to mma.sync.
//
// exercises/08-tensor-fragments.cu is the student's copy, made from
// solutions/08-tensor-fragments.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-fragments
//   build/exercises/08-tensor-fragments B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.1: the fragments, and a padding that serves them

*Difficulty: medium.* File: `exercises/08-tensor-fragments.cu`.

A block of 8 warps computes a $128 \times 128$ tile of scores with
`mma_tf32`, each warp a $64 \times 32$ piece (the comment at the top of the
inlined tile kernel says how). The query and key tiles sit in shared memory
untransposed, `tile[row * stride + k]` with `stride` $= HS +$ `PAD`. The
kernel loads each lane's fragments through four functions, and you write
them, with the padding:

1. `a_row(lane, i)` and `a_col(lane, i)`: the row (query) and the column
   (value of $k$) of $A$ that value $i = 0 \ldots 3$ of lane `lane` holds;
2. `b_row(lane, i)` and `b_col(lane, i)`: the row (value of $k$) and the
   column (key) of $B$ for $i = 0, 1$;
3. `PAD`: the floats added to each row, so that every fragment load of a
   warp takes one wavefront, at every head size the grader uses
   ($HS$ = 32, 48, 64, 128).

The layout is the instruction's, and the PTX ISA gives it ("Matrix
Fragments for mma.m16n8k8", for `.tf32`); chapter 8 states it in words.

Hints:

- $B$ is an $8 \times 8$ block of $K^T$: its column is a key, a row of
  the key tile. That is why both tiles can stay untransposed.
- Lane $(g, t)$ reads word $(r_0 + g) \cdot \mathit{stride} + k_0 + t$ for
  `a[m][0]`. In which bank, for a stride of 64? Of 68? Does your answer
  still hold at $HS = 48$?

Check it with `make grade EX=08-tensor-fragments`. Without a GPU the grader
compares your four functions with the instruction's layout for every lane
and counts the wavefronts of every fragment load; on a GPU it runs
racecheck, the values (TF32 tolerance, 2e-3) and Nsight Compute's count of
the loads' bank conflicts. The untouched exercise hands every lane the
same value.
*/

#include "08-tensor-tile.cuh" // exercise:inline

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"tf32", 8, CONTENDER_STEP, GPU_PIPE_TENSOR, TOLERANCE_TF32}, &tensor_tile_kernel};
    return triangle_chapter_main(argc, argv, "08-tensor-fragments", 8,
                                 "exercise 8.1, the fragments of mma.sync", &contender, 1);
}
