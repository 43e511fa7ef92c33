/* plots/figures/outer_product.cu - the data of the figure `outer-product`
 * (chapter 3): what one thread loads at one step k of its loop, and the
 * 8 x 8 running sums those 16 values feed.
 *
 * Drawn from the functions the kernel calls to place a thread's patch:
 * registers_first_query and registers_first_key
 * (chapters/03-registers/registers.cuh).
 *
 *   build/figures/bin/outer_product OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/03-registers/registers.cuh"
#include "figure.h"

/* A thread of a tile below the diagonal, at one step of its loop over k. */
#define FIGURE_TILE_ROW 1
#define FIGURE_TILE_COL 0
#define FIGURE_TX 5
#define FIGURE_TY 2
#define FIGURE_K 20
#define FIGURE_HS 64

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes outer-product.dat, .vars.gp, .caption");
    const int first_query = registers_first_query(FIGURE_TY, FIGURE_TILE_ROW);
    const int first_key = registers_first_key(FIGURE_TX, FIGURE_TILE_COL);
    /* in the tile's own coordinates */
    const int row = first_query - FIGURE_TILE_ROW * REGISTERS_TILE;
    const int col = first_key - FIGURE_TILE_COL * REGISTERS_TILE;

    FILE *data = figure_open(dir, "outer-product.dat");
    /* index 0: the thread's query rows (x k, y i); 1: its key rows (x j, y k);
     * 2: its sums (x j, y i); each "x y" the centre of one value */
    for (int r = 0; r < REGISTERS_THREAD_TILE; r++)
        for (int k = 0; k < FIGURE_HS; k++)
            fprintf(data, "%d %d %d\n", k, first_query + r, k == FIGURE_K);
    fprintf(data, "\n\n");
    for (int c = 0; c < REGISTERS_THREAD_TILE; c++)
        for (int k = 0; k < FIGURE_HS; k++)
            fprintf(data, "%d %d %d\n", first_key + c, k, k == FIGURE_K);
    fprintf(data, "\n\n");
    for (int r = 0; r < REGISTERS_THREAD_TILE; r++)
        for (int c = 0; c < REGISTERS_THREAD_TILE; c++)
            fprintf(data, "%d %d 1\n", first_key + c, first_query + r);
    figure_close(data, "outer-product.dat");

    FILE *vars = figure_open(dir, "outer-product.vars.gp");
    fprintf(vars, "tile = %d\npatch = %d\nHS = %d\nstep = %d\ntx = %d\nty = %d\n"
                  "tile_row = %d\ntile_col = %d\nrow = %d\ncol = %d\nfirst_query = %d\n"
                  "first_key = %d\n",
            REGISTERS_TILE, REGISTERS_THREAD_TILE, FIGURE_HS, FIGURE_K, FIGURE_TX, FIGURE_TY,
            FIGURE_TILE_ROW, FIGURE_TILE_COL, row, col, first_query, first_key);
    figure_close(vars, "outer-product.vars.gp");
    figure_write_line(dir, "outer-product.caption",
                      "Thread (%d, %d) of a block: at each step k it loads the k-th value of its "
                      "%d query rows and of its %d keys, %d loads, and adds their %d products "
                      "into the %d x %d sums it keeps in registers",
                      FIGURE_TX, FIGURE_TY, REGISTERS_THREAD_TILE, REGISTERS_THREAD_TILE,
                      2 * REGISTERS_THREAD_TILE, REGISTERS_THREAD_TILE * REGISTERS_THREAD_TILE,
                      REGISTERS_THREAD_TILE, REGISTERS_THREAD_TILE);
    return 0;
}
