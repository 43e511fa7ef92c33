/* solutions/host/13-layer-value-pairs.cu - the host check of exercise 13.1:
 * weights_as_a against the layouts of mma.m16n8k8 for .tf32 (PTX ISA,
 * "Matrix Fragments for mma.m16n8k8"), with fragments whose values name
 * their row and key; value_pair against the value each lane's b0 and b1
 * must hold, in a stage of V^T of VALUES_T_STRIDE floats a row; the
 * wavefronts of every pair load, 16 lanes at a time, at that stride and at
 * every smaller one; and one step of P V computed through the exercise's
 * functions, the instruction emulated, against the product in double. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define value_pair PROBED(value_pair)
#define weights_as_a PROBED(weights_as_a)

/* VALUES_T_STRIDE is the student's choice too: the probe answers its value (the
 * first call of host_check_main), and the check reads it from here. */
static int submitted_values_t_stride(void) { return VALUES_T_STRIDE; }
static int values_t_stride_answered;
#undef VALUES_T_STRIDE
#define VALUES_T_STRIDE values_t_stride_answered

/* The instruction's layouts, lane by lane: groupID = lane >> 2,
 * threadID_in_group = lane % 4. A: row groupID for a0, a2 and groupID + 8
 * for a1, a3; column (k) threadID_in_group for a0, a1 and + 4 for a2, a3.
 * B: row (k) threadID_in_group for b0 and + 4 for b1; column groupID.
 * C: row groupID for c0, c1 and + 8 for c2, c3; column
 * threadID_in_group * 2 + (i & 1). */
static int a_row(int lane, int e) { return (lane >> 2) + (e == 1 || e == 3 ? 8 : 0); }
static int a_k(int lane, int e) { return lane % 4 + (e >= 2 ? 4 : 0); }
static int b_k(int lane, int j) { return lane % 4 + 4 * j; }
static int b_n(int lane) { return lane >> 2; }
static int c_row(int lane, int i) { return (lane >> 2) + (i >= 2 ? 8 : 0); }
static int c_col(int lane, int i) { return (lane % 4) * 2 + (i & 1); }

/* A weight that names its row and key, exactly. */
static float tag(int row, int key) { return (float)(1000 + 100 * row + key); }

/* The wavefronts of a warp's pair loads, 16 lanes at a time, with the
 * offsets' rows moved to `stride` (the offsets as the exercise's stride
 * lays them out). */
static int pair_wavefronts(const int *offsets, int stride)
{
    int total = 0;
    for (int half = 0; half < 2; half++) {
        long words[32];
        for (int k = 0; k < 16; k++) {
            const int offset = offsets[16 * half + k];
            const long moved =
                (long)(offset / VALUES_T_STRIDE) * stride + offset % VALUES_T_STRIDE;
            words[2 * k] = moved;
            words[2 * k + 1] = moved + 1;
        }
        total += host_wavefronts(words, 32);
    }
    return total;
}

int host_check_main(int, char **)
{
    values_t_stride_answered = PROBED(submitted_values_t_stride)();
    /* 1. weights_as_a: A's rows, one key for each k, the same in every lane. */
    int key_of[8], lane_of[8];
    for (int k = 0; k < 8; k++)
        key_of[k] = lane_of[k] = -1;
    for (int lane = 0; lane < 32; lane++) {
        const int g = lane >> 2, t = lane % 4;
        float c[4], a[4] = {NAN, NAN, NAN, NAN};
        for (int i = 0; i < 4; i++)
            c[i] = tag(c_row(lane, i), c_col(lane, i));
        weights_as_a(c, a);
        for (int e = 0; e < 4; e++) {
            int i = 0;
            while (i < 4 && !(a[e] == c[i]))
                i++;
            if (i == 4) {
                host_check(0, "weights_as_a", "lane %d (g %d, t %d): a[%d] = %g is none of the "
                           "lane's weights c[0..3]", lane, g, t, e, a[e]);
                return host_check_status();
            }
            const int k = a_k(lane, e), key = c_col(lane, i);
            if (c_row(lane, i) != a_row(lane, e)) {
                host_check(0, "weights_as_a", "lane %d (g %d, t %d): a[%d] is c[%d], the weight "
                           "of row %d and key %d, but A's a[%d] is a weight of row %d", lane, g, t,
                           e, i, c_row(lane, i), key, e, a_row(lane, e));
                return host_check_status();
            }
            if (key_of[k] >= 0 && key_of[k] != key) {
                host_check(0, "weights_as_a", "k = %d stands for key %d in lane %d, but for key "
                           "%d in lane %d (a[%d]): A and B must agree on one key for each k",
                           k, key_of[k], lane_of[k], key, lane, e);
                return host_check_status();
            }
            key_of[k] = key, lane_of[k] = lane;
        }
    }
    for (int k = 0; k < 8; k++)
        for (int other = 0; other < k; other++)
            if (key_of[k] == key_of[other]) {
                host_check(0, "weights_as_a", "k = %d and k = %d both stand for key %d: another "
                           "key's weights are never used", other, k, key_of[k]);
                return host_check_status();
            }
    host_check(1, "weights_as_a", "every lane's A holds its own weights, k = 0..7 standing for "
               "keys %d %d %d %d %d %d %d %d", key_of[0], key_of[1], key_of[2], key_of[3],
               key_of[4], key_of[5], key_of[6], key_of[7]);

    /* 2. value_pair: b0 and b1 where they are, 8 bytes aligned, in a row of the stage. */
    if (VALUES_T_STRIDE < STAGE_KEYS || VALUES_T_STRIDE % 4 != 0 || VALUES_T_STRIDE > 1024) {
        host_check(0, "value_pair", "VALUES_T_STRIDE = %d: a row holds the stage's %d keys, "
                   "starts on 16 bytes (a multiple of 4) and fits a stage (at most 1024)",
                   VALUES_T_STRIDE, STAGE_KEYS);
        return host_check_status();
    }
    for (int dn = 0; dn < MAX_HD / 8; dn++)
        for (int kg = 0; kg < 4; kg++)
            for (int lane = 0; lane < 32; lane++) {
                const int g = lane >> 2, t = lane % 4, offset = value_pair(kg, dn, g, t);
                const int feature = 8 * dn + b_n(lane);
                const int key0 = 8 * kg + key_of[b_k(lane, 0)], key1 = 8 * kg + key_of[b_k(lane, 1)];
                const int want = feature * VALUES_T_STRIDE + key0;
                const char *why = NULL;
                if (offset != want)
                    why = "b0";
                else if (offset + 1 != feature * VALUES_T_STRIDE + key1)
                    why = "b1";
                else if (offset % 2 != 0)
                    why = "odd";
                if (!why)
                    continue;
                if (why[0] == 'o')
                    host_check(0, "value_pair", "lane %d (g %d, t %d), key group %d, feature "
                               "block %d: the pair at offset %d is not 8 bytes aligned", lane, g,
                               t, kg, dn, offset);
                else if (why[1] == '0')
                    host_check(0, "value_pair", "lane %d (g %d, t %d), key group %d, feature "
                               "block %d: value_pair = %d (row %d, key %d of the step), but b0 = "
                               "B[%d][%d] is the value of key %d at feature %d: offset %d",
                               lane, g, t, kg, dn, offset, offset / VALUES_T_STRIDE,
                               offset % VALUES_T_STRIDE, b_k(lane, 0), b_n(lane), key0, feature,
                               want);
                else
                    host_check(0, "value_pair", "lane %d (g %d, t %d), key group %d: b0 is key "
                               "%d, b1 = B[%d][%d] key %d, which is not the float after it: one "
                               "load of 8 bytes cannot bring both, in order", lane, g, t, kg, key0,
                               b_k(lane, 1), b_n(lane), key1);
                return host_check_status();
            }
    host_check(1, "value_pair", "every lane's b0 and b1 side by side, at every key group and "
               "feature block up to d = %d", MAX_HD);

    /* 3. The pair loads: wavefronts at VALUES_T_STRIDE, and at every smaller stride. */
    int worst = 0, worst_kg = 0, worst_dn = 0;
    int smaller = 0; /* a smaller stride that serves every load in 2 wavefronts */
    for (int stride = STAGE_KEYS; stride <= VALUES_T_STRIDE && !smaller; stride += 4) {
        int all_free = 1;
        for (int dn = 0; dn < MAX_HD / 8; dn++)
            for (int kg = 0; kg < 4; kg++) {
                int offsets[32];
                for (int lane = 0; lane < 32; lane++)
                    offsets[lane] = value_pair(kg, dn, lane >> 2, lane % 4);
                const int wavefronts = pair_wavefronts(offsets, stride);
                all_free &= wavefronts == 2;
                if (stride == VALUES_T_STRIDE && wavefronts > worst)
                    worst = wavefronts, worst_kg = kg, worst_dn = dn;
            }
        if (all_free && stride < VALUES_T_STRIDE)
            smaller = stride;
    }
    if (smaller)
        host_check(0, "bank conflicts of the pair loads", "VALUES_T_STRIDE = %d, but a stride "
                   "of %d serves every pair load in 2 wavefronts too, with less padding",
                   VALUES_T_STRIDE, smaller);
    else if (worst > 2)
        host_check(0, "bank conflicts of the pair loads", "with VALUES_T_STRIDE = %d the pair "
                   "load of key group %d, feature block %d takes %d wavefronts; 2 would do (16 "
                   "lanes of 8 bytes at a time)", VALUES_T_STRIDE, worst_kg, worst_dn, worst);
    else
        host_check(1, "bank conflicts of the pair loads", "none (VALUES_T_STRIDE %d, no smaller "
                   "stride serves)", VALUES_T_STRIDE);

    /* 4. One step of P V through the exercise's functions, the instruction
     * emulated, against the product in double, at d = 8 to 64. */
    unsigned long long state = host_seed();
    static float stage[MAX_HD * 1024];
    double p[16][STEP_KEYS], v[STEP_KEYS][MAX_HD];
    double worst_error = 0.0;
    int worst_hd = 0;
    for (int hd = 8; hd <= MAX_HD; hd *= 2) {
        for (int r = 0; r < 16; r++)
            for (int key = 0; key < STEP_KEYS; key++)
                p[r][key] = (double)host_draw(&state, -1000, 1000) / 1000.0;
        for (int key = 0; key < STEP_KEYS; key++)
            for (int f = 0; f < hd; f++)
                v[key][f] = (double)host_draw(&state, -1000, 1000) / 1000.0;
        for (int k = 0; k < MAX_HD * VALUES_T_STRIDE; k++)
            stage[k] = NAN;
        for (int f = 0; f < hd; f++)
            for (int key = 0; key < STEP_KEYS; key++)
                stage[f * VALUES_T_STRIDE + key] = (float)v[key][f];
        double o[16][MAX_HD] = {};
        for (int kg = 0; kg < 4; kg++) {
            double a_tile[16][8], b_tile[8][8];
            for (int lane = 0; lane < 32; lane++) {
                float c[4], a[4];
                for (int i = 0; i < 4; i++)
                    c[i] = (float)p[c_row(lane, i)][8 * kg + c_col(lane, i)];
                weights_as_a(c, a);
                for (int e = 0; e < 4; e++)
                    a_tile[a_row(lane, e)][a_k(lane, e)] = a[e];
            }
            for (int dn = 0; dn < hd / 8; dn++) {
                for (int lane = 0; lane < 32; lane++) {
                    const int offset = value_pair(kg, dn, lane >> 2, lane % 4);
                    b_tile[b_k(lane, 0)][b_n(lane)] = stage[offset];
                    b_tile[b_k(lane, 1)][b_n(lane)] = stage[offset + 1];
                }
                for (int r = 0; r < 16; r++)
                    for (int n = 0; n < 8; n++)
                        for (int k = 0; k < 8; k++)
                            o[r][8 * dn + n] += a_tile[r][k] * b_tile[k][n];
            }
        }
        for (int r = 0; r < 16; r++)
            for (int f = 0; f < hd; f++) {
                double exact = 0.0;
                for (int key = 0; key < STEP_KEYS; key++)
                    exact += (double)(float)p[r][key] * (double)(float)v[key][f];
                const double error = fabs(o[r][f] - exact);
                if (!(error <= worst_error))
                    worst_error = error, worst_hd = hd;
            }
    }
    if (worst_error <= 1e-9)
        host_check(1, "P V", "one step through your functions equals the product, d = 8 to %d",
                   MAX_HD);
    else
        host_check(0, "P V", "one step through your functions is off by %.3g at d = %d",
                   worst_error, worst_hd);
    return host_check_status();
}
