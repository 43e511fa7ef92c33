/* solutions/host/08-tensor-epilogue.cu - the host check of exercise 8.2:
 * c_row and c_col against the layout of mma.m16n8k8's accumulators (PTX
 * ISA, "Matrix Fragments for mma.m16n8k8"), and the pairs the epilogue
 * stores: neighbours in one row, at an even column. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define c_row PROBED(c_row)
#define c_col PROBED(c_col)

int host_check_main(int, char **)
{
    /* The PTX ISA's table: row = groupID for c0, c1 and groupID + 8 for c2, c3;
     * col = threadID_in_group * 2 + (i & 1). */
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++) {
            const int row = (lane >> 2) + (i < 2 ? 0 : 8), col = (lane % 4) * 2 + (i & 1);
            if (c_row(lane, i) != row || c_col(lane, i) != col) {
                host_check(0, "accumulators", "lane %d, c[%d]: you say C[%d][%d], the "
                           "instruction leaves C[%d][%d] there", lane, i, c_row(lane, i),
                           c_col(lane, i), row, col);
                return host_check_status();
            }
        }
    host_check(1, "accumulators", "every lane's four as the instruction leaves them");
    for (int lane = 0; lane < 32; lane++)
        for (int pair = 0; pair < 2; pair++) {
            const int first = 2 * pair;
            if (c_row(lane, first + 1) != c_row(lane, first) ||
                c_col(lane, first + 1) != c_col(lane, first) + 1 || c_col(lane, first) % 2 != 0) {
                host_check(0, "pairs for 8-byte stores", "lane %d: accumulators %d and %d are "
                           "not neighbours at an even column", lane, first, first + 1);
                return host_check_status();
            }
        }
    host_check(1, "pairs for 8-byte stores", "accumulators 0, 1 and 2, 3 of every lane");
    return host_check_status();
}
