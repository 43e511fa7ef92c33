/* plots/figures/tile_grid.cu - the data of the figure `tile-grid` (chapter 1):
 * the grid of 128 x 128 tiles over one head's T x T scores at T = 1024, which
 * blocks have work, and the row-by-row numbering of the tiles on and below
 * the diagonal that chapters 5 and 8 launch.
 *
 * Drawn from the functions the kernels call: naive_tile_masked (the block
 * returns at once) and naive_score_masked (a score is never computed), in
 * chapters/02-naive/naive.cuh, and triangle_place_tile in common/problems/triangle.h.
 *
 *   build/figures/tile_grid OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/02-naive/naive.cuh"
#include "figure.h"

#define FIGURE_T 1024

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes tile-grid.dat, .vars.gp, .caption");
    const int tiles = FIGURE_T / NAIVE_TILE;
    FILE *data = figure_open(dir, "tile-grid.dat");

    /* Index 0, 1: the kept scores of the tiles whose blocks compute, as
     * polygons in score coordinates (x the key j, y the query i): whole
     * tiles, then the tiles that mask some of their scores, as the staircase
     * of the scores they keep. Index 2: the tiles whose blocks return. */
    int full = 0, partial = 0, returning = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int tile_row = 0; tile_row < tiles; tile_row++)
            for (int tile_col = 0; tile_col < tiles; tile_col++) {
                const int x0 = tile_col * NAIVE_TILE, y0 = tile_row * NAIVE_TILE;
                const int x1 = x0 + NAIVE_TILE, y1 = y0 + NAIVE_TILE;
                if (naive_tile_masked(tile_col, tile_row)) {
                    if (pass == 2) {
                        fprintf(data, "%d %d\n%d %d\n%d %d\n%d %d\n%d %d\n\n", x0, y0, x1, y0,
                                x1, y1, x0, y1, x0, y0);
                        returning++;
                    }
                    continue;
                }
                int kept[NAIVE_TILE], all = 1;
                for (int r = 0; r < NAIVE_TILE; r++) {
                    kept[r] = 0;
                    for (int c = 0; c < NAIVE_TILE; c++)
                        kept[r] += !naive_score_masked(y0 + r, x0 + c);
                    all &= kept[r] == NAIVE_TILE;
                }
                if (pass == 0 && all) {
                    fprintf(data, "%d %d\n%d %d\n%d %d\n%d %d\n%d %d\n\n", x0, y0, x1, y0, x1,
                            y1, x0, y1, x0, y0);
                    full++;
                } else if (pass == 1 && !all) {
                    /* each row r keeps the keys x0 .. x0 + kept[r] - 1 (a
                     * masked score never lies left of a kept one) */
                    fprintf(data, "%d %d\n", x0, y0);
                    for (int r = 0; r < NAIVE_TILE; r++)
                        fprintf(data, "%d %d\n%d %d\n", x0 + kept[r], y0 + r, x0 + kept[r],
                                y0 + r + 1);
                    fprintf(data, "%d %d\n%d %d\n\n", x0, y1, x0, y0);
                    partial++;
                }
            }
        fprintf(data, "\n");
    }

    /* Index 3: block x of a launch of the triangle only, at its tile's centre. */
    const int launched = tiles * (tiles + 1) / 2;
    for (int index = 0; index < launched; index++) {
        int tile_row, tile_col;
        triangle_place_tile(index, &tile_row, &tile_col);
        fprintf(data, "%g %g %d %d\n", (tile_col + 0.5) * NAIVE_TILE,
                (tile_row + 0.5) * NAIVE_TILE, index, tile_row);
    }
    figure_close(data, "tile-grid.dat");

    FILE *vars = figure_open(dir, "tile-grid.vars.gp");
    fprintf(vars, "T = %d\ntile = %d\ntiles = %d\nfull = %d\npartial = %d\nreturning = %d\n"
                  "launched = %d\n",
            FIGURE_T, NAIVE_TILE, tiles, full, partial, returning, launched);
    figure_close(vars, "tile-grid.vars.gp");
    figure_write_line(dir, "tile-grid.caption",
                      "One head's %d x %d scores at T = %d, cut into %d x %d tiles of %d x %d, "
                      "one block each: %d of the %d blocks compute (%d whole tiles, %d on the "
                      "diagonal keeping the scores j <= i), %d return at once; right, the %d "
                      "tiles numbered row by row, as chapters 5 and 8 launch them",
                      FIGURE_T, FIGURE_T, FIGURE_T, tiles, tiles, NAIVE_TILE, NAIVE_TILE,
                      full + partial, tiles * tiles, full, partial, returning, launched);
    return 0;
}
