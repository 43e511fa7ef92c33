/* plots/figures/online_softmax.cu - the data of the figure `online-softmax`
 * (chapter 7): the walk of the online softmax over the keys of one query
 * row, with the chapter's lazy rescale, on drawn scores.
 *
 * A simulation in double of the rule of fp32_step (chapters/07-tiled/tiled.cuh)
 * for one row, with the chapter's constants: keys STEP = 8 at a time (the
 * kernel's launches instantiate it so), the limit TILED_RENORM_LIMIT and
 * the stage of TILED_STAGE_KEYS keys from chapters/07-tiled/tiles.cuh. Scores are in
 * base 2, as the kernel's (q carries log2(e) / sqrt(d)). In the kernel the
 * decision to move the reference is a vote across the warp; here the row
 * decides alone.
 *
 *   build/figures/bin/online_softmax OUTDIR    (plots/figures.mk runs it)
 */
#include <math.h>

#include "figure.h"
#include "../../chapters/07-tiled/tiles.cuh"
#include "harness/rng.h"

#define FIGURE_KEYS 512 /* the row's kept keys: eight stages */
#define STEP 8          /* keys per step of fp32_step, as tiled.cu launches it */

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes online-softmax.dat, .vars.gp, .caption");
    /* Scores that drift upwards, as when the best-matching sequences come
     * late in a column: noise of +-3 (base 2) around a slow rise of 24. */
    double score[FIGURE_KEYS];
    rng_t rng;
    rng_seed(&rng, RNG_DEFAULT_SEED);
    for (int j = 0; j < FIGURE_KEYS; j++)
        score[j] = 24.0 * sqrt((double)j / FIGURE_KEYS) + rng_uniform(&rng, -3.0f, 3.0f);

    FILE *data = figure_open(dir, "online-softmax.dat");
    /* index 0, per key: j, s_j; index 1, per step: its first key, the lazy
     * reference after it, the running maximum, the sum of its weights
     * against the reference it found, 1 where the reference moved, l */
    for (int j = 0; j < FIGURE_KEYS; j++)
        fprintf(data, "%d %.6f\n", j, score[j]);
    fprintf(data, "\n\n");

    double m = 0.0, l = 0.0, running_max = -INFINITY, eager_l = 0.0;
    int moves = 0, first = 1;
    for (int step = 0; step < FIGURE_KEYS / STEP; step++) {
        const double *s = score + step * STEP;
        double top = -INFINITY, added = 0.0, tried = 0.0;
        for (int j = 0; j < STEP; j++)
            top = fmax(top, s[j]);
        int move = first;
        if (!move) { /* the usual case: the weights against the current reference */
            for (int j = 0; j < STEP; j++)
                tried += exp2(s[j] - m);
            move = !(tried <= TILED_RENORM_LIMIT);
            added = tried;
        }
        if (move) { /* the reference moves up to the step's maximum */
            const double shift = first ? top : fmax(top - m, 0.0);
            const double factor = first ? 0.0 : exp2(-shift);
            m += shift;
            l *= factor;
            added = 0.0;
            for (int j = 0; j < STEP; j++)
                added += exp2(s[j] - m);
            moves += !first;
            first = 0;
        }
        l += added;
        /* the textbook rule, for comparison: the reference is the running maximum */
        const double old_max = running_max;
        running_max = fmax(running_max, top);
        eager_l = (old_max == -INFINITY ? 0.0 : eager_l * exp2(old_max - running_max));
        for (int j = 0; j < STEP; j++)
            eager_l += exp2(s[j] - running_max);
        fprintf(data, "%d %.6f %.6f %.6g %d %.6g %.6g\n", step * STEP, m, running_max,
                move && step > 0 ? tried : added, move && step > 0, l, eager_l);
    }
    figure_close(data, "online-softmax.dat");

    /* Both references give the same softmax: l 2^m is the same sum. */
    const double agreement = fabs(l * exp2(m - running_max) - eager_l) / eager_l;
    FILE *vars = figure_open(dir, "online-softmax.vars.gp");
    fprintf(vars, "keys = %d\nstep = %d\nstage = %d\nlimit = %g\nmoves = %d\nagreement = \"%.1e\"\n",
            FIGURE_KEYS, STEP, TILED_STAGE_KEYS, (double)TILED_RENORM_LIMIT, moves, agreement);
    figure_close(vars, "online-softmax.vars.gp");
    figure_write_line(dir, "online-softmax.caption",
                      "The online softmax over the %d keys of one query row, %d keys a step, on "
                      "drawn scores (base 2): the lazy reference m moves %d times after the first "
                      "step, only when a step's weights add up to more than %g, where the running "
                      "maximum moves at every new maximum; both end with the same sums (to %.1e)",
                      FIGURE_KEYS, STEP, moves, (double)TILED_RENORM_LIMIT, agreement);
    return 0;
}
