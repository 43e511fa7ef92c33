/* plots/figures/thread_patches.cu - the data of the figure `thread-patches`
 * (chapter 2): the 16 x 16 threads of a block on the diagonal, the 8 x 8
 * patch of scores each owns, and how many of its scores each keeps.
 *
 * Drawn from the functions the naive kernel calls (chapters/02-naive/naive.cuh):
 * naive_first_query and naive_first_key place a thread's patch,
 * naive_score_masked says which of its scores it skips.
 *
 *   build/figures/bin/thread_patches OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/02-naive/naive.cuh"
#include "figure.h"

#define FIGURE_TILE 3 /* the block of tile (3, 3): any tile on the diagonal looks the same */

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes thread-patches.dat, .vars.gp, .caption");
    const int threads = NAIVE_TILE / NAIVE_THREAD_TILE, corner = FIGURE_TILE * NAIVE_TILE;
    FILE *data = figure_open(dir, "thread-patches.dat");

    /* Index 0: patches that keep all their scores; 1: the kept scores of the
     * patches that keep some, as a staircase; 2: patches that keep none.
     * Coordinates in the tile: x the key j - tile corner, y the query i. */
    int counts[3] = {0, 0, 0}, partial_scores = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int ty = 0; ty < threads; ty++)
            for (int tx = 0; tx < threads; tx++) {
                const int first_query = naive_first_query(ty, FIGURE_TILE);
                const int first_key = naive_first_key(tx, FIGURE_TILE);
                int kept[NAIVE_THREAD_TILE], total = 0;
                for (int r = 0; r < NAIVE_THREAD_TILE; r++) {
                    kept[r] = 0;
                    for (int c = 0; c < NAIVE_THREAD_TILE; c++)
                        kept[r] += !naive_score_masked(first_query + r, first_key + c);
                    total += kept[r];
                }
                const int kind = total == NAIVE_THREAD_TILE * NAIVE_THREAD_TILE ? 0
                                 : total > 0                                    ? 1
                                                                                : 2;
                if (kind != pass)
                    continue;
                counts[kind]++;
                const int x0 = first_key - corner, y0 = first_query - corner;
                const int x1 = x0 + NAIVE_THREAD_TILE, y1 = y0 + NAIVE_THREAD_TILE;
                if (kind == 1) {
                    partial_scores = total;
                    fprintf(data, "%d %d\n", x0, y0);
                    for (int r = 0; r < NAIVE_THREAD_TILE; r++)
                        fprintf(data, "%d %d\n%d %d\n", x0 + kept[r], y0 + r, x0 + kept[r],
                                y0 + r + 1);
                    fprintf(data, "%d %d\n%d %d\n\n", x0, y1, x0, y0);
                } else {
                    fprintf(data, "%d %d\n%d %d\n%d %d\n%d %d\n%d %d\n\n", x0, y0, x1, y0, x1,
                            y1, x0, y1, x0, y0);
                }
            }
        fprintf(data, "\n");
    }
    figure_close(data, "thread-patches.dat");

    FILE *vars = figure_open(dir, "thread-patches.vars.gp");
    fprintf(vars, "tile = %d\npatch = %d\nthreads = %d\ntile_index = %d\nwhole = %d\n"
                  "partial = %d\npartial_scores = %d\nnone = %d\n",
            NAIVE_TILE, NAIVE_THREAD_TILE, threads, FIGURE_TILE, counts[0], counts[1],
            partial_scores, counts[2]);
    figure_close(vars, "thread-patches.vars.gp");
    figure_write_line(dir, "thread-patches.caption",
                      "The %d x %d threads of a block on the diagonal, each with its %d x %d "
                      "patch of the tile: %d patches keep every score, %d on the diagonal keep "
                      "%d of their %d, and %d keep none, so their threads skip all of theirs",
                      threads, threads, NAIVE_THREAD_TILE, NAIVE_THREAD_TILE, counts[0],
                      counts[1], partial_scores, NAIVE_THREAD_TILE * NAIVE_THREAD_TILE,
                      counts[2]);
    return 0;
}
