/* plots/figures/gemm_pipeline.cu - the data of the figure `gemm-pipeline`
 * (chapter 11): the ring of the copy-engine GEMM through the first stages
 * of a block, slot by slot: which buffer thread 0 fills with which stage,
 * which buffer the warp groups wait on and multiply, the parity of each
 * wait, and when each buffer's empty barrier completes.
 *
 * Drawn from the ring's own bookkeeping (chapters/11-copy-engine/gemm.cuh):
 * gemm_buffer, gemm_phase, gemm_empty_phase, GEMM_STAGES and GEMM_AHEAD, in
 * the order tf32x3_gemm_kernel and gemm_copy_stage call them. A schedule,
 * not a measurement: one slot of time per stage (loop iteration s is slot s,
 * the copies before the loop are slot -1), copies that land before the
 * stage's full wait, and the 8 warps' arrivals on a buffer's empty barrier
 * at the end of the slot that multiplied it.
 *
 * Besides the data the program checks the schedule against a model of the
 * mbarrier: a wait with parity p passes once the barrier's completions so
 * far are odd for p = 0, even for p = 1 (the phase of parity p is done).
 * A copy whose empty wait passes while the buffer's last stage is not yet
 * multiplied is a race; one whose wait cannot pass (the warps that would
 * complete it wait behind thread 0) a deadlock; a full wait whose parity
 * is not the completion of its own stage's copy is wrong. The script
 * refuses to draw a ring that has any of them.
 *
 *   build/figures/bin/gemm_pipeline OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/11-copy-engine/gemm.cuh"
#include "figure.h"

enum {
    STAGES = 10,    /* the block's k: 10 stages of GEMM_DEPTH */
    SHOWN_SLOT = 5, /* the slot the figure shades, in the steady state */
    BEFORE = -1,    /* the slot of the copies before the loop */
    NONE = -2,
};

/* How many stages of buffer b have completed barrier `done` by the start of
 * slot t, where done[c] is the slot at whose start stage c's completion
 * counts (its end + 1 for empty). */
static int completions(const int *done, int b, int t)
{
    int n = 0;
    for (int c = 0; c < STAGES; c++)
        n += gemm_buffer(c) == b && done[c] != NONE && done[c] <= t;
    return n;
}

/* Whether a wait with parity p on a barrier that has completed n times passes. */
static int passes(int n, int p)
{
    return n % 2 != p;
}

/* n in words, as the caption says it (0 to STAGES) */
static const char *count_word(int n)
{
    static const char *const words[] = {"none", "one", "two",   "three", "four", "five",
                                        "six",  "seven", "eight", "nine", "ten"};
    return n >= 0 && n <= STAGES ? words[n] : "?";
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes gemm-pipeline.dat, .vars.gp, .caption");

    /* The kernel's schedule: the copies before the loop, then at the start
     * of slot s the copies of stage s + GEMM_AHEAD, if it is a stage. */
    int issue[STAGES], empty_parity[STAGES];
    for (int c = 0; c < STAGES; c++)
        issue[c] = NONE;
    for (int s = 0; s < GEMM_AHEAD && s < STAGES; s++)
        issue[s] = BEFORE;
    for (int s = 0; s < STAGES; s++)
        if (s + GEMM_AHEAD < STAGES)
            issue[s + GEMM_AHEAD] = s;
    /* gemm_copy_stage: a stage past the first GEMM_STAGES waits on its buffer's
     * empty barrier, for the completion of stage s - GEMM_STAGES */
    for (int c = 0; c < STAGES; c++)
        empty_parity[c] = c >= GEMM_STAGES ? gemm_empty_phase(c) : -1;

    /* The barriers' completions in the model: full[b] by the copy, before
     * the stage's slot; empty[b] by the stage's multiplication, counted from
     * the start of the slot after it. */
    int landed[STAGES], emptied[STAGES];
    for (int c = 0; c < STAGES; c++) {
        landed[c] = issue[c] == NONE ? NONE : c;
        emptied[c] = c + 1;
    }

    /* The checks: every stage copied, at the latest in its own slot; each
     * full wait passes once its own stage's copy has landed (and so not
     * before: one completion fewer has the other parity); each empty wait
     * passes, and only once the buffer's previous stage is multiplied. */
    int races = 0, deadlocks = 0, wrong_full = 0, uncopied = 0;
    for (int c = 0; c < STAGES; c++) {
        const int b = gemm_buffer(c);
        if (issue[c] == NONE || issue[c] > c) {
            uncopied++;
            continue;
        }
        if (!passes(completions(landed, b, c), gemm_phase(c)))
            wrong_full++;
        int previous = -1; /* the last stage before c in buffer b */
        for (int prior = 0; prior < c; prior++)
            if (gemm_buffer(prior) == b)
                previous = prior;
        if (empty_parity[c] < 0) { /* no wait: the buffer must be fresh */
            races += previous >= 0;
            continue;
        }
        const int t = issue[c] == BEFORE ? 0 : issue[c];
        if (!passes(completions(emptied, b, t), empty_parity[c]))
            deadlocks++; /* thread 0 waits for warps that wait for it */
        else if (previous >= 0 && emptied[previous] > t)
            races++;
    }

    FILE *data = figure_open(dir, "gemm-pipeline.dat");
    /* index 0, "stage buffer issue wait parity": a copy in flight, from the
     * slot thread 0 issues it in to the slot whose full wait (parity) ends
     * it, where the stage is multiplied; index 1, "stage buffer done parity
     * next issue wait": the 8 warps' arrivals complete the buffer's empty
     * barrier at the start of slot done, the end of the stage's (the phase
     * of that parity); thread 0 then copies stage next into the buffer in
     * slot issue, once its wait on the barrier with parity wait has passed
     * (-1 -1 -1: the buffer is not refilled) */
    for (int c = 0; c < STAGES; c++)
        if (issue[c] != NONE)
            fprintf(data, "%d %d %d %d %d\n", c, gemm_buffer(c), issue[c], c, gemm_phase(c));
    fprintf(data, "\n\n");
    for (int c = 0; c < STAGES; c++) {
        const int b = gemm_buffer(c);
        int next = -1;
        for (int later = STAGES - 1; later > c; later--)
            if (gemm_buffer(later) == b)
                next = later;
        if (next >= 0 && issue[next] == NONE)
            next = -1;
        /* the completion is the buffer's n-th: it ends the phase of parity (n - 1) % 2 */
        const int n = completions(emptied, b, emptied[c]);
        fprintf(data, "%d %d %d %d %d %d %d\n", c, b, emptied[c], (n - 1) % 2, next,
                next >= 0 ? issue[next] : -1, next >= 0 ? empty_parity[next] : -1);
    }
    figure_close(data, "gemm-pipeline.dat");

    /* What the shaded slot shows: the stage multiplied, the copies in flight */
    int flying[STAGES], in_flight = 0;
    for (int c = 0; c < STAGES; c++)
        if (issue[c] != NONE && issue[c] <= SHOWN_SLOT && SHOWN_SLOT < c)
            flying[in_flight++] = c;
    char note[256];
    int at = snprintf(note, sizeof note, "slot %d (shaded): stage %d multiplied, ", SHOWN_SLOT,
                      SHOWN_SLOT);
    if (in_flight == 0)
        snprintf(note + at, sizeof note - at, "no copy in flight");
    for (int i = 0; i < in_flight && at < (int)sizeof note; i++)
        at += snprintf(note + at, sizeof note - at, "%s%d%s",
                       i == 0 ? (in_flight > 1 ? "stages " : "stage ")
                              : i + 1 < in_flight ? ", " : " and ",
                       flying[i], i + 1 == in_flight ? " in flight" : "");
    const int ahead = GEMM_AHEAD; /* how far ahead thread 0 copies */
    FILE *vars = figure_open(dir, "gemm-pipeline.vars.gp");
    fprintf(vars,
            "stages = %d\nbuffers = %d\nahead = %d\nshown = %d\nin_flight = %d\nnote = \"%s\"\n"
            "races = %d\ndeadlocks = %d\nwrong_full = %d\nuncopied = %d\n",
            STAGES, GEMM_STAGES, ahead, SHOWN_SLOT, in_flight, note, races, deadlocks,
            wrong_full, uncopied);
    figure_close(vars, "gemm-pipeline.vars.gp");
    figure_write_line(
        dir, "gemm-pipeline.caption",
        "The ring of the copy-engine GEMM through a block's first %d stages, one row per "
        "buffer (gemm_buffer), drawn as a schedule of one slot per stage, not a measurement: at "
        "the start of slot s thread 0 issues the copies of stage s + %d (GEMM_AHEAD), in "
        "flight until the warp groups' wait on the buffer's full barrier (with parity gemm_phase) "
        "lets them multiply it; their arrivals then complete the buffer's empty barrier, and only "
        "that completion lets thread 0's wait on it (same parity) pass and the buffer be "
        "refilled. While one stage is multiplied, %s %s in flight",
        STAGES, ahead, count_word(in_flight), in_flight == 1 ? "is" : "are");
    return 0;
}
