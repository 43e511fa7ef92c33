// 12-roles-schedule.cu - exercise 12.1: a schedule of persistent blocks whose units all weigh the same.
//
// exercises/12-roles-schedule.cu is the student's copy, made from
// solutions/12-roles-schedule.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=12-roles-schedule     # needs no GPU: the schedule is checked on the CPU
//   build/exercises/12-roles-schedule HEADS=96 ROWS=7 BLOCKS=132   # your schedule, dealt out

/*md
### Exercise 12.1: units of equal work

*Difficulty: medium.* File: `exercises/12-roles-schedule.cu`.

Chapter 12's persistent blocks deal out units of work round-robin, and a
unit is a pair of rows of tiles of one head. With $n$ rows of tiles a
head, row $r$ reaches $r + 1$ tiles to the diagonal (tiles as wide as a
row is tall: its work), so rows $n - 1 - p$ and $p$ have $n + 1$
together, whatever $p$. An odd $n$ leaves each head's middle row,
$(n - 1) / 2$, without a partner: it is a unit of its own, with half the
work of the others. Dealt round-robin, units of two sizes load the blocks
unevenly, and the busiest block sets the kernel's time: at 96 heads
($B = 8$, $NH = 12$) and $T = 1408$ ($n = 11$) on 132 blocks, the busiest
has 60 tiles of work where 48 would do.

Deal the middle rows out in pairs too, the middle rows of two heads in one
unit, so that every unit has the same work. Write, as `__host__
__device__` functions, for any number of heads $H \ge 1$ and any $n \ge 1$
with $H (n + 1) \le 2^{31} - 1$ (what the chapter's kernel accepts):

1. `schedule_units(heads, rows)`: how many units there are;
2. `unit_at(unit, heads, rows)`: the rows of unit `unit`
   ($0 \le$ `unit` $<$ `schedule_units(heads, rows)`), in the order a block
   walks them: a `schedule_unit` whose `count` is 1 or 2 and whose row $k
   <$ `count` is row `tile_row[k]` of head `head[k]`.

The schedule must have these properties:

- every row of every head is in exactly one unit;
- every unit's work, the sum of $r + 1$ over its rows, is $n + 1$, except
  the last unit's when $H$ and $n$ are both odd: one middle row is left
  with nothing to pair it with, a last unit of work $(n + 1) / 2$;
- the walk is head-major: along the units in order, and along the rows of
  each unit in order, the head never decreases, so that each head's rows
  are one run of neighbouring units and the blocks that run at once share
  the keys of a few heads in the L2 cache, as in the chapter;
- of a unit's two rows, the one with more work comes first, as in the
  chapter (the loader brings the second row's queries while the first is
  multiplied), equal work in either order.

The kernel's roles walk rows, each with its own head
(`roles_row_at(head, tile_row, ...)`), so a unit with rows of two heads
needs nothing else of them. The program deals your units out to `BLOCKS`
blocks, as the kernel does, and prints the busiest block's work beside
the chapter's schedule's: try $n = 11$ and $n = 7$ at 96 heads, and
$n = 1$, where there are fewer units than blocks.

Hints:

- How much work do the $H$ heads hold together, and so how many units of
  $n + 1$ must there be?
- Where can the unit with the middle rows of heads $h$ and $h + 1$ go in
  the list so that the head never decreases along the walk?
- With an even $n$ the chapter's schedule (`roles_units`,
  `roles_next_row`) already has every property.

Check it with `make grade EX=12-roles-schedule`: it needs no GPU. The
grader walks your schedule on the CPU, every unit of every $H$ from 1 to
32 with every $n$ from 1 to 64, every unit of larger schedules up to 1,000
heads and 512 rows (some drawn afresh at each grading), and samples of
units (a stretch at the start, one at the end and stretches drawn between)
of schedules up to $H (n + 1)$ near $2^{31}$, where it checks every
property within the sample. The untouched exercise is the chapter's
schedule, whose middle rows are units of half the work.
*/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/numbers.h"

/* A unit of the schedule: its rows in the order a block walks them, row k
 * (k < count) being tile row tile_row[k] of head head[k]. */
struct schedule_unit {
    int count;
    int head[2], tile_row[2];
};

/* How many units `heads` heads of `rows` rows of tiles make. */
__host__ __device__ int schedule_units(int heads, int rows)
{
    // exercise:begin the number of units, every one of them the work of rows + 1
    /* The heads hold H n (n + 1) / 2 tiles of work: H n / 2 units of n + 1,
     * rounded up for the single middle row left when H and n are odd. (H n
     * + 1 <= H (n + 1) fits an int.) */
    return (heads * rows + 1) / 2;
    // exercise:stub return heads * ((rows + 1) / 2); /* the chapter's: a middle row is a unit of its own */
    // exercise:end
}

/* The rows of unit `unit` (0 <= unit < schedule_units(heads, rows)). */
__host__ __device__ schedule_unit unit_at(int unit, int heads, int rows)
{
    schedule_unit u;
    // exercise:begin the unit's rows: equal work, every row once, the head never decreasing along the walk
    /* Heads go two at a time: head 2j's pairs, then the unit of the middle
     * rows of heads 2j and 2j + 1, then head 2j + 1's pairs; 2P + 1 units
     * (P = n / 2 pairs a head; no middle unit for an even n). A last head
     * of an odd count, alone, has its pairs and then its middle row alone. */
    const int pairs = rows / 2, middle = rows % 2;
    const int span = 2 * pairs + middle; /* the units of two heads */
    const int two = unit / span, at = unit % span;
    int head = 2 * two, pair = at;
    if (middle && at == pairs) { /* the middle rows of heads 2j and 2j + 1 */
        u.count = head + 1 < heads ? 2 : 1;
        u.head[0] = head, u.tile_row[0] = pairs;
        u.head[1] = head + 1, u.tile_row[1] = pairs;
        return u;
    }
    if (at > pairs || (!middle && at == pairs)) /* past the middle unit: head 2j + 1 */
        head++, pair = at - pairs - middle;
    u.count = 2;
    u.head[0] = u.head[1] = head;
    u.tile_row[0] = rows - 1 - pair; /* the long row first */
    u.tile_row[1] = pair;
    // exercise:stub /* the chapter's: P = ceil(n / 2) units a head, the middle row of an odd n alone */
    // exercise:stub const int pairs = (rows + 1) / 2, pair = unit % pairs;
    // exercise:stub u.head[0] = u.head[1] = unit / pairs;
    // exercise:stub u.tile_row[0] = rows - 1 - pair;
    // exercise:stub u.tile_row[1] = pair;
    // exercise:stub u.count = pair == rows - 1 - pair ? 1 : 2;
    // exercise:end
    return u;
}

/* Deals your units out as the chapter's blocks take them (block k: units
 * k, k + BLOCKS, ...) and prints the first units and the blocks' work. */
int main(int argc, char **argv)
{
    int heads = 96, rows = 7, blocks = 132, shown = 12;
    if (whole_number_argument(argc, argv, "HEADS", 1, 100000000, &heads) < 0 ||
        whole_number_argument(argc, argv, "ROWS", 1, 100000000, &rows) < 0 ||
        (long long)heads * (rows + 1) > 100000000 ||
        whole_number_argument(argc, argv, "BLOCKS", 1, 100000, &blocks) < 0 ||
        whole_number_argument(argc, argv, "SHOW", 0, 100000000, &shown) < 0) {
        fprintf(stderr, "usage: %s [HEADS=96] [ROWS=7] [BLOCKS=132] [SHOW=12] (HEADS*(ROWS+1) "
                "at most 10^8 here)\n", argv[0]);
        return 2;
    }
    const int units = schedule_units(heads, rows);
    printf("%d heads of %d rows of tiles: %d units (each of work %d: the work of a row r is "
           "r + 1)\n", heads, rows, units, rows + 1);
    long *work = (long *)calloc((size_t)blocks, sizeof(long));
    for (int unit = 0; unit < units; unit++) {
        const schedule_unit u = unit_at(unit, heads, rows);
        long unit_work = 0;
        for (int k = 0; k < u.count && k < 2; k++)
            unit_work += u.tile_row[k] + 1;
        work[unit % blocks] += unit_work;
        if (unit < shown) {
            printf("unit %-6d", unit);
            for (int k = 0; k < u.count && k < 2; k++)
                printf(" head %d row %d%s", u.head[k], u.tile_row[k], k + 1 < u.count ? "," : "");
            printf("   work %ld\n", unit_work);
        }
    }
    long most = 0, least = -1;
    for (long b = 0; b < blocks && b < units; b++) {
        most = work[b] > most ? work[b] : most;
        least = least < 0 || work[b] < least ? work[b] : least;
    }
    printf("your schedule on %d blocks: the busiest block has %ld tiles of work, the idlest "
           "at work %ld\n", blocks, most, least);
    /* The chapter's: ceil(n / 2) units a head, the last of an odd n half. */
    const long pairs = (rows + 1) / 2, chapter_units = heads * pairs;
    memset(work, 0, (size_t)blocks * sizeof(long));
    for (long unit = 0; unit < chapter_units; unit++)
        work[unit % blocks] += rows % 2 && unit % pairs == pairs - 1 ? (rows + 1) / 2 : rows + 1;
    most = 0;
    for (long b = 0; b < blocks; b++)
        most = work[b] > most ? work[b] : most;
    printf("the chapter's schedule: %ld units, the busiest block has %ld tiles of work\n",
           chapter_units, most);
    free(work);
    return 0;
}
