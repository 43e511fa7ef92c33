/* solutions/host/05-shared-inner-loop.cu - the host check of exercise 5.2:
 * owned_query and owned_key cover the tile once, and the wavefronts of
 * every warp's reads of the tiles, counted from them. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define owned_query PROBED(owned_query)
#define owned_key PROBED(owned_key)

/* Whether owned(t, i) for t < 16, i < 8 is each of 0..127 once; why if not. */
template <class Owned>
static int covers(Owned owned, const char *name, char *why, size_t capacity)
{
    int owner[TILE];
    for (int row = 0; row < TILE; row++)
        owner[row] = -1;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < THREAD_TILE; i++) {
            const int row = owned(t, i);
            if (row < 0 || row >= TILE) {
                snprintf(why, capacity, "%s(%d, %d) is %d, outside the tile", name, t, i, row);
                return 0;
            }
            if (owner[row] >= 0) {
                snprintf(why, capacity, "%s(%d, %d) and an earlier one are both %d: some scores "
                         "would be computed twice and others never", name, t, i, row);
                return 0;
            }
            owner[row] = t;
        }
    return 1;
}

int host_check_main(int, char **)
{
    char why[200] = "";
    const int queries_covered = covers(owned_query, "owned_query", why, sizeof why);
    const int keys_covered = queries_covered && covers(owned_key, "owned_key", why, sizeof why);
    if (!queries_covered || !keys_covered) {
        host_check(0, "ownership covers the tile", "%s", why);
        return host_check_status();
    }
    host_check(1, "ownership covers the tile", "each of the 128 x 128 scores once");

    /* A warp: threads 32w .. 32w + 31, x fastest: y = 2w and 2w + 1. One
     * read instruction: one k and one r (queries) or one c (keys). */
    int worst = 0;
    const char *worst_what = "";
    int worst_index = 0;
    for (int warp = 0; warp < THREADS * THREADS / 32; warp++)
        for (int i = 0; i < THREAD_TILE; i++)
            for (int tile = 0; tile < 2; tile++) {
                long words[32];
                for (int lane = 0; lane < 32; lane++) {
                    const int thread = 32 * warp + lane, x = thread % THREADS, y = thread / THREADS;
                    const int row = tile == 0 ? owned_query(y, i) : owned_key(x, i);
                    words[lane] = 3L * (TILE + PAD) + row; /* any k: rows are TILE + PAD apart */
                }
                const int wavefronts = host_wavefronts(words, 32);
                if (wavefronts > worst)
                    worst = wavefronts, worst_what = tile == 0 ? "query" : "key",
                    worst_index = i;
            }
    if (worst == 1)
        host_check(1, "bank conflicts of the reads", "none: one wavefront per read");
    else
        host_check(0, "bank conflicts of the reads", "reading %s %d takes a warp %d wavefronts "
                   "(%d-way bank conflict); 1 would do", worst_what, worst_index, worst, worst);
    return host_check_status();
}
