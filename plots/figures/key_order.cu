/* plots/figures/key_order.cu - the data of the figure `key-order` (chapter
 * 11): which feature of a key row each value of a lane's B fragments stands
 * for in S = Q K^T at d = 32, and where those features lie in the row, so
 * that a lane's values are one stretch of the row.
 *
 * Drawn from the functions the attention loads and multiplies by
 * (chapters/13-layer/layer.cuh): tf32_panel and score_feature.
 *
 *   build/figures/bin/key_order OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/13-layer/layer.cuh"
#include "figure.h"

enum { HD = 32, LANES = 4, BLOCKS = HD / 8 };

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes key-order.dat, .vars.gp, .caption");
    FILE *data = figure_open(dir, "key-order.dat");
    /* index 0, "k kk feature t": the fragments, feature block kk by k (k = t
     * + 4j), each value's feature and the lane t that holds it; index 1,
     * "feature t": the key row in memory, each feature and its lane */
    int lane_of[HD];
    for (int kk = 0; kk < BLOCKS; kk++)
        for (int j = 0; j < 2; j++)
            for (int t = 0; t < LANES; t++) {
                const int f = score_feature(HD, kk, t, j);
                fprintf(data, "%d %d %d %d\n", t + 4 * j, kk, f, t);
                lane_of[f] = t;
            }
    fprintf(data, "\n\n");
    for (int f = 0; f < HD; f++)
        fprintf(data, "%d %d\n", f, lane_of[f]);
    figure_close(data, "key-order.dat");

    /* How many 16-byte loads lane 0 needs: the aligned groups of 4 features
     * its values fall in. Consecutive features make it HD / 16. */
    int groups = 0, seen[HD / 4] = {0};
    for (int f = 0; f < HD; f++)
        if (lane_of[f] == 0 && !seen[f / 4]++)
            groups++;
    FILE *vars = figure_open(dir, "key-order.vars.gp");
    fprintf(vars, "hd = %d\nblocks = %d\npanel = %d\nloads = %d\n", HD, BLOCKS, tf32_panel(HD),
            groups);
    figure_close(vars, "key-order.vars.gp");
    figure_write_line(dir, "key-order.caption",
                      "The feature each value of a B fragment stands for in the scores (Q times K "
                      "transposed) at d = %d "
                      "(score_feature), by feature block kk and k, coloured by the lane t that "
                      "holds it, and the key row in memory below: lane t's %d values are "
                      "features %dt to %dt + %d, %d loads of 16 bytes",
                      HD, 2 * BLOCKS, 2 * BLOCKS, 2 * BLOCKS, 2 * BLOCKS - 1, groups);
    return 0;
}
