// chapters/11-copy-engine/copy-engine.cu - chapter 11, the copy engine in and out: the chapter's
// opening, and its kernels with the copy engine both ways (tf32+tma-store, tf32x3+tma-store)
// defined once from store.cuh; the programs that race them link this object. gemm.cuh holds the
// box copies and the ring of stages (the GEMM chapter 13's layer calls), store.cuh the triangle.
//
//   make chapter11
//   build/chapter11 --kernel tf32x3+tma-store T=4096

/*md
# The copy engine, in and out

## What does a copy engine buy the tensor cores?

Chapter 10's `wgmma` reads its keys from shared memory, but the lanes
still put them there: every thread loads its share of a tile, splits it
and writes it where the tensor cores read it, and every score leaves from
the registers, eight bytes at a time. Hopper has an engine for that work
too, the *tensor memory accelerator* (TMA): one instruction from one
thread moves a whole tile between global and shared memory, in either
direction, and barriers in shared memory say when it has landed
(the PTX ISA's `cp.async.bulk.tensor` and `mbarrier` [@ptx-isa];
FlashAttention-3 feeds `wgmma` with it [@shah2024flashattention3]). What
does it buy? This chapter answers twice: for a GEMM whose operands are
read many times over, the projections that chapter 13's MSA layer needs,
where the copies must keep the tensor cores fed; and for the triangle,
which reads each input once and whose time is mostly its stores.
Like `wgmma`, the copy engine's tensor copies exist only in code built
for `sm_90a`.
*/

#include "store.cuh"

// book:hide
/* The sizes are the walk's (chapters/10-wgmma/wgmma.cuh); the maps' 32-bit coordinates need
 * B*NH*T rows at most 2^31 - 1, which the program's own limit on the number
 * of input floats already ensures. */
extern const triangle_kernel tf32_tma_store_kernel =
    {tf32x3_wgmma_refuses, tma_store_launch<1>, tma_store_unfit};
extern const triangle_kernel tf32x3_tma_store_kernel =
    {tf32x3_wgmma_refuses, tma_store_launch<3>, tma_store_unfit};
// book:show
