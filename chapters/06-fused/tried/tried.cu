// chapters/06-fused/tried/tried.cu - what chapter 6 tried and did not keep.
//
//   make build/chapter6-tried && build/chapter6-tried    # races it against the chapter's kernel
//
// It builds on the chapter's sources, included below, so the tried program
// links this file's object instead of chapter 6's own.

/*md
# Fused MSA attention: the road not taken

## One block per column, always

The chapter's launcher splits a column between the two blocks of a cluster
when the columns are too few to fill the GPU. The road not taken is never
to split: the same kernel, every column on one block, the weights resident
when they fit in its shared memory and streamed when they do not. It is
what the chapter's launcher does anyway once the columns are many, so this
variant is only the chapter's one-block launch path called for every size.
*/

// book:hide
#include "../fused.cuh"
// book:show

extern const msa_kernel fused_nocluster_kernel = {fused_refuses, NULL,
                                                  launch_one_block_per_column, one_block_unfit};

/*md
At the small case, where one block per column leaves half of the
multiprocessors idle, splitting pays a little: one block per column takes
{{median_ms|fused+nocluster|B=2 S=8 N=32 D=64 H=4 mask=drawn}} ms, the split kernel
{{median_ms|fused|B=2 S=8 N=32 D=64 H=4 mask=drawn}} ms. It pays much more once a
block has real arithmetic to do. With more sequences, at $S = 64$, the
split kernel takes {{median_ms|fused|B=2 S=64 N=32 D=64 H=4 mask=drawn}} ms against
{{median_ms|fused+nocluster|B=2 S=64 N=32 D=64 H=4 mask=drawn}} ms; with wider
features, at $D = 128$, {{median_ms|fused|B=2 S=8 N=32 D=128 H=4 mask=drawn}} ms
against {{median_ms|fused+nocluster|B=2 S=8 N=32 D=128 H=4 mask=drawn}} ms, because
there the split also lets each block keep all its weight rows in shared
memory instead of streaming them through two slots.

Where the chapter's launcher does not split, the two are the same launch:
at $D = 32$ ({{median_ms|fused+nocluster|B=2 S=8 N=32 D=32 H=4 mask=drawn}} ms against
{{median_ms|fused|B=2 S=8 N=32 D=32 H=4 mask=drawn}} ms), where half a block would have
too little to do, and with 256 columns, which fill the GPU on their own
({{median_ms|fused+nocluster|B=1 S=64 N=256 D=64 H=8 mask=drawn}} ms against
{{median_ms|fused|B=1 S=64 N=256 D=64 H=8 mask=drawn}} ms). Never splitting is faster
at no size beyond the spread of the timings, and where columns are few it
leaves half of the multiprocessors idle: it lost.
*/
