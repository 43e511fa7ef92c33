/* solutions/host/05-shared-stage-tiles.cu - the host check of exercise 5.1:
 * from copy_slot and PAD, whether every quad is copied once, how many
 * sectors each warp's loads touch and how many wavefronts each of its
 * stores into the transposed tile takes. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define copy_slot PROBED(copy_slot)

/* PAD is the student's choice too: the probe answers its value (the
 * first call of host_check_main), and the check reads it from here. */
static int submitted_pad(void) { return PAD; }
static int pad_answered;
#undef PAD
#define PAD pad_answered

int host_check_main(int, char **)
{
    pad_answered = PROBED(submitted_pad)();
    char why[200] = "";
    int copies[TILE][QUADS] = {{0}};
    int failed = 0;
    for (int pass = 0; pass < 2 && !failed; pass++)
        for (int thread = 0; thread < THREADS * THREADS && !failed; thread++) {
            int row = -1, quad = -1;
            copy_slot(thread, pass, &row, &quad);
            if (row < 0 || row >= TILE || quad < 0 || quad >= QUADS) {
                snprintf(why, sizeof why, "thread %d, pass %d: quad (%d, %d) is outside the "
                         "128 x 4 quads", thread, pass, row, quad);
                failed = 1;
            } else if (copies[row][quad]++) {
                snprintf(why, sizeof why, "thread %d, pass %d copies quad (%d, %d) again", thread,
                         pass, row, quad);
                failed = 1;
            }
        }
    if (failed) {
        host_check(0, "copy_slot copies every quad once", "%s", why);
        return host_check_status();
    }
    host_check(1, "copy_slot copies every quad once", "512 quads, 2 passes of 256 threads");

    /* Per warp and pass: the sectors its 32 float4 loads touch (rows are
     * whole sectors apart in the input: 16-float steps of rows 3C apart),
     * and the wavefronts of each of the 4 stores of a quad's components. */
    int worst_sectors = 0, worst_wavefronts = 0, worst_warp = 0, worst_pass = 0;
    const long row_floats = 3 * 64; /* a row stride whose rows start in other sectors */
    for (int pass = 0; pass < 2; pass++)
        for (int warp = 0; warp < THREADS * THREADS / 32; warp++) {
            long loads[32], stores[4][32];
            for (int lane = 0; lane < 32; lane++) {
                int row, quad;
                copy_slot(32 * warp + lane, pass, &row, &quad);
                loads[lane] = (row * row_floats + 4 * quad) * 4;
                for (int i = 0; i < 4; i++)
                    stores[i][lane] = (long)(4 * quad + i) * (TILE + PAD) + row;
            }
            const int sectors = host_sectors(loads, 32, 16);
            if (sectors > worst_sectors)
                worst_sectors = sectors;
            for (int i = 0; i < 4; i++) {
                const int wavefronts = host_wavefronts(stores[i], 32);
                if (wavefronts > worst_wavefronts)
                    worst_wavefronts = wavefronts, worst_warp = warp, worst_pass = pass;
            }
        }
    if (worst_sectors == 16)
        host_check(1, "whole sectors read", "each warp's 32 quads in 16 sectors");
    else
        host_check(0, "whole sectors read", "a warp's 32 quads touch %d sectors; 16 would do",
                   worst_sectors);
    if (worst_wavefronts == 1)
        host_check(1, "bank conflicts of the stores", "none: one wavefront per store (PAD %d)",
                   PAD);
    else
        host_check(0, "bank conflicts of the stores", "warp %d, pass %d: a store takes %d "
                   "wavefronts (%d-way bank conflict) with PAD %d; 1 would do", worst_warp,
                   worst_pass, worst_wavefronts, worst_wavefronts, PAD);
    return host_check_status();
}
