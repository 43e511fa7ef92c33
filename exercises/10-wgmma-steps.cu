// 10-wgmma-steps.cu - exercise 10.1: a tile of keys laid out step by step, and the descriptor of a step.
//
// exercises/10-wgmma-steps.cu is the student's copy, made from
// solutions/10-wgmma-steps.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=10-wgmma-steps        # needs no GPU: wgmma's reading of B is modelled on the CPU
//   build/exercises/10-wgmma-steps KEYS=16 HS=16   # your layout and descriptors, printed

/*md
### Exercise 10.1: one step, one piece

*Difficulty: medium.* File: `exercises/10-wgmma-steps.cu`.

Chapter 10 lays a part of a tile of keys (its big or its small part) down
for `wgmma` as `key_index` says: each group of 8 keys holds all $HS$ values
of its keys, $8 \cdot HS$ floats, so the core matrices of one step (values
$8j$ to $8j + 7$ of $k$) are scattered over the whole part, $32 \cdot HS$
bytes apart, and the descriptor's offsets depend on the head size. Lay the
part down step by step instead: values $8j$ to $8j + 7$ of every key of
the tile in one piece of $8 \cdot \mathit{KEYS}$ floats, floats
$8 \mathit{KEYS} j$ to $8 \mathit{KEYS} (j + 1) - 1$, step after step. A
step is then one block of $32 \cdot \mathit{KEYS}$ bytes, which a copy
could bring in alone, and the offsets of its descriptor no longer depend
on $HS$.

`wgmma` reads $B$ as core matrices of 8 keys by 4 values, 128 contiguous
bytes each, the 4 values of a key side by side (16 bytes), the 8 keys one
after the other. A descriptor names a step by three numbers: the address
of its first core matrix (keys 0 to 7, values 0 to 3 of the step), the
*leading* offset from a core matrix to the next along $k$ (values 4 to 7)
and the *stride* offset from a core matrix to the next along the keys
(the next 8 keys). So value $k'$ ($0 \le k' < 8$) of key $n$ of the step
is read at

$$\text{start} + \lfloor k'/4 \rfloor \cdot \text{leading} +
\lfloor n/8 \rfloor \cdot \text{stride} + (n \bmod 8) \cdot 16 +
(k' \bmod 4) \cdot 4 \text{ bytes.}$$

Write, as `__host__ __device__` functions, for any `keys` of a tile, a
multiple of 8 from 8 to 256 (`wgmma`'s $N$), and any `hs`, a multiple of 8
from 8 to 128:

1. `key_slot(n, k, keys, hs)`: where key $n$, value $k$ lies in the part,
   in floats from its start;
2. `step_descriptor(step, keys, hs)`: a `step_fields` with step `step`'s
   `start` (from the part's start), `leading` and `stride`, in bytes, each
   a multiple of 16 below $2^{18}$ (a descriptor holds them as 14 bits of
   16-byte units).

Hints:

- Within a step there are two ways to order its core matrices: the two
  halves of $k$ first, or the groups of 8 keys first. Either will do; the
  descriptor says which.
- Check your `step_descriptor` by hand at one key of the second group of
  8, value 5 of the step.
- The chapter's `key_index` and `key_descriptor` (in the file's stubs) are
  a layout of this kind too; which property do they lack?

Check it with `make grade EX=10-wgmma-steps`: it needs no GPU. The grader
reads every step of every tile of `keys` 8 to 256 and `hs` 8 to 128 as the
descriptor model above says, and checks that every float of the part is
one key's value, that each step is the one piece the statement asks for,
that the descriptor's fields are multiples of 16 in range, and that the
value read at each key and $k'$ is the one your `key_slot` put there. The
untouched exercise is the chapter's layout, whose steps are not in one
piece.
*/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/numbers.h"

/* What the descriptor of one step of a part carries, in bytes. */
struct step_fields {
    int start;   /* the step's first core matrix, from the part's start */
    int leading; /* from a core matrix to the next along k (values 4 to 7 of the step) */
    int stride;  /* from a core matrix to the next along the keys (the next 8 keys) */
};

/* Where key n, value k of a tile of `keys` keys and `hs` values lies in one
 * part, in floats from its start. */
__host__ __device__ int key_slot(int n, int k, int keys, int hs)
{
    // TODO: the float of key n, value k: each step's 8 values of every key in one piece
    /* the chapter's key_index: groups of 8 keys, each with all hs values */
    (void)keys;
    return (n / 8) * (8 * hs) + (k / 4) * 32 + (n % 8) * 4 + k % 4;
    // TODO end
}

/* The descriptor's fields of step `step` (values 8 step to 8 step + 7). */
__host__ __device__ step_fields step_descriptor(int step, int keys, int hs)
{
    step_fields f;
    // TODO: the step's start, leading and stride offsets, in bytes, as key_slot lays it down
    /* the chapter's key_descriptor: part + step * 64 floats, 32 floats, 8 hs floats */
    (void)keys;
    f.start = step * 64 * 4;
    f.leading = 32 * 4;
    f.stride = 8 * hs * 4;
    // TODO end
    return f;
}

/* Prints where your layout puts each key's values, and where wgmma reads
 * them through your descriptors, step by step. */
int main(int argc, char **argv)
{
    int keys = 16, hs = 16;
    if (whole_number_argument(argc, argv, "KEYS", 8, 256, &keys) < 0 || keys % 8 ||
        whole_number_argument(argc, argv, "HS", 8, 128, &hs) < 0 || hs % 8) {
        fprintf(stderr, "usage: %s [KEYS=16] [HS=16] (KEYS a multiple of 8 to 256, HS of 8 to "
                "128)\n", argv[0]);
        return 2;
    }
    int mismatches = 0;
    for (int step = 0; step < hs / 8; step++) {
        const step_fields f = step_descriptor(step, keys, hs);
        printf("step %d: start %d bytes (float %d), leading %d, stride %d\n", step, f.start,
               f.start / 4, f.leading, f.stride);
        for (int n = 0; n < keys; n++) {
            if (n < 16)
                printf("  key %2d:", n);
            for (int kk = 0; kk < 8; kk++) {
                const int slot = key_slot(n, 8 * step + kk, keys, hs);
                const long read = f.start + kk / 4 * (long)f.leading + n / 8 * (long)f.stride +
                                  n % 8 * 16 + kk % 4 * 4;
                mismatches += read != 4L * slot;
                if (n < 16)
                    printf(" %5d%s", slot, read == 4L * slot ? " " : "*");
            }
            if (n < 16)
                printf("\n");
        }
    }
    printf("floats of each key's values (the first 16 keys); '*': wgmma would read another "
           "float there (%d in all)\n", mismatches);
    return 0;
}
