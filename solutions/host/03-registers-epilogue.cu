/* solutions/host/03-registers-epilogue.cu - the host check of exercise 3.2:
 * patch_has_kept_score against a look at all 64 scores of every patch of a
 * large grid. (Whether the sums stay in registers is read from ptxas.) */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define patch_has_kept_score PROBED(patch_has_kept_score)

int host_check_main(int, char **)
{
    char why[200] = "";
    int failed = 0;
    for (int first_query = 0; first_query < 2048 && !failed; first_query += THREAD_TILE)
        for (int first_key = 0; first_key < 2048 && !failed; first_key += THREAD_TILE) {
            bool kept = false;
            for (int r = 0; r < THREAD_TILE; r++)
                for (int c = 0; c < THREAD_TILE; c++)
                    kept = kept || first_key + c <= first_query + r;
            if (patch_has_kept_score(first_query, first_key) != kept) {
                snprintf(why, sizeof why, "the patch at query %d, key %d holds %s kept score; "
                         "patch_has_kept_score says %s", first_query, first_key,
                         kept ? "a" : "no", kept ? "false" : "true");
                failed = 1;
            }
        }
    if (failed)
        host_check(0, "patch_has_kept_score", "%s", why);
    else
        host_check(1, "patch_has_kept_score", "right for every patch of a 2048 x 2048 head");
    return host_check_status();
}
