/* plots/figures/mma_fragments.cu - the data of the figure `mma-fragments`
 * (chapter 8): which lane of the warp holds which element of the tiles A
 * (16 x 8), B (8 x 8) and C (16 x 8) of mma.sync.m16n8k8 with TF32 inputs.
 *
 * Drawn from the functions chapter 8's fragment loads and stores call
 * (common/device/tensor_core.h): mma_a_row, mma_a_col, mma_b_row, mma_b_col,
 * mma_c_row, mma_c_col.
 *
 *   build/figures/bin/mma_fragments OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/08-tensor/tensor.cuh"
#include "figure.h"

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes mma-fragments.dat, .vars.gp, .caption");
    FILE *data = figure_open(dir, "mma-fragments.dat");
    /* "row column lane element" for every element of every lane's fragments:
     * index 0 A, 1 B, 2 C */
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++)
            fprintf(data, "%d %d %d %d\n", mma_a_row(lane, i), mma_a_col(lane, i), lane, i);
    fprintf(data, "\n\n");
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 2; i++)
            fprintf(data, "%d %d %d %d\n", mma_b_row(lane, i), mma_b_col(lane, i), lane, i);
    fprintf(data, "\n\n");
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++)
            fprintf(data, "%d %d %d %d\n", mma_c_row(lane, i), mma_c_col(lane, i), lane, i);
    figure_close(data, "mma-fragments.dat");

    /* How many elements of each tile some lane holds: all of them, each
     * once, is what the instruction needs. */
    int held_a[16][8] = {{0}}, held_b[8][8] = {{0}}, held_c[16][8] = {{0}};
    int cells_a = 0, cells_b = 0, cells_c = 0;
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++) {
            cells_a += held_a[mma_a_row(lane, i)][mma_a_col(lane, i)]++ == 0;
            cells_c += held_c[mma_c_row(lane, i)][mma_c_col(lane, i)]++ == 0;
            if (i < 2)
                cells_b += held_b[mma_b_row(lane, i)][mma_b_col(lane, i)]++ == 0;
        }
    FILE *vars = figure_open(dir, "mma-fragments.vars.gp");
    fprintf(vars, "m = 16\nn = 8\nk = 8\ncells_a = %d\ncells_b = %d\ncells_c = %d\n", cells_a,
            cells_b, cells_c);
    figure_close(vars, "mma-fragments.vars.gp");
    figure_write_line(dir, "mma-fragments.caption",
                      "The fragments of mma.sync m16n8k8 (TF32): each cell of A, B and C names "
                      "the lane that holds it and, below, the index of the element in that "
                      "lane's fragment (a0 for a[0], b1 for b[1], c3 for c[3]); the colour is the lane's place t = "
                      "lane mod 4 in its group g = lane / 4");
    return 0;
}
