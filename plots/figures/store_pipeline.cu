/* plots/figures/store_pipeline.cu - the data of the figure `store-pipeline`
 * (chapter 11): one block of tf32x3+tma-store at T = 1024, HS = 64, step by
 * step of its walk: for each warp and each tile of keys, whether its scores
 * go out through a stage and the copy engine (and which of the warp's
 * stages), by the lanes (the diagonal) or not at all; and for each tile of
 * keys, its slot in the ring and the step at which thread 0 asks for it.
 *
 * Drawn from the kernel's own functions (chapters/11-copy-engine/store.cuh):
 * path_of_tile, stage_of, refill_tile and key_ring's SLOTS, in the order
 * tma_store_scores and walk_step call them. Besides the data the program
 * checks the paths against the causal mask, score by score: a kept score
 * on no path is lost, a masked score in a staged tile would be written.
 * The script refuses to draw a walk that loses or writes any.
 *
 *   build/figures/bin/store_pipeline OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/11-copy-engine/store.cuh"
#include "figure.h"

enum { FIGURE_HS = 64, FIGURE_ROW = 2 }; /* the block of queries 256 to 383 */

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes store-pipeline.dat, .vars.gp, .caption");
    constexpr int KEYS = wgmma_key_tile<FIGURE_HS>::KEYS, SLOTS = key_ring<FIGURE_HS, 3>::SLOTS;
    const int first = FIGURE_ROW * WGMMA_QUERIES, tiles = (first + WGMMA_QUERIES) / KEYS;
    const int warps = WGMMA_THREADS / 32;
    FILE *data = figure_open(dir, "store-pipeline.dat");

    /* Index 0: a cell per warp and tile: x = tile, y = warp, path, stage. */
    int staged = 0, by_lanes = 0, none = 0, lost = 0, masked_written = 0;
    for (int warp = 0; warp < warps; warp++) {
        const int top = first + warp * STAGE_ROWS;
        int sent = 0;
        for (int c = 0; c < tiles; c++) {
            const score_path path = path_of_tile(c, KEYS, top);
            int stage = -1;
            if (path == SCORES_STAGED)
                stage = stage_of(sent++);
            staged += path == SCORES_STAGED;
            by_lanes += path == SCORES_BY_LANES;
            none += path == SCORES_NONE;
            /* the lanes write exactly the kept scores; a stage writes all */
            for (int r = 0; r < STAGE_ROWS; r++)
                for (int k = 0; k < KEYS; k++) {
                    const int kept = c * KEYS + k <= top + r;
                    lost += kept && path == SCORES_NONE;
                    masked_written += !kept && path == SCORES_STAGED;
                }
            fprintf(data, "%d %d %d %d\n", c, warp, (int)path, stage);
        }
    }
    fprintf(data, "\n\n");
    /* Index 1: a column per tile of keys: its slot and the step at which
     * thread 0 asks for it (-1: before the walk). */
    int asked[64];
    for (int c = 0; c < tiles; c++)
        asked[c] = c < SLOTS ? -1 : -2;
    for (int c = 1; c < tiles; c++)
        if (refill_tile<FIGURE_HS, 3>(c) < tiles)
            asked[refill_tile<FIGURE_HS, 3>(c)] = c;
    int unasked = 0;
    for (int c = 0; c < tiles; c++) {
        unasked += asked[c] == -2 || asked[c] >= c; /* asked after the step that needs it */
        fprintf(data, "%d %d %d\n", c, c % SLOTS, asked[c]);
    }
    figure_close(data, "store-pipeline.dat");

    FILE *vars = figure_open(dir, "store-pipeline.vars.gp");
    fprintf(vars,
            "tiles = %d\nwarps = %d\nkeys = %d\nrows = %d\nfirst = %d\nslots = %d\nstages = %d\n"
            "staged = %d\nby_lanes = %d\nnone = %d\nlost = %d\nmasked_written = %d\n"
            "unasked = %d\n",
            tiles, warps, KEYS, STAGE_ROWS, first, SLOTS, STAGES, staged, by_lanes, none, lost,
            masked_written, unasked);
    figure_close(vars, "store-pipeline.vars.gp");
    figure_write_line(
        dir, "store-pipeline.caption",
        "One block of tf32x3+tma-store at T = %d, HS = %d (queries %d to %d), a row per warp "
        "(%d query rows) and a column per tile of %d keys, which is also the step of the walk "
        "that sends it: %d tiles go out through one of the warp's %d stages and the copy "
        "engine's box stores (path_of_tile, stage_of), %d on the diagonal are written by the "
        "lanes, score by score, and %d above it are not written. Above the grid: each tile's "
        "slot in the ring of %d and when thread 0 asks the engine for it: at the start of "
        "the walk, or at the step of the walk that multiplies the tile before (refill_tile)",
        1024, FIGURE_HS, first, first + WGMMA_QUERIES - 1, STAGE_ROWS, KEYS, staged, STAGES,
        by_lanes, none, SLOTS);
    return 0;
}
