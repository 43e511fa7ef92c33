/* solutions/host/02-triangle-grid.cu - the host check of exercise 2.1:
 * tiles_per_head and tile_of_block against an enumeration of the tiles, for
 * every n up to 256 and five larger ones up to 4096 (two drawn from the
 * grading's seed); and at n = 4096, at a drawn n up to 8192 and at 65535,
 * the most a grid's x dimension holds (65535 * 65536 / 2 blocks, just under
 * 2^31), the blocks of a sample (the first and last third, a third drawn),
 * each inside the triangle and no tile twice among them. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

#include <algorithm>

/* The student's functions: each call answered by the probe (probed_call.h). */
#define tiles_per_head PROBED(tiles_per_head)
#define tile_of_block PROBED(tile_of_block)

/* Checks the numbering for n tiles a side; 0 when it is right, else 1 with why. */
static int check_tiles(int n, char *why, size_t capacity)
{
    const long want = (long)n * (n + 1) / 2; /* counted: row y has y + 1 tiles */
    const long blocks = tiles_per_head(n);
    if (blocks != want) {
        snprintf(why, capacity, "tiles_per_head(%d) is %ld; the tiles on or below the diagonal "
                 "are %ld", n, blocks, want);
        return 1;
    }
    unsigned char *seen = (unsigned char *)calloc((size_t)n * n, 1);
    for (long block = 0; block < blocks; block++) {
        int row = -1, col = -1;
        tile_of_block(block, n, &row, &col);
        if (row < 0 || row >= n || col < 0 || col >= n) {
            snprintf(why, capacity, "block %ld of %ld (%d tiles a side) is tile (%d, %d), outside "
                     "the %d x %d tiles", block, blocks, n, row, col, n, n);
        } else if (col > row) {
            snprintf(why, capacity, "block %ld of %ld (%d tiles a side) is tile (%d, %d), above "
                     "the diagonal", block, blocks, n, row, col);
        } else if (seen[(size_t)row * n + col]) {
            snprintf(why, capacity, "block %ld of %ld (%d tiles a side) is tile (%d, %d), which "
                     "an earlier block computes too", block, blocks, n, row, col);
        } else {
            seen[(size_t)row * n + col] = 1;
            continue;
        }
        free(seen);
        return 1;
    }
    free(seen); /* blocks == want and no tile twice: every tile once */
    return 0;
}

/* A block of a sample and the tile it computes. */
struct sampled_tile {
    long tile, block;
};

/* A large n, sampled: `sample` blocks (its first and last third and a third
 * drawn), each inside the triangle, no two of them the same tile. 0 when
 * right, else 1 with why. (One array of pairs sorted with std::sort: the
 * grader runs this check twice a grading, probe and referee, and qsort over
 * three arrays of a 3-million sample was half of its second.) */
static int check_sampled(int n, long sample, unsigned long long *state, char *why,
                         size_t capacity)
{
    const long want = (long)n * (n + 1) / 2, blocks = tiles_per_head(n);
    if (blocks != want) {
        snprintf(why, capacity, "tiles_per_head(%d) is %ld; the tiles on or below the diagonal "
                 "are %ld", n, blocks, want);
        return 1;
    }
    const long part = sample / 3;
    sampled_tile *order = (sampled_tile *)malloc(sample * sizeof(sampled_tile));
    for (long k = 0; k < sample; k++) {
        const long block = k < part ? k : k < 2 * part ? blocks - 2 * part + k
                                                       : host_draw(state, part, blocks - part - 1);
        int row = -1, col = -1;
        tile_of_block(block, n, &row, &col);
        if (row < 0 || row >= n || col < 0 || col > row) {
            snprintf(why, capacity, "block %ld of %ld (%d tiles a side) is tile (%d, %d), %s", block,
                     blocks, n, row, col, col > row ? "above the diagonal" : "outside the tiles");
            free(order);
            return 1;
        }
        order[k] = sampled_tile{(long)row * n + col, block};
    }
    /* the same tile twice means two blocks for one tile (a drawn block may
     * repeat one of the others: those are the same block, not a fault) */
    std::sort(order, order + sample,
              [](const sampled_tile &a, const sampled_tile &b) { return a.tile < b.tile; });
    for (long k = 1; k < sample; k++)
        if (order[k].tile == order[k - 1].tile && order[k].block != order[k - 1].block) {
            snprintf(why, capacity, "blocks %ld and %ld (%d tiles a side) are both tile (%ld, %ld)",
                     order[k - 1].block, order[k].block, n, order[k].tile / n, order[k].tile % n);
            free(order);
            return 1;
        }
    free(order);
    return 0;
}

int host_check_main(int, char **)
{
    char why[256] = "";
    int failed = 0;
    unsigned long long state = host_seed();
    /* Every block of every n up to 256 and of five larger ones; a sample
     * of the blocks of three more, up to the largest. (Every call's answer
     * goes through the probe's record, a few bytes each: the whole of every
     * n up to 8192 would be a gigabyte.) */
    for (int n = 1; n <= 256 && !failed; n++)
        failed = check_tiles(n, why, sizeof why);
    int full[] = {1000, 2047, 2048, 0, 0};
    for (int k = 3; k < 5; k++)
        full[k] = (int)host_draw(&state, 257, 4096);
    for (int k = 0; k < 5 && !failed; k++)
        failed = check_tiles(full[k], why, sizeof why);
    const int drawn_large = (int)host_draw(&state, 4097, 8192);
    const int sampled[] = {4096, drawn_large, 65535};
    const long samples[] = {1000000, 1000000, 3000000};
    for (int k = 0; k < 3 && !failed; k++)
        failed = check_sampled(sampled[k], samples[k], &state, why, sizeof why);
    if (failed)
        host_check(0, "tile_of_block", "%s", why);
    else
        host_check(1, "tile_of_block", "every tile on or below the diagonal exactly once, for 1 "
                   "to 256 tiles a side and 5 larger ones up to 4096 (%d, %d drawn); a million "
                   "blocks of 4096 and of %d (drawn) a side and 3 million of 65535, each inside "
                   "the triangle, no tile twice", full[3], full[4], drawn_large);
    return host_check_status();
}
