/* solutions/host/06-msa-gate.cu - the host check of exercise 6.3: from
 * projection_stride, the wavefronts of phase 3's reads of k and v, and
 * whether the column still fits in a block's shared memory. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define projection_stride PROBED(projection_stride)

int host_check_main(int, char **)
{
    const int widths[] = {32, 48, 64, 96, 128};
    int worst = 0, worst_D = 0;
    char why[200] = "";
    int fits = 1;
    for (int w = 0; w < 5; w++) {
        const int D = widths[w], stride = projection_stride(D);
        if (stride < D) {
            host_check(0, "projection_stride", "%d at D = %d: rows would overlap", stride, D);
            return host_check_status();
        }
        /* Scores: lane l reads word c of key row l (and l + 32): 32 rows at once.
         * Values: lanes read words c = l of one row: neighbours. */
        for (int c = 0; c < 8; c++) {
            long keys[32], values[32];
            for (int lane = 0; lane < 32; lane++) {
                keys[lane] = (long)lane * stride + c;
                values[lane] = (long)c * stride + lane;
            }
            const int wavefronts = host_wavefronts(keys, 32) > host_wavefronts(values, 32)
                                       ? host_wavefronts(keys, 32)
                                       : host_wavefronts(values, 32);
            if (wavefronts > worst)
                worst = wavefronts, worst_D = D;
        }
        const msa_size largest = {1, MAX_S, 1, D, 1};
        if (msa_layer_shared_bytes(largest) > 227 * 1024) {
            fits = 0;
            snprintf(why, sizeof why, "at S = %d, D = %d the column takes %zu bytes, more than "
                     "the 227 KB a block may have", MAX_S, D, msa_layer_shared_bytes(largest));
        }
    }
    if (worst == 1)
        host_check(1, "bank conflicts in phase 3", "none at D = 32 to 128");
    else
        host_check(0, "bank conflicts in phase 3", "at D = %d, the lanes' reads of key rows %d "
                   "floats apart take %d wavefronts (%d-way bank conflict); 1 would do", worst_D,
                   projection_stride(worst_D), worst, worst);
    const msa_size widest = {1, MAX_S, 1, MAX_D, 1};
    if (fits)
        host_check(1, "shared memory", "the largest column fits (%zu bytes at D = %d)",
                   msa_layer_shared_bytes(widest), MAX_D);
    else
        host_check(0, "shared memory", "%s", why);
    return host_check_status();
}
