/* solutions/host/11-hopper-ring.cu - the host check of exercise 11.1: the
 * ring simulated event by event. Its actors are the 8 warps (warp 0's
 * thread 0 also copies), and the copy engine, which lands the copies in
 * flight in any order; its barriers complete phases as the hardware's do
 * (a wait on parity p passes when the number of completed phases has the
 * other parity, the phase before the first counting as completed). Each
 * run picks the next event at random among those that can happen, each
 * actor weighted by a speed drawn for the run (from the grading's seed),
 * so that copies land late, warps run ahead or lag. A run fails at the
 * first warp that reads a buffer before its stage has landed, the first
 * copy started into a buffer a warp has not finished with, or when nothing
 * can happen and a warp is not done (a deadlock).
 *
 * The checks: the parities are 0 or 1; the ring runs clean for 2 to 8
 * buffers, every ahead from 1 to largest_ahead, 1 to 40 stages, many
 * orders each, and for 16, 64 and one size drawn between them, with a few
 * aheads each and fewer orders (an answer right only up to 8 buffers fails
 * there); ahead = largest_ahead + 1 fails; and the slack, measured by
 * holding warps 1 to 7 back by n stages while warp 0 reaches a stage s,
 * is slack(). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define empty_parity PROBED(empty_parity)
#define largest_ahead PROBED(largest_ahead)
#define slack PROBED(slack)

#define MAX_STAGES 64  /* the most buffers checked */
#define EVERY_STAGES 8 /* every size up to this one, every ahead; beyond, some of each */
#define ORDERS 120      /* orders of events per ring, size and count, up to EVERY_STAGES */
#define ORDERS_LARGE 12 /* beyond it */

enum { STEP_COPY, STEP_WAIT_FULL, STEP_READ, STEP_DONE };

typedef struct {
    int completed; /* phases completed */
    int arrivals;  /* arrivals in the current phase (empty only) */
} barrier;

typedef struct {
    int stages, ahead, count;
    barrier full[MAX_STAGES], empty[MAX_STAGES];
    int holds[MAX_STAGES];     /* the stage whose copies have landed in buffer b, or -1 */
    int in_flight[MAX_STAGES]; /* the stage being copied into buffer b, or -1 */
    int stage[RING_WARPS];     /* the stage warp w is at */
    int step[RING_WARPS];      /* what it does next */
    int finished[RING_WARPS];  /* stages warp w has finished (arrived on empty for) */
    int next_copy;             /* the next stage thread 0 copies */
    double speed[RING_WARPS + 1]; /* the warps', then the copy engine's */
    int hold_back;             /* scripted runs: warps 1-7 start no stage >= hold_back */
    int stop_at;               /* scripted runs: warp 0 stops before copying this stage */
    char failure[320];
} ring;

static int passes(const barrier *b, int parity)
{
    return b->completed % 2 != parity;
}

/* The stage thread 0 copies next, or -1 when it waits on full next. */
static int copy_due(const ring *r)
{
    const int c = r->next_copy;
    return c < r->count && c <= r->stage[0] + r->ahead ? c : -1;
}

static void start(ring *r, int stages, int ahead, int count)
{
    memset(r, 0, sizeof *r);
    r->stages = stages, r->ahead = ahead, r->count = count;
    r->hold_back = r->stop_at = -1;
    for (int b = 0; b < MAX_STAGES; b++)
        r->holds[b] = r->in_flight[b] = -1;
    for (int w = 0; w < RING_WARPS; w++) {
        r->step[w] = count == 0 ? STEP_DONE : STEP_WAIT_FULL;
        r->speed[w] = 1.0;
    }
    r->speed[RING_WARPS] = 1.0;
    if (copy_due(r) >= 0)
        r->step[0] = STEP_COPY;
}

/* The last stage before c that buffer b held, or -1. */
static int previous_in(const ring *r, int c, int b)
{
    for (int y = c - 1; y >= 0; y--)
        if (ring_buffer(y, r->stages) == b)
            return y;
    return -1;
}

/* Whether actor a (a warp, or RING_WARPS for the copy engine) can act now. */
static int can_act(const ring *r, int a)
{
    if (a == RING_WARPS) {
        for (int b = 0; b < r->stages; b++)
            if (r->in_flight[b] >= 0)
                return 1;
        return 0;
    }
    const int s = r->stage[a];
    switch (r->step[a]) {
    case STEP_COPY: {
        const int c = r->next_copy;
        if (c == r->stop_at)
            return 0;
        return passes(&r->empty[ring_buffer(c, r->stages)], empty_parity(c, r->stages));
    }
    case STEP_WAIT_FULL:
        if (a > 0 && r->hold_back >= 0 && s >= r->hold_back)
            return 0;
        return passes(&r->full[ring_buffer(s, r->stages)], full_parity(s, r->stages));
    case STEP_READ:
        return 1;
    default:
        return 0;
    }
}

static void next_step(ring *r, int w)
{
    if (r->stage[w] >= r->count)
        r->step[w] = STEP_DONE;
    else if (w == 0 && copy_due(r) >= 0)
        r->step[w] = STEP_COPY;
    else
        r->step[w] = STEP_WAIT_FULL;
}

/* Actor a acts; 0, or 1 with r->failure set when that was a race. */
static int act(ring *r, int a, unsigned long long *state)
{
    if (a == RING_WARPS) { /* a copy in flight lands: its buffer's full completes a phase */
        int buffers[MAX_STAGES], n = 0;
        for (int b = 0; b < r->stages; b++)
            if (r->in_flight[b] >= 0)
                buffers[n++] = b;
        const int b = buffers[host_draw(state, 0, n - 1)];
        r->holds[b] = r->in_flight[b];
        r->in_flight[b] = -1;
        r->full[b].completed++;
        return 0;
    }
    const int s = r->stage[a], S = r->stages;
    if (r->step[a] == STEP_COPY) {
        const int c = r->next_copy, b = ring_buffer(c, S), y = previous_in(r, c, b);
        const int parity = empty_parity(c, S);
        for (int w = 0; w < RING_WARPS && y >= 0; w++)
            if (r->finished[w] <= y) {
                snprintf(r->failure, sizeof r->failure,
                         "a race: thread 0 starts copying stage %d into buffer %d while warp %d "
                         "has not finished stage %d there (it is at stage %d): the wait on "
                         "empty[%d] with parity %d passed with %d phase(s) completed",
                         c, b, w, y, r->stage[w], b, parity, r->empty[b].completed);
                return 1;
            }
        if (r->in_flight[b] >= 0) {
            snprintf(r->failure, sizeof r->failure,
                     "a race: thread 0 starts copying stage %d into buffer %d while stage %d's "
                     "copies into it are in flight", c, b, r->in_flight[b]);
            return 1;
        }
        r->in_flight[b] = c;
        r->holds[b] = -1;
        r->next_copy++;
        next_step(r, a);
        return 0;
    }
    const int b = ring_buffer(s, S);
    if (r->step[a] == STEP_WAIT_FULL) {
        if (r->holds[b] != s) {
            char holds[48];
            if (r->holds[b] >= 0)
                snprintf(holds, sizeof holds, "it holds stage %d", r->holds[b]);
            else if (r->in_flight[b] >= 0)
                snprintf(holds, sizeof holds, "stage %d is still landing", r->in_flight[b]);
            else
                snprintf(holds, sizeof holds, "nothing has landed in it");
            snprintf(r->failure, sizeof r->failure,
                     "a race: warp %d reads stage %d from buffer %d before it has landed (%s): "
                     "the wait on full[%d] with parity %d passed with %d phase(s) completed",
                     a, s, b, holds, b, full_parity(s, S), r->full[b].completed);
            return 1;
        }
        r->step[a] = STEP_READ;
        return 0;
    }
    /* STEP_READ: done with stage s, one arrival on its buffer's empty */
    r->finished[a]++;
    if (++r->empty[b].arrivals == RING_WARPS) {
        r->empty[b].arrivals = 0;
        r->empty[b].completed++;
    }
    r->stage[a]++;
    next_step(r, a);
    return 0;
}

/* What every warp that cannot move waits on, for a deadlock's report:
 * "thread 0 waits on ...; warps 1-7 wait on ...", warps with the same wait
 * grouped. */
static void describe_deadlock(ring *r)
{
    char text[360] = "", what[RING_WARPS][120];
    for (int w = 0; w < RING_WARPS; w++) {
        const int s = r->stage[w], S = r->stages;
        if (r->step[w] == STEP_COPY) {
            const int c = r->next_copy, b = ring_buffer(c, S);
            snprintf(what[w], sizeof what[w],
                     "on empty[%d] with parity %d to copy stage %d (%d phase(s) completed, "
                     "%d of %d warps arrived)", b, empty_parity(c, S), c, r->empty[b].completed,
                     r->empty[b].arrivals, RING_WARPS);
        } else if (r->step[w] == STEP_WAIT_FULL) {
            const int b = ring_buffer(s, S);
            snprintf(what[w], sizeof what[w], "on full[%d] with parity %d at stage %d", b,
                     full_parity(s, S), s);
        } else {
            what[w][0] = '\0'; /* done */
        }
    }
    for (int w = 0; w < RING_WARPS;) {
        int last = w;
        while (w > 0 && last + 1 < RING_WARPS && strcmp(what[last + 1], what[w]) == 0)
            last++;
        char who[32];
        if (w == 0)
            snprintf(who, sizeof who, r->step[0] == STEP_COPY ? "thread 0" : "warp 0");
        else if (last > w)
            snprintf(who, sizeof who, "warps %d-%d", w, last);
        else
            snprintf(who, sizeof who, "warp %d", w);
        const size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%s%s %s%s%s", w ? "; " : "", who,
                 what[w][0] ? (last > w ? "wait" : "waits") : (last > w ? "are done" : "is done"),
                 what[w][0] ? " " : "", what[w]);
        w = last + 1;
    }
    snprintf(r->failure, sizeof r->failure, "a deadlock: %s", text);
}

/* Runs the ring to its end (or, scripted, until nothing can act): 0, or 1
 * with r->failure set. Scripted runs take the first actor that can act
 * (the copy engine first); others draw one, weighted by speed. */
static int run(ring *r, unsigned long long *state, int scripted)
{
    for (;;) {
        double total = 0.0;
        int able[RING_WARPS + 1], n = 0;
        for (int a = 0; a <= RING_WARPS; a++)
            if (can_act(r, a))
                able[n++] = a, total += r->speed[a];
        if (n == 0)
            break;
        int chosen = able[0];
        if (scripted) {
            for (int k = 0; k < n; k++)
                if (able[k] == RING_WARPS)
                    chosen = RING_WARPS;
        } else {
            double pick = (double)host_draw(state, 0, 1000000000L) / 1e9 * total;
            for (int k = 0; k < n; k++) {
                chosen = able[k];
                if ((pick -= r->speed[able[k]]) <= 0.0)
                    break;
            }
        }
        if (act(r, chosen, state))
            return 1;
    }
    if (scripted)
        return 0;
    for (int w = 0; w < RING_WARPS; w++)
        if (r->step[w] != STEP_DONE) {
            describe_deadlock(r);
            return 1;
        }
    return 0;
}

/* Runs ORDERS orders of a ring of `stages` buffers, `ahead` ahead, `count`
 * stages; 0, or 1 with why set: the first race, or where no order races,
 * the first deadlock (a wait that names the wrong phase may do either,
 * depending on the order; the race says more). Speeds span six orders of
 * magnitude, so that an actor often runs far ahead of the others. */
static int run_orders(int stages, int ahead, int count, unsigned long long *state, char *why,
                      size_t capacity)
{
    static const double speeds[] = {1.0, 1e3, 1e6};
    const int orders = stages <= EVERY_STAGES ? ORDERS : ORDERS_LARGE;
    int failed = 0;
    for (int order = 0; order < orders; order++) {
        ring r;
        start(&r, stages, ahead, count);
        for (int a = 0; a <= RING_WARPS; a++)
            r.speed[a] = order == 0 ? 1.0 : speeds[host_draw(state, 0, 2)];
        if (!run(&r, state, 0))
            continue;
        const int race = strncmp(r.failure, "a race", 6) == 0;
        if (race || !failed)
            snprintf(why, capacity, "stages=%d ahead=%d, %d stage(s), order %d: %s", stages,
                     ahead, count, order, r.failure);
        failed = 1;
        if (race)
            break;
    }
    return failed;
}

/* Scripted: warps 1-7 finish stages up to target - 1 - lag and stop; warp 0
 * runs to the start of stage `target`, up to its wait before copying stage
 * target + ahead. 1 when that wait passes at once, 0 when it would not (or
 * warp 0 never got there); -1 with why set when it passes but is a race. */
static int passes_at_once(int stages, int ahead, int target, int lag, char *why, size_t capacity)
{
    ring r;
    unsigned long long state = 1;
    start(&r, stages, ahead, target + ahead + 1);
    r.hold_back = target - lag;
    r.stop_at = target + ahead;
    run(&r, &state, 1);
    if (r.stage[0] != target || r.step[0] != STEP_COPY || r.next_copy != target + ahead)
        return 0;
    const int c = target + ahead, b = ring_buffer(c, stages);
    if (!passes(&r.empty[b], empty_parity(c, stages)))
        return 0;
    r.stop_at = -1;
    if (act(&r, 0, &state)) {
        snprintf(why, capacity, "stages=%d ahead=%d, warps 1-7 %d stage(s) behind warp 0: %s",
                 stages, ahead, lag, r.failure);
        return -1;
    }
    return 1;
}

/* The ahead after A to check for S buffers: every one up to EVERY_STAGES
 * buffers; beyond, 1, 2, the middle, and the last two up to `largest`. */
static int next_ahead(int S, int A, int largest)
{
    if (S <= EVERY_STAGES || A + 1 >= largest - 1)
        return A + 1;
    if (A < 2)
        return 2;
    return A < largest / 2 ? largest / 2 : largest - 1;
}

int host_check_main(int, char **)
{
    unsigned long long state = host_seed();
    char why[480] = "";
    /* The ring sizes: every one up to EVERY_STAGES, then 16, one drawn
     * between 17 and 63, and 64. */
    int sizes[EVERY_STAGES + 2], n_sizes = 0;
    for (int S = 2; S <= EVERY_STAGES; S++)
        sizes[n_sizes++] = S;
    sizes[n_sizes++] = 16;
    sizes[n_sizes++] = (int)host_draw(&state, 17, MAX_STAGES - 1);
    sizes[n_sizes++] = MAX_STAGES;

    /* 1. The parities are parities. */
    int failed = 0;
    for (int i = 0; i < n_sizes && !failed; i++)
        for (int S = sizes[i], c = 0; c < 6 * S && !failed; c++) {
            const int p = empty_parity(c, S);
            if (p != 0 && p != 1) {
                snprintf(why, sizeof why, "empty_parity(%d, %d) = %d: a parity is 0 or 1", c, S, p);
                failed = 1;
            }
        }
    if (failed) {
        host_check(0, "empty_parity", "%s", why);
        return host_check_status();
    }
    host_check(1, "empty_parity", "0 or 1 for 2 to %d buffers", MAX_STAGES);

    /* 2. The ring runs clean up to the largest ahead, in every order drawn. */
    failed = 0;
    int runs = 0;
    for (int i = 0; i < n_sizes && !failed; i++) {
        const int S = sizes[i];
        int largest = largest_ahead(S);
        if (largest > S + 1)
            largest = S + 1; /* past S + 1 nothing new happens */
        for (int A = 1; A <= (largest < 1 ? 1 : largest) && !failed; A = next_ahead(S, A, largest)) {
            const int counts[] = {1, 2, S - 1, S, S + 1, 2 * S + 1, 3 * S + 2, 40};
            for (int k = 0; k < (int)(sizeof counts / sizeof counts[0]) && !failed; k++) {
                if (counts[k] < 1 || (k > 0 && counts[k] <= counts[k - 1]))
                    continue;
                char ring_why[400];
                failed = run_orders(S, A, counts[k], &state, ring_why, sizeof ring_why);
                if (failed)
                    snprintf(why, sizeof why, "%s%s", A > 1 && A == largest ? "with ahead = "
                             "largest_ahead: " : "", ring_why);
                runs += S <= EVERY_STAGES ? ORDERS : ORDERS_LARGE;
            }
        }
    }
    if (failed)
        host_check(0, "the ring", "%s", why);
    else
        host_check(1, "the ring", "%d orders of events, 2 to %d buffers (every size to %d, then 16, %d and "
                   "%d), ahead 1 to largest_ahead, 1 to %d stages: no race, no deadlock", runs,
                   MAX_STAGES, EVERY_STAGES, sizes[n_sizes - 2], MAX_STAGES, 3 * MAX_STAGES + 2);

    /* 3. One stage more ahead fails. */
    failed = 0;
    for (int i = 0; i < n_sizes && !failed; i++) {
        const int S = sizes[i], largest = largest_ahead(S);
        if (largest < 1) {
            snprintf(why, sizeof why, "largest_ahead(%d) = %d: ahead is at least 1", S, largest);
            failed = 1;
        } else if (largest <= S + 1 &&
                   !run_orders(S, largest + 1, 3 * S + 2, &state, why, sizeof why)) {
            snprintf(why, sizeof why, "largest_ahead(%d) = %d, but ahead = %d ran %d orders of "
                     "%d stages with no race and no deadlock: it is not the largest", S, largest,
                     largest + 1, ORDERS, 3 * S + 2);
            failed = 1;
        }
    }
    if (failed)
        host_check(0, "largest_ahead", "%s", why);
    else
        host_check(1, "largest_ahead", "one stage further ahead races or deadlocks, 2 to %d "
                   "buffers", MAX_STAGES);

    /* 4. The slack, measured: warps 1-7 held back by 0, 1, ... stages. */
    failed = 0;
    for (int i = 0; i < n_sizes && !failed; i++) {
        const int S = sizes[i];
        int largest = largest_ahead(S);
        if (largest > S + 1)
            largest = S + 1;
        for (int A = 1; A <= (largest < 1 ? 1 : largest) && !failed; A = next_ahead(S, A, largest)) {
            const int target = 3 * S + 1;
            int measured = -1;
            for (int lag = 0; lag <= S + 1; lag++) {
                const int at_once = passes_at_once(S, A, target, lag, why, sizeof why);
                if (at_once < 0) {
                    failed = 1;
                    break;
                }
                if (!at_once)
                    break;
                measured = lag;
            }
            const int claimed = slack(S, A);
            if (failed || claimed == measured)
                continue;
            failed = 1;
            if (claimed > measured)
                snprintf(why, sizeof why, "slack(%d, %d) = %d, but with warps 1-7 %d stage(s) "
                         "behind (finished stage s - %d when warp 0 starts stage s), thread 0 "
                         "waits for them", S, A, claimed, measured + 1, measured + 2);
            else
                snprintf(why, sizeof why, "slack(%d, %d) = %d, but with warps 1-7 %d stage(s) "
                         "behind (finished stage s - %d when warp 0 starts stage s), thread 0's "
                         "wait returns at once", S, A, claimed, claimed + 1, claimed + 2);
        }
    }
    if (failed)
        host_check(0, "slack", "%s", why);
    else
        host_check(1, "slack", "as measured, 2 to %d buffers, every ahead up to the largest",
                   MAX_STAGES);
    return host_check_status();
}
