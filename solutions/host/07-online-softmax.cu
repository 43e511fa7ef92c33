/* solutions/host/07-online-softmax.cu - the host check of exercise 7.1:
 * online_add_block and online_finish over streams of scores chosen to
 * break a softmax (rising, huge, tiny, masked), in blocks of several
 * sizes, and over streams drawn from the grading's seed (scores and values
 * with every bit of their significands drawn, of any magnitude up to the
 * hundreds, some keys masked, any length and block), against the
 * softmax-weighted sum in double. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define online_add_block PROBED(online_add_block)
#define online_finish PROBED(online_finish)

#define FEATURES 16
#define VALUE_STRIDE 20 /* values of one key are this far from the next one's */
#define MAX_KEYS 600

enum { RANDOM, RISING, HUGE_SCORES, TINY, MASKED_FIRST, MASKED_BETWEEN, SINGLE, NONE, FULL, STREAMS };
static const char *stream_names[STREAMS] = {
    "random scores", "rising scores (the reference moves at every block)",
    "scores in the hundreds", "scores below -1000", "masked keys first",
    "a masked block between others", "one kept key", "no kept key",
    "scores with full significands (drawn from the grading's seed)"};
static unsigned long long drawn_state;

static unsigned state = 77;
static double uniform(void)
{
    state = state * 1664525u + 1013904223u;
    return (state >> 8) * (1.0 / 16777216.0);
}

static void draw(int stream, float *scores, int keys)
{
    for (int j = 0; j < keys; j++) {
        float s = (float)(6.0 * (uniform() - 0.5));
        switch (stream) {
        case RISING: s = 0.75f * j; break;
        case HUGE_SCORES: s = (float)(300.0 + 200.0 * uniform()); break;
        case TINY: s = (float)(-1100.0 + 50.0 * uniform()); break;
        case MASKED_FIRST: if (j < keys / 2) s = -INFINITY; else s += 40.0f; break;
        case MASKED_BETWEEN: if (j >= 9 && j < 40) s = -INFINITY; break;
        case SINGLE: s = j == keys / 3 ? 12.0f : -INFINITY; break;
        case NONE: s = -INFINITY; break;
        case FULL: /* a full significand, 1/64 to 1000 in magnitude, a key in ten masked */
            s = host_draw(&drawn_state, 0, 9) == 0 ? -INFINITY
                                                    : host_full_float(&drawn_state, -6, 8);
            break;
        default: break;
        }
        scores[j] = s;
    }
}

int host_check_main(int, char **)
{
    static float scores[MAX_KEYS], values[MAX_KEYS * VALUE_STRIDE];
    drawn_state = host_seed();
    for (int k = 0; k < MAX_KEYS * VALUE_STRIDE; k++)
        values[k] = k % 2 ? (float)(2.0 * uniform() - 1.0) : host_full_float(&drawn_state, -8, 0);
    const int lengths[] = {1, 7, 64, 257, 600};
    const int blocks[] = {8, 1, 5, 64};
    int failed = 0;
    double worst = 0.0;
    char why[300] = "";
    for (int stream = 0; stream < STREAMS && !failed; stream++)
        for (int l = 0; l < 5 && !failed; l++)
            for (int bl = 0; bl < 4 && !failed; bl++) {
                int keys = lengths[l], block = blocks[bl];
                if (stream == FULL) { /* any length, any block */
                    keys = (int)host_draw(&drawn_state, 1, MAX_KEYS);
                    block = (int)host_draw(&drawn_state, 1, 64);
                }
                if ((stream == MASKED_BETWEEN && keys < 64) || (stream == RISING && keys > 257))
                    continue; /* between needs room; rising past e^192 leaves float's range */
                draw(stream, scores, keys);
                float acc[FEATURES] = {0};
                online_row row = online_start();
                for (int first = 0; first < keys; first += block) {
                    const int count = keys - first < block ? keys - first : block;
                    online_add_block(&row, probed_span(acc, FEATURES), FEATURES, scores + first,
                                     values + first * VALUE_STRIDE, VALUE_STRIDE, count);
                }
                online_finish(&row, probed_span(acc, FEATURES), FEATURES);

                double top = -INFINITY, total = 0.0, want[FEATURES] = {0};
                for (int j = 0; j < keys; j++)
                    top = fmax(top, (double)scores[j]);
                for (int j = 0; j < keys && top > -INFINITY; j++) {
                    const double weight = exp((double)scores[j] - top);
                    total += weight;
                    for (int c = 0; c < FEATURES; c++)
                        want[c] += weight * values[j * VALUE_STRIDE + c];
                }
                double error = 0.0, norm = 0.0;
                for (int c = 0; c < FEATURES; c++) {
                    if (total > 0)
                        want[c] /= total;
                    error += (acc[c] - want[c]) * (acc[c] - want[c]);
                    norm += want[c] * want[c];
                }
                /* relative to the output; exactly 0 wanted for a row with no kept key */
                error = total > 0 ? sqrt(error / norm) : sqrt(error) * 1e30;
                if (!(error <= 1e-5)) {
                    snprintf(why, sizeof why, "%s, %d keys in blocks of %d: o[0] = %g, the "
                             "softmax in double gives %g (relative error %.2g)",
                             stream_names[stream], keys, block, acc[0], want[0], error);
                    failed = 1;
                } else if (error > worst) {
                    worst = error;
                }
            }
    if (failed)
        host_check(0, "online softmax", "%s", why);
    else
        host_check(1, "online softmax", "%d kinds of stream (one drawn from the grading's "
                   "seed, full significands), 1 to 600 keys, blocks of 1 to 64: within %.1e of "
                   "the softmax in double", STREAMS, worst);
    return host_check_status();
}
