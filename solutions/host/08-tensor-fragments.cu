/* solutions/host/08-tensor-fragments.cu - the host check of exercise 8.1:
 * a_row, a_col, b_row and b_col against the layout of mma.m16n8k8 for
 * .tf32 (PTX ISA, "Matrix Fragments for mma.m16n8k8"), and the wavefronts
 * of each fragment load with PAD, at the head sizes the grader uses. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define a_row PROBED(a_row)
#define a_col PROBED(a_col)
#define b_row PROBED(b_row)
#define b_col PROBED(b_col)

/* PAD is the student's choice too: the probe answers its value (the
 * first call of host_check_main), and the check reads it from here. */
static int submitted_pad(void) { return PAD; }
static int pad_answered;
#undef PAD
#define PAD pad_answered

int host_check_main(int, char **)
{
    pad_answered = PROBED(submitted_pad)();
    /* The PTX ISA's table, lane by lane: groupID = lane >> 2, threadID_in_group = lane % 4;
     * A: row = groupID for a0, a2 and groupID + 8 for a1, a3; col = threadID_in_group
     * for a0, a1 and threadID_in_group + 4 for a2, a3. B: row = threadID_in_group
     * (b0) and + 4 (b1); col = groupID. */
    for (int lane = 0; lane < 32; lane++) {
        const int group = lane >> 2, thread_in_group = lane % 4;
        for (int i = 0; i < 4; i++) {
            const int row = (i == 0 || i == 2) ? group : group + 8;
            const int col = i < 2 ? thread_in_group : thread_in_group + 4;
            if (a_row(lane, i) != row || a_col(lane, i) != col) {
                host_check(0, "fragments of A", "lane %d, a[%d]: you say A[%d][%d], the "
                           "instruction takes A[%d][%d]", lane, i, a_row(lane, i), a_col(lane, i),
                           row, col);
                return host_check_status();
            }
        }
        for (int i = 0; i < 2; i++) {
            const int row = thread_in_group + 4 * i, col = group;
            if (b_row(lane, i) != row || b_col(lane, i) != col) {
                host_check(0, "fragments of B", "lane %d, b[%d]: you say B[%d][%d], the "
                           "instruction takes B[%d][%d]", lane, i, b_row(lane, i), b_col(lane, i),
                           row, col);
                return host_check_status();
            }
        }
    }
    host_check(1, "fragments of A and B", "every lane's values as the instruction takes them");

    const int head_sizes[] = {32, 48, 64, 128};
    int worst = 0, worst_HS = 0;
    for (int h = 0; h < 4; h++) {
        const int stride = head_sizes[h] + PAD;
        for (int i = 0; i < 6; i++) { /* a[0..3], then b[0..1] */
            long words[32];
            for (int lane = 0; lane < 32; lane++)
                words[lane] = i < 4 ? (long)a_row(lane, i) * stride + a_col(lane, i)
                                    : (long)b_col(lane, i - 4) * stride + b_row(lane, i - 4);
            const int wavefronts = host_wavefronts(words, 32);
            if (wavefronts > worst)
                worst = wavefronts, worst_HS = head_sizes[h];
        }
    }
    if (worst == 1)
        host_check(1, "bank conflicts of the fragment loads", "none at HS = 32, 48, 64, 128 "
                   "(PAD %d)", PAD);
    else
        host_check(0, "bank conflicts of the fragment loads", "at HS = %d with PAD %d a fragment "
                   "load takes %d wavefronts (%d-way bank conflict); 1 would do", worst_HS, PAD,
                   worst, worst);
    return host_check_status();
}
