// 11-hopper-ring.cu - exercise 11.1: the bookkeeping of a ring of any size, copied any distance ahead.
//
// exercises/11-hopper-ring.cu is the student's copy, made from
// solutions/11-hopper-ring.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=11-hopper-ring        # needs no GPU: the ring is simulated on the CPU
//   build/exercises/11-hopper-ring STAGES=4 AHEAD=2 COUNT=10   # the ring, as your functions run it

/*md
### Exercise 11.1: a ring of any size

*Difficulty: medium.* File: `exercises/11-hopper-ring.cu`.

Chapter 11's GEMM feeds its 8 multiplying warps through a ring of
`GEMM_STAGES` = 4 buffers and copies `GEMM_AHEAD` = 2 stages ahead. Take
the same design with a ring of `stages` buffers, copied `ahead` stages
ahead: thread 0, a lane of warp 0, which multiplies like the others,
starts the copies of stages 0 to `ahead` $- 1$ before the loop, and at the
start of its stage $s$ those of stage $s +$ `ahead`; before each copy it
waits on the *empty* barrier of the copy's buffer, and here it waits
before every copy, the first `stages` included: no `if`. Stage $s$ lives
in buffer `ring_buffer(s, stages)` $= s \bmod$ `stages`, and the warps
wait on its *full* barrier with parity `full_parity(s, stages)`, as in
the chapter (both are in the file). Each warp, done with a stage, arrives
once on its buffer's *empty*, which completes when all 8 have. Write, as
`__host__ __device__` functions:

1. `empty_parity(c, stages)`: the parity that thread 0's wait on *empty*
   names before it copies stage $c$, for every $c \ge 0$;
2. `largest_ahead(stages)`: the largest `ahead` (at least 1) with which
   no order of events makes a wait pass too early (a race) or never pass
   (a deadlock);
3. `slack(stages, ahead)`: how far a warp may fall behind warp 0 before
   thread 0 has to wait for it: the largest $n$ such that, whenever every
   warp has finished stage $s - 1 - n$, thread 0's wait at the start of
   its stage $s$ returns at once.

The barriers behave as the hardware's do. A barrier completes its phases
0, 1, 2, ... in turn; a wait on parity $p$ returns at once when the
barrier's current phase has the other parity (the phase before it, of
parity $p$, has completed), and otherwise when the current phase
completes. A fresh barrier is in phase 0, so a wait on parity 1 returns at
once: the phase before the first counts as completed.

Hints:

- Count the uses of a buffer from 0: stage $c$ is use
  $\lfloor c / \mathit{stages} \rfloor$ of its buffer. Which completion
  of *empty* ends the use before it, and what is its parity when there was
  none?
- In C, `-1 % 2` is `-1`.
- At the start of stage $s$ warp 0 has finished stage $s - 1$ and no more.
  Which stage must every warp have finished before the copy of stage
  $s +$ `ahead` may start?
- The chapter chose `ahead` = 2 of 4 buffers. What would 3 have bought,
  and what would it have cost?

Check it with `make grade EX=11-hopper-ring`: it needs no GPU. The grader
simulates the ring on the CPU, 8 warps, thread 0 and the copy engine,
with rings of 2 to 8 buffers (every `ahead` up to your largest) and of 16 to
64 (some), each up to 3 rings' worth of stages, in orders of events drawn from the
grading's seed (copies that land late, warps that run ahead or lag). It
stops at the first warp that reads a buffer before its stage has landed,
the first copy that starts into a buffer a warp still needs, or a
deadlock, and says where; it runs `ahead` one above your largest, which
must fail; and it holds the warps back by $n$ stages to measure the slack.
The untouched exercise's waits all name parity 0.
*/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/numbers.h"

#define RING_WARPS 8 /* the multiplying warps: two warp groups, as in chapter 11's GEMM */

/* Stage s lives in buffer ring_buffer(s, stages); the warps wait for the
 * completion of its full barrier whose parity is full_parity(s, stages):
 * chapter 11's gemm_buffer and gemm_phase, for a ring of any size. */
__host__ __device__ int ring_buffer(int s, int stages)
{
    return s % stages;
}

__host__ __device__ int full_parity(int s, int stages)
{
    return s / stages % 2;
}

/* The parity thread 0's wait on empty[ring_buffer(c, stages)] names before
 * it copies stage c, for every c >= 0. */
__host__ __device__ int empty_parity(int c, int stages)
{
    // exercise:begin the parity of thread 0's wait on empty before it copies stage c, any c >= 0
    /* Stage c is use c / stages of its buffer. The use before it, c / stages
     * - 1, ended with the completion of empty that bears that number (the
     * first completion is number 0). For c < stages there was none: the
     * number is -1, the phase before the first, of parity 1, which a fresh
     * barrier counts as completed. (c / stages - 1) % 2, the chapter's
     * expression, is -1 there (C's % keeps the sign), hence its if. */
    return (c / stages + 1) % 2;
    // exercise:stub (void)c, (void)stages;
    // exercise:stub return 0;
    // exercise:end
}

/* The largest number of stages copied ahead (at least 1) with which no
 * order of events races or deadlocks, for a ring of `stages` buffers. */
__host__ __device__ int largest_ahead(int stages)
{
    // exercise:begin the largest ahead that can neither race nor deadlock
    /* The copy of stage s + ahead, at the start of stage s, goes into the
     * buffer of stage s + ahead - stages and must wait until every warp is
     * done with that stage. Warp 0, thread 0's own, has finished stage s - 1
     * and starts stage s only after the wait: ahead = stages would wait for
     * it to finish stage s, a deadlock (and a wait that passed would be a
     * race). ahead = stages - 1 waits for stage s - 1, which warp 0 has
     * finished and the other warps will. */
    return stages - 1;
    // exercise:stub (void)stages;
    // exercise:stub return 0;
    // exercise:end
}

/* How many stages a warp may lag behind warp 0 before thread 0 waits for it. */
__host__ __device__ int slack(int stages, int ahead)
{
    // exercise:begin the largest lag n such that thread 0's wait at its stage s returns at once
    /* Thread 0's wait at the start of stage s needs stage s + ahead - stages
     * finished by every warp. A warp that has finished stage s - 1 - n has
     * when s - 1 - n >= s + ahead - stages: n <= stages - ahead - 1. The
     * chapter's 4 and 2 leave one stage of slack; ahead = 3 would leave none,
     * so that warp 0 would wait every stage for the slowest warp, a block
     * barrier again; 1 would leave two, and a copy only one stage to land. */
    return stages - ahead - 1;
    // exercise:stub (void)stages, (void)ahead;
    // exercise:stub return 0;
    // exercise:end
}

/* Prints the ring as your functions run it: who copies what, after which
 * wait, and what the warps wait on, stage by stage. */
int main(int argc, char **argv)
{
    int stages = 4, ahead = 2, count = 10;
    if (whole_number_argument(argc, argv, "STAGES", 1, 64, &stages) < 0 ||
        whole_number_argument(argc, argv, "AHEAD", 0, 10000, &ahead) < 0 ||
        whole_number_argument(argc, argv, "COUNT", 1, 10000, &count) < 0) {
        fprintf(stderr, "usage: %s [STAGES=4] [AHEAD=2] [COUNT=10] (1 <= STAGES <= 64)\n", argv[0]);
        return 2;
    }
    printf("a ring of %d buffers, copies %d stages ahead, %d stages: largest_ahead(%d) = %d, "
           "slack(%d, %d) = %d\n",
           stages, ahead, count, stages, largest_ahead(stages), stages, ahead,
           slack(stages, ahead));
    printf("%-9s %-45s %s\n", "", "thread 0 copies, after waiting on", "then the warps wait on");
    char copy[96]; /* four ints of 11 characters and the words */
    for (int c = 0; c < ahead && c < count; c++) { /* before the loop */
        snprintf(copy, sizeof copy, "stage %d into buffer %d, empty[%d] parity %d", c,
                 ring_buffer(c, stages), ring_buffer(c, stages), empty_parity(c, stages));
        printf("%-9s %s\n", c == 0 ? "before" : "", copy);
    }
    for (int s = 0; s < count; s++) {
        const int c = s + ahead, b = ring_buffer(c, stages);
        copy[0] = '\0';
        if (c < count)
            snprintf(copy, sizeof copy, "stage %d into buffer %d, empty[%d] parity %d", c, b, b,
                     empty_parity(c, stages));
        printf("stage %-3d %-45s full[%d] parity %d\n", s, copy, ring_buffer(s, stages),
               full_parity(s, stages));
    }
    return 0;
}
