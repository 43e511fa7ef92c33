/* solutions/host/04-vectorized-stores.cu - the host check of exercise 4.2:
 * the runs of run_column cover a row of the tile once, and each warp-wide
 * store of the epilogue writes whole sectors, counted from run_column. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

int main(void)
{
    char why[200] = "";
    int owner[TILE];
    int failed = 0;
    for (int c = 0; c < TILE; c++)
        owner[c] = -1;
    for (int x = 0; x < THREADS_ACROSS && !failed; x++)
        for (int run = 0; run < RUNS && !failed; run++) {
            const int first = run_column(x, run);
            if (first < 0 || first + 4 > TILE || first % 4 != 0) {
                snprintf(why, sizeof why, "run %d of thread column %d starts at column %d: not a "
                         "16-byte aligned run of 4 inside the tile", run, x, first);
                failed = 1;
            }
            for (int c = first; c < first + 4 && !failed; c++) {
                if (owner[c] >= 0) {
                    snprintf(why, sizeof why, "column %d belongs to thread column %d and to "
                             "thread column %d (run %d)", c, owner[c], x, run);
                    failed = 1;
                }
                owner[c] = x;
            }
        }
    if (failed)
        host_check(0, "run_column covers the tile", "%s", why);
    else
        host_check(1, "run_column covers the tile", "every column of a row once");

    /* A warp: threads 32w .. 32w + 31 of the block, x fastest: 4 rows of 8.
     * One store instruction: one row r and one run, a float4 per thread. */
    int worst = 0, worst_run = 0;
    const long T = 1024; /* any T: rows are T floats apart */
    for (int warp = 0; warp < THREADS_ACROSS * THREADS_DOWN / 32 && !failed; warp++)
        for (int r = 0; r < ROWS; r++)
            for (int run = 0; run < RUNS; run++) {
                long offsets[32];
                for (int lane = 0; lane < 32; lane++) {
                    const int thread = 32 * warp + lane;
                    const int x = thread % THREADS_ACROSS, y = thread / THREADS_ACROSS;
                    offsets[lane] = ((y * ROWS + r) * T + run_column(x, run)) * 4;
                }
                const int sectors = host_sectors(offsets, 32, 16);
                if (sectors > worst)
                    worst = sectors, worst_run = run;
            }
    if (!failed)
        host_check(worst == 16, "whole sectors",
                   worst == 16 ? "every warp store writes 32 float4s in 16 sectors"
                               : "a warp store of run %d touches %d sectors for 512 bytes; 16 "
                                 "would do",
                   worst_run, worst);
    return host_check_status();
}
