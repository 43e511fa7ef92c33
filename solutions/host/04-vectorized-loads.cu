/* solutions/host/04-vectorized-loads.cu - the host check of exercise 4.1:
 * widest_load against every address the kernel loads from, at every head
 * dimension to 24 and at twelve sizes drawn from the grading's seed (any
 * head dimension to 512, up to 16 heads and 4 sequences of any length to
 * 512), so that an answer right only where the exercise looks fails. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define widest_load PROBED(widest_load)

/* Whether loads of `width` floats are safe at size s: the head dimension is
 * whole loads and every offset the kernel loads at (every query and key row
 * of every sequence and head, k = 0, width, ...) is a multiple of width. */
static int safe(triangle_size s, int width)
{
    if (s.HS % width != 0)
        return 0;
    const long C = (long)s.NH * s.HS;
    for (int b = 0; b < s.B; b++)
        for (int t = 0; t < s.T; t++)
            for (int h = 0; h < s.NH; h++)
                for (int k = 0; k < s.HS; k += width) {
                    const long query = ((long)b * s.T + t) * 3 * C + (long)h * s.HS + k;
                    if (query % width != 0 || (query + C) % width != 0)
                        return 0;
                }
    return 1;
}

/* Whether widest_load is right at s; why not in `why`. */
static int right_at(triangle_size s, char *why, size_t capacity)
{
    const int want = safe(s, 4) ? 4 : safe(s, 2) ? 2 : 1;
    const int got = widest_load(s);
    if (got == want)
        return 1;
    snprintf(why, capacity, "B=%d T=%d C=%d NH=%d (HS = %d): widest_load says %d, the widest "
             "safe load is %d float%s", s.B, s.T, s.NH * s.HS, s.NH, s.HS, got, want,
             want > 1 ? "s" : "");
    return 0;
}

int host_check_main(int, char **)
{
    char why[200] = "";
    int failed = 0, sizes = 0;
    for (int HS = 1; HS <= 24 && !failed; HS++)
        for (int NH = 1; NH <= 5 && !failed; NH++)
            for (int B = 1; B <= 2 && !failed; B++, sizes++) {
                const triangle_size s = {B, 128, NH, HS};
                failed = !right_at(s, why, sizeof why);
            }
    unsigned long long state = host_seed();
    for (int k = 0; k < 12 && !failed; k++, sizes++) {
        const triangle_size s = {(int)host_draw(&state, 1, 4), (int)host_draw(&state, 1, 512),
                                 (int)host_draw(&state, 1, 16), (int)host_draw(&state, 1, 512)};
        failed = !right_at(s, why, sizeof why);
    }
    if (failed)
        host_check(0, "widest_load", "%s", why);
    else
        host_check(1, "widest_load", "the widest safe load at %d sizes: HS = 1 to 24, and 12 "
                   "drawn (HS to 512)", sizes);
    return host_check_status();
}
