/* plots/figures/weight_stage.cu - the data of the figure `weight-stage`
 * (chapter 11): where each value of a stage of the split weights lives in
 * shared memory, the order the tensor cores read it in (core matrices), and
 * which of them one wgmma reads.
 *
 * Drawn from the function the split kernel writes with and the descriptor
 * describes (chapters/11-copy-engine/gemm.cuh): gemm_weight_index.
 *
 *   build/figures/bin/weight_stage OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/11-copy-engine/gemm.cuh"
#include "figure.h"

enum { SHOWN = 32 }; /* the first columns drawn; the other 96 repeat the pattern */

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes weight-stage.dat, .vars.gp, .caption");
    FILE *data = figure_open(dir, "weight-stage.dat");
    /* index 0, "n k core place": every value of the first SHOWN columns, its
     * core matrix (offset / 32) and its float within it; index 1, "n k core":
     * the centre of each core matrix, for its label */
    for (int n = 0; n < SHOWN; n++)
        for (int k = 0; k < GEMM_DEPTH; k++) {
            const size_t at = gemm_weight_index(n, k, 0, 1);
            fprintf(data, "%d %d %zu %zu\n", n, k, at / 32, at % 32);
        }
    fprintf(data, "\n\n");
    for (int n = 0; n < SHOWN; n += 8)
        for (int k = 0; k < GEMM_DEPTH; k += 4)
            fprintf(data, "%g %g %zu\n", n + 3.5, k + 1.5, gemm_weight_index(n, k, 0, 1) / 32);
    figure_close(data, "weight-stage.dat");

    /* A stage is a permutation of its GEMM_COLS x GEMM_DEPTH values: each gets a
     * place of its own, inside the stage, and each core matrix is 8 columns
     * by 4 values of k. The figure says so only if both hold. */
    static int held[GEMM_B_FLOATS];
    int places = 0, core_matrices_whole = 1;
    for (int n = 0; n < GEMM_COLS; n++)
        for (int k = 0; k < GEMM_DEPTH; k++) {
            const size_t at = gemm_weight_index(n, k, 0, 1);
            if (at >= GEMM_B_FLOATS) {
                fprintf(stderr, "weight_stage: (%d, %d) lies outside its stage\n", n, k);
                return 1;
            }
            places += held[at]++ == 0;
            core_matrices_whole &= at / 32 == gemm_weight_index(n / 8 * 8, k / 4 * 4, 0, 1) / 32;
        }
    FILE *vars = figure_open(dir, "weight-stage.vars.gp");
    fprintf(vars, "shown = %d\ncols = %d\ndepth = %d\nplaces = %d\nwhole = %d\n", SHOWN, GEMM_COLS,
            GEMM_DEPTH, places, core_matrices_whole);
    figure_close(vars, "weight-stage.vars.gp");
    figure_write_line(dir, "weight-stage.caption",
                      "One part of a stage of the split weights as the GEMM holds it in shared "
                      "memory (gemm_weight_index): the first %d of its %d columns n against its %d "
                      "values of k. Each block of 8 columns by 4 values of k is a core matrix, "
                      "128 contiguous bytes, numbered in memory order; the frame is what the "
                      "wgmma of step 1 (k = 8 to 15) reads: two core matrices along k, 128 bytes "
                      "apart, then the next 8 columns, 1024 bytes on",
                      SHOWN, GEMM_COLS, GEMM_DEPTH);
    return 0;
}
