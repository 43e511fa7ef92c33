/* plots/figures/tf32_split.cu - the data of the figure `tf32-split`
 * (chapter 9): a float split into the two operands that tf32x3 hands the
 * tensor cores, bit by bit: which bits the big part keeps, which the small
 * part keeps, which are lost.
 *
 * Drawn from split_operand<false> (common/device/tf32_split.h, which
 * chapters/09-precision/precision.cuh includes),
 * the split the kernel uses, for two floats: the first of the inputs the
 * chapter programs draw (common/harness/rng.c, the default seed, uniform in
 * [-1, 1) with 24 random bits, so that its residual always fits in a TF32
 * operand and nothing is lost), and 1/3, whose 24 significant bits leave
 * the residual more bits than the tensor core keeps.
 *
 *   build/figures/bin/tf32_split OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/09-precision/precision.cuh"
#include "figure.h"

#define TF32_DROPPED 13 /* the low mantissa bits a TF32 operand does not keep */

/* The kind of each bit, as the figure colours it. */
enum { SIGN, EXPONENT, KEPT, ZERO, LOST };

static void write_bits(FILE *data, int row, uint32_t bits, int low_kind)
{
    for (int bit = 31; bit >= 0; bit--) {
        const int kind = bit == 31 ? SIGN : bit >= 23 ? EXPONENT : bit >= TF32_DROPPED ? KEPT
                                                                                       : low_kind;
        fprintf(data, "%d %d %u %d\n", 31 - bit, row, (bits >> bit) & 1u, kind);
    }
}

/* Rows `first` .. first + 2: x, its big part, its small part; and the
 * values the figure prints, as name0, name1, ... for case `which`. */
static double split_rows(FILE *data, FILE *vars, int which, int first, float x)
{
    const uint32_t low = (1u << TF32_DROPPED) - 1u;
    const tf32_pair pair = split_operand<false>(x);
    const float big = bits_as_float(pair.big), small = bits_as_float(pair.small);
    /* what the tensor core takes of the small part: its low 13 bits dropped */
    const float small_used = bits_as_float(pair.small & ~low);
    uint32_t x_bits;
    memcpy(&x_bits, &x, sizeof x_bits);
    write_bits(data, first, x_bits, KEPT);       /* the float: all 23 bits its own */
    write_bits(data, first + 1, pair.big, ZERO); /* big: 10 bits, rounded, the rest 0 */
    write_bits(data, first + 2, pair.small, LOST); /* small: its low 13 bits cut */
    const double lost = (double)x - ((double)big + (double)small_used);
    fprintf(vars, "x%d = \"%.9g\"\nbig%d = \"%.9g\"\nsmall%d = \"%.9g\"\nlost%d = \"%.3g\"\n",
            which, x, which, big, which, small, which, lost);
    fprintf(vars, "lost_bits%d = %d\n", which, (pair.small & low) != 0);
    return fabs(lost / (double)x);
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes tf32-split.dat, .vars.gp, .caption");
    rng_t rng;
    rng_seed(&rng, RNG_DEFAULT_SEED);
    const float input = rng_uniform(&rng, -1.0f, 1.0f);
    const float third = 1.0f / 3.0f;

    FILE *data = figure_open(dir, "tf32-split.dat");
    FILE *vars = figure_open(dir, "tf32-split.vars.gp");
    const double input_error = split_rows(data, vars, 0, 0, input);
    const double third_error = split_rows(data, vars, 1, 4, third);
    fprintf(vars, "dropped = %d\n", TF32_DROPPED);
    figure_close(data, "tf32-split.dat");
    figure_close(vars, "tf32-split.vars.gp");
    figure_write_line(dir, "tf32-split.caption",
                      "A float x split as split_operand does it for tf32x3: its big part keeps "
                      "10 mantissa bits, rounded; the residual x - big is exact in FP32, and the "
                      "tensor core keeps 10 of its mantissa bits. For the first input, %.9g, "
                      "nothing is lost (relative error %.2g); for 1/3, the residual's last bits "
                      "are lost (relative error %.2g)",
                      input, input_error, third_error);
    return 0;
}
