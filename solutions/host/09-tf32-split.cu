/* solutions/host/09-tf32-split.cu - the host check of exercise 9.1:
 * split_tf32 over a million floats drawn like the program's inputs (in
 * +-1), a million with every bit of their significand drawn (from the
 * grading's seed) at magnitudes from 2^-30 to 2^30, and the values that
 * break a rounding (ties, a carry into the exponent, zeros, powers of
 * two); and the three products emulated on dot products of full-significand
 * floats as the tensor core computes them: TF32 operands multiplied
 * exactly, the 13 low bits of an operand it is handed as it is dropped. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define split_tf32 PROBED(split_tf32)

/* What the tensor core makes of an operand: its 13 low bits dropped. */
static double as_operand(uint32_t bits)
{
    return (double)float_of(bits & 0xffffe000u);
}

/* The values that break a rounding: ties at the 13th bit, significands that
 * carry into the exponent, zeros, powers of two, the largest below 2^k. */
static float special(int k)
{
    static const uint32_t bits[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u,
                                    0x3f801000u, 0x3f803000u, 0xbf801000u, 0x3fffffffu,
                                    0x3ffff000u, 0x3fffefffu, 0x3f7fffffu, 0x00800000u,
                                    0x4effffffu, 0x307fffffu, 0x3f800fffu, 0x3f801001u};
    return float_of(bits[k % (int)(sizeof bits / sizeof bits[0])]);
}

int host_check_main(int, char **)
{
    unsigned state = 4242;
    unsigned long long drawn = host_seed();
    float x[64], y[64];
    char why[200] = "";
    int failed = 0;
    for (int k = 0; k < 2000000 + 16 && !failed; k++) {
        state = state * 1664525u + 1013904223u;
        float value = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
        if (k >= 1000000) /* full significands, any magnitude a run may hand it */
            value = k < 2000000 ? host_full_float(&drawn, -30, 30) : special(k);
        const tf32_pair pair = split_tf32(value);
        const float big = float_of(pair.big), small = float_of(pair.small);
        const double nearest = fabs((double)value - big);
        if ((pair.big & 0x1fffu) != 0) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big = %.9g is not a TF32 value (its 13 "
                     "low bits are %#x)", value, big, pair.big & 0x1fffu);
            failed = 1;
        } else if ((float)(big + small) != value || (double)big + small != value) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big %.9g + small %.9g is not x", value,
                     big, small);
            failed = 1;
        } else if (nearest > ldexp(fabs(value), -11) * 1.0000001) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big = %.9g is not the TF32 value "
                     "nearest to x", value, big);
            failed = 1;
        }
    }
    if (failed)
        host_check(0, "split_tf32", "%s", why);
    else
        host_check(1, "split_tf32", "two million floats (in +-1, and with full significands "
                   "from 2^-30 to 2^30) and the edges of a rounding: big the nearest TF32 value, "
                   "big + small exactly x");

    double worst = 0.0;
    for (int trial = 0; trial < 2000 && !failed; trial++) {
        double exact = 0.0, three = 0.0, size = 0.0;
        for (int k = 0; k < 64; k++) {
            x[k] = host_full_float(&drawn, -8, -1); /* in +-1, every bit drawn */
            y[k] = host_full_float(&drawn, -8, -1);
            const tf32_pair a = split_tf32(x[k]), b = split_tf32(y[k]);
            exact += (double)x[k] * y[k];
            size += fabs((double)x[k] * y[k]);
            three += as_operand(a.small) * as_operand(b.big) +
                     as_operand(a.big) * as_operand(b.small) +
                     as_operand(a.big) * as_operand(b.big);
        }
        const double error = fabs(three - exact) / size;
        if (error > worst)
            worst = error;
    }
    if (!failed && worst <= 1e-6)
        host_check(1, "three products", "dot products of 64 full-significand floats within "
                   "%.1e of their size in double, with the small parts cut as the tensor core "
                   "cuts them", worst);
    else if (!failed)
        host_check(0, "three products", "a dot product of 64 errs by %.2g of its size: your "
                   "split does not leave the three products FP32's accuracy", worst);
    return host_check_status();
}
