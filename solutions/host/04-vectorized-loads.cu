/* solutions/host/04-vectorized-loads.cu - the host check of exercise 4.1:
 * widest_load against every address the kernel loads from, at many sizes. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

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

int host_check_main(int, char **)
{
    char why[200] = "";
    int failed = 0, sizes = 0;
    for (int HS = 1; HS <= 24 && !failed; HS++)
        for (int NH = 1; NH <= 5 && !failed; NH++)
            for (int B = 1; B <= 2 && !failed; B++) {
                const triangle_size s = {B, 128, NH, HS};
                const int want = safe(s, 4) ? 4 : safe(s, 2) ? 2 : 1;
                const int got = widest_load(s);
                sizes++;
                if (got != want) {
                    snprintf(why, sizeof why, "B=%d T=128 C=%d NH=%d (HS = %d): widest_load says "
                             "%d, the widest safe load is %d float%s", B, NH * HS, NH, HS, got,
                             want, want > 1 ? "s" : "");
                    failed = 1;
                }
            }
    if (failed)
        host_check(0, "widest_load", "%s", why);
    else
        host_check(1, "widest_load", "the widest safe load at %d sizes, HS = 1 to 24", sizes);
    return host_check_status();
}
