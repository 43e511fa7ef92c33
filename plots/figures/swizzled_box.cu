/* plots/figures/swizzled_box.cu - the data of the figure `swizzled-box`
 * (chapter 11): where the copy engine lays a box of X down in shared memory
 * with the 128-byte swizzle, and which banks a warp's fragment loads hit.
 *
 * Drawn from the function the GEMM's fragment loads address the box with
 * (common/device/tensor_map.h, called in chapters/11-copy-engine/gemm.cuh):
 * tensor_map_box_index.
 *
 *   build/figures/bin/swizzled_box OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/11-copy-engine/gemm.cuh"
#include "figure.h"

enum { SHOWN = 16, PIECES = GEMM_DEPTH / 4 }; /* rows drawn; 16-byte pieces a row */

/* The most lanes of a warp that one fragment load (step j, value i of
 * gemm_multiply's v[4]) sends to one bank; `banks` gets how many it uses. */
static int lanes_per_bank(int warp, int j, int i, int *banks)
{
    int lanes[32] = {0}, most = 0;
    *banks = 0;
    for (int lane = 0; lane < 32; lane++) {
        const int g = lane / 4, t = lane % 4;
        const int row = warp * 16 + g + 8 * (i % 2), k = 8 * j + t + 4 * (i / 2);
        const int bank = tensor_map_box_index(row, k) % 32;
        *banks += lanes[bank]++ == 0;
        most = lanes[bank] > most ? lanes[bank] : most;
    }
    return most;
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes swizzled-box.dat, .vars.gp, .caption");
    FILE *data = figure_open(dir, "swizzled-box.dat");
    /* index 0, "row place piece": each 16-byte piece of the first SHOWN rows,
     * where it lies in its row and which 4 values of k it holds; index 1,
     * "row place": the pieces the first fragment load of warp 0 reads */
    for (int row = 0; row < SHOWN; row++)
        for (int piece = 0; piece < PIECES; piece++)
            fprintf(data, "%d %d %d\n", row, tensor_map_box_index(row, 4 * piece) % GEMM_DEPTH / 4,
                    piece);
    fprintf(data, "\n\n");
    for (int lane = 0; lane < 32; lane += 4) /* t = 0: the pieces' first words */
        fprintf(data, "%d %d\n", lane / 4, tensor_map_box_index(lane / 4, 0) % GEMM_DEPTH / 4);
    figure_close(data, "swizzled-box.dat");

    /* Every load of gemm_multiply, every warp: the worst bank conflict. And the
     * box must be a permutation of its GEMM_ROWS x GEMM_DEPTH floats. */
    int worst = 0, first_banks = 0;
    const int first = lanes_per_bank(0, 0, 0, &first_banks);
    for (int warp = 0; warp < GEMM_THREADS / 32; warp++)
        for (int j = 0; j < GEMM_DEPTH / 8; j++)
            for (int i = 0; i < 4; i++) {
                int banks;
                const int most = lanes_per_bank(warp, j, i, &banks);
                worst = most > worst ? most : worst;
            }
    static int held[GEMM_A_FLOATS];
    int places = 0;
    for (int row = 0; row < GEMM_ROWS; row++)
        for (int k = 0; k < GEMM_DEPTH; k++) {
            const int at = tensor_map_box_index(row, k);
            if (at < 0 || at >= GEMM_A_FLOATS) {
                fprintf(stderr, "swizzled_box: (%d, %d) lies outside the box\n", row, k);
                return 1;
            }
            places += held[at]++ == 0;
        }
    FILE *vars = figure_open(dir, "swizzled-box.vars.gp");
    fprintf(vars, "shown = %d\npieces = %d\nplaces = %d\nfloats = %d\nbanks = %d\nways = %d\n"
                  "worst = %d\n",
            SHOWN, PIECES, places, GEMM_A_FLOATS, first_banks, first, worst);
    figure_close(vars, "swizzled-box.vars.gp");
    figure_write_line(dir, "swizzled-box.caption",
                      "A box of X as the copy engine lays it down in shared memory with the "
                      "128-byte swizzle (tensor_map_box_index): the first %d of its %d rows, "
                      "each %d pieces of 16 bytes; the number in a piece says which 4 values of k "
                      "it holds (piece c: k = 4c to 4c + 3). Framed: what the first fragment "
                      "load of a warp reads, k = 0 to 3 of rows 0 to 7: %d banks, at most %d "
                      "lane%s a bank (over all the GEMM's fragment loads, at most %d)",
                      SHOWN, GEMM_ROWS, PIECES, first_banks, first, first == 1 ? "" : "s", worst);
    return 0;
}
