/* solutions/host/02-triangle-grid.cu - the host check of exercise 2.1:
 * tiles_per_head and tile_of_block against an enumeration of the tiles. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

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

int main(void)
{
    char why[256] = "";
    int failed = 0;
    for (int n = 1; n <= 600 && !failed; n++)
        failed = check_tiles(n, why, sizeof why);
    const int large[] = {1000, 2047, 2048, 4095, 4096};
    for (int k = 0; k < 5 && !failed; k++)
        failed = check_tiles(large[k], why, sizeof why);
    if (failed)
        host_check(0, "tile_of_block", "%s", why);
    else
        host_check(1, "tile_of_block", "every tile on or below the diagonal exactly once, for 1 "
                   "to 600 and up to 4096 tiles a side");
    return host_check_status();
}
