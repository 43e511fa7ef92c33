/* msa_reference.c - see msa_reference.h. */
#include "problems/msa_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/rng.h"

const char *const msa_input_names[MSA_INPUT_COUNT] = {
    "msa", "mask", "ln_gamma", "ln_beta", "wq", "wk", "wv", "wg", "bg", "wo", "bo"};

int msa_input_shape(msa_size z, int which, long shape[4])
{
    switch (which) {
    case MSA_IN_MSA:
        shape[0] = z.B, shape[1] = z.S, shape[2] = z.N, shape[3] = z.D;
        return 4;
    case MSA_IN_MASK:
        shape[0] = z.B, shape[1] = z.S, shape[2] = z.N;
        return 3;
    case MSA_IN_WQ:
    case MSA_IN_WK:
    case MSA_IN_WV:
    case MSA_IN_WG:
    case MSA_IN_WO:
        shape[0] = z.D, shape[1] = z.D;
        return 2;
    default: /* ln_gamma, ln_beta, bg, bo */
        shape[0] = z.D;
        return 1;
    }
}

size_t msa_input_count(msa_size size, int which)
{
    long shape[4];
    int ndim = msa_input_shape(size, which, shape);
    size_t count = 1;
    for (int k = 0; k < ndim; k++)
        count *= (size_t)shape[k];
    return count;
}

float **msa_input_slot(msa_inputs *inputs, int which)
{
    switch (which) {
    case MSA_IN_MSA: return &inputs->msa;
    case MSA_IN_MASK: return &inputs->mask;
    case MSA_IN_LN_GAMMA: return &inputs->ln_gamma;
    case MSA_IN_LN_BETA: return &inputs->ln_beta;
    case MSA_IN_WQ: return &inputs->wq;
    case MSA_IN_WK: return &inputs->wk;
    case MSA_IN_WV: return &inputs->wv;
    case MSA_IN_WG: return &inputs->wg;
    case MSA_IN_BG: return &inputs->bg;
    case MSA_IN_WO: return &inputs->wo;
    default: return &inputs->bo;
    }
}

size_t msa_output_count(msa_size z)
{
    return (size_t)z.B * z.S * z.N * z.D;
}

int msa_inputs_alloc(msa_inputs *inputs, msa_size size)
{
    memset(inputs, 0, sizeof *inputs);
    for (int k = 0; k < MSA_INPUT_COUNT; k++) {
        float **slot = msa_input_slot(inputs, k);
        *slot = (float *)malloc(msa_input_count(size, k) * sizeof(float));
        if (!*slot) {
            msa_inputs_free(inputs);
            return -1;
        }
    }
    return 0;
}

void msa_inputs_free(msa_inputs *inputs)
{
    for (int k = 0; k < MSA_INPUT_COUNT; k++) {
        float **slot = msa_input_slot(inputs, k);
        free(*slot);
        *slot = NULL;
    }
}

/* Small and never zero: a magnitude in [0.05, 0.25] with a random sign, so a
 * bias the kernel forgets always shows. */
static void fill_small_nonzero(rng_t *rng, float *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float magnitude = rng_uniform(rng, 0.05f, 0.25f);
        values[i] = rng_next_u64(rng) >> 63 ? magnitude : -magnitude;
    }
}

void msa_draw_inputs(msa_inputs *in, msa_size z, uint64_t seed)
{
    rng_t rng;
    rng_seed(&rng, seed);
    const size_t D = (size_t)z.D;
    const float bound = 1.0f / sqrtf((float)z.D);

    rng_fill_uniform(&rng, in->ln_gamma, D, 0.75f, 1.25f);
    fill_small_nonzero(&rng, in->ln_beta, D);
    rng_fill_uniform(&rng, in->wq, D * D, -bound, bound);
    rng_fill_uniform(&rng, in->wk, D * D, -bound, bound);
    rng_fill_uniform(&rng, in->wv, D * D, -bound, bound);
    rng_fill_uniform(&rng, in->wg, D * D, -bound, bound);
    fill_small_nonzero(&rng, in->bg, D);
    rng_fill_uniform(&rng, in->wo, D * D, -bound, bound);
    fill_small_nonzero(&rng, in->bo, D);
    rng_fill_uniform(&rng, in->msa, msa_output_count(z), -1.5f, 2.5f);

    enum { KEEP_ALL, KEEP_NONE, KEEP_ONE, KEEP_SOME };
    for (long b = 0; b < z.B; b++) {
        for (long n = 0; n < z.N; n++) {
            long column = b * z.N + n;
            int kind;
            if (column < 3) {
                kind = column == 0 ? KEEP_ALL : column == 1 ? KEEP_NONE : KEEP_ONE;
            } else {
                float u = rng_uniform(&rng, 0.0f, 1.0f);
                kind = u < 0.125f ? KEEP_ALL : u < 0.25f ? KEEP_NONE : u < 0.375f ? KEEP_ONE : KEEP_SOME;
            }
            long only = kind == KEEP_ONE ? (long)(rng_next_u64(&rng) % (uint64_t)z.S) : -1;
            for (long s = 0; s < z.S; s++) {
                float keep;
                switch (kind) {
                case KEEP_ALL: keep = 1.0f; break;
                case KEEP_NONE: keep = 0.0f; break;
                case KEEP_ONE: keep = s == only ? 1.0f : 0.0f; break;
                default: keep = rng_uniform(&rng, 0.0f, 1.0f) < 0.75f ? 1.0f : 0.0f; break;
                }
                in->mask[(b * z.S + s) * z.N + n] = keep;
            }
        }
    }
}

const char *const msa_mask_kind_names[MSA_MASK_KIND_COUNT] = {"drawn", "kept", "pad"};

void msa_apply_mask_kind(float *mask, msa_size z, msa_mask_kind kind)
{
    if (kind == MSA_MASK_DRAWN)
        return;
    const long padded_from = kind == MSA_MASK_PAD ? z.S - z.S / 10 : z.S;
    for (long b = 0; b < z.B; b++)
        for (long s = 0; s < z.S; s++)
            for (long n = 0; n < z.N; n++)
                mask[(b * z.S + s) * z.N + n] = s < padded_from ? 1.0f : 0.0f;
}

int msa_check_mask(const float *mask, msa_size z, const char *path, char *message,
                   size_t capacity)
{
    const size_t count = (size_t)z.B * z.S * z.N;
    for (size_t i = 0; i < count; i++) {
        if (isfinite(mask[i]))
            continue;
        const size_t n = i % z.N, s = i / z.N % z.S, b = i / ((size_t)z.N * z.S);
        snprintf(message, capacity,
                 "%s: element %zu (b=%zu, s=%zu, n=%zu) is %s; a mask value must be finite: 0 "
                 "masks the key, any other value keeps it",
                 path, i, b, s, n, isnan(mask[i]) ? "nan" : mask[i] < 0 ? "-inf" : "inf");
        return -1;
    }
    return 0;
}

msa_mask_census msa_count_mask_columns(const float *mask, msa_size z)
{
    msa_mask_census census = {0, 0, 0, 0};
    for (long b = 0; b < z.B; b++) {
        for (long n = 0; n < z.N; n++) {
            long kept = 0;
            for (long s = 0; s < z.S; s++)
                kept += mask[(b * z.S + s) * z.N + n] != 0.0f;
            if (kept == z.S)
                census.all_kept++;
            else if (kept == 0)
                census.all_masked++;
            else if (kept == 1)
                census.single_kept++;
            else
                census.partial++;
        }
    }
    return census;
}

double msa_useful_flops(msa_size z)
{
    double S = z.S, N = z.N, D = z.D;
    return z.B * (10.0 * S * N * D * D + 4.0 * N * S * S * D);
}

double msa_compulsory_bytes(msa_size z)
{
    double activations = 2.0 * msa_output_count(z); /* msa in, out out */
    double mask = (double)z.B * z.S * z.N;
    double parameters = 5.0 * z.D * z.D + 4.0 * z.D;
    return 4.0 * (activations + mask + parameters);
}

/* y[s][o] = sum_i x[s][i] * w[o][i] for an S x D block x and a D x D weight. */
static void project(double *y, const double *x, const float *w, int S, int D)
{
    for (int s = 0; s < S; s++) {
        for (int o = 0; o < D; o++) {
            double sum = 0.0;
            for (int i = 0; i < D; i++)
                sum += x[(size_t)s * D + i] * (double)w[(size_t)o * D + i];
            y[(size_t)s * D + o] = sum;
        }
    }
}

/* LayerNorm over the D features of each row of column (b, n), biased variance. */
static void layer_norm_column(double *x, const msa_inputs *in, msa_size z, long b, long n)
{
    const int S = z.S, D = z.D;
    for (int s = 0; s < S; s++) {
        const float *row = in->msa + (((size_t)b * S + s) * z.N + n) * D;
        double mean = 0.0, variance = 0.0;
        for (int i = 0; i < D; i++)
            mean += row[i];
        mean /= D;
        for (int i = 0; i < D; i++)
            variance += (row[i] - mean) * (row[i] - mean);
        variance /= D;
        double inverse_std = 1.0 / sqrt(variance + MSA_LAYERNORM_EPS);
        for (int i = 0; i < D; i++)
            x[(size_t)s * D + i] = (row[i] - mean) * inverse_std * in->ln_gamma[i] + in->ln_beta[i];
    }
}

/* One column (b, n), every step of the formula in its own loop. The buffers
 * x, q, k, v, g and o hold S x D values each, weights S values. */
static void reference_column(double *out, const msa_inputs *in, msa_size z, long b, long n,
                             double *x, double *q, double *k, double *v, double *g, double *o,
                             double *weights)
{
    const int S = z.S, D = z.D, d = z.D / z.H;

    layer_norm_column(x, in, z, b, n);

    /* The four projections; the gate gets its bias and the sigmoid. */
    project(q, x, in->wq, S, D);
    project(k, x, in->wk, S, D);
    project(v, x, in->wv, S, D);
    project(g, x, in->wg, S, D);
    for (int s = 0; s < S; s++)
        for (int i = 0; i < D; i++) {
            double logit = g[(size_t)s * D + i] + in->bg[i];
            g[(size_t)s * D + i] = 1.0 / (1.0 + exp(-logit));
        }

    /* Attention per head over the kept keys of this column. */
    const double scale = 1.0 / sqrt((double)d);
    for (int h = 0; h < z.H; h++) {
        for (int s = 0; s < S; s++) {
            double largest = -INFINITY;
            int kept = 0;
            for (int j = 0; j < S; j++) {
                weights[j] = 0.0;
                if (in->mask[((size_t)b * S + j) * z.N + n] == 0.0f)
                    continue;
                double score = 0.0;
                for (int c = 0; c < d; c++)
                    score += q[(size_t)s * D + h * d + c] * k[(size_t)j * D + h * d + c];
                score *= scale;
                weights[j] = score;
                if (!kept || score > largest)
                    largest = score;
                kept++;
            }
            double total = 0.0;
            for (int j = 0; j < S; j++) {
                if (in->mask[((size_t)b * S + j) * z.N + n] == 0.0f)
                    continue;
                weights[j] = exp(weights[j] - largest);
                total += weights[j];
            }
            for (int c = 0; c < d; c++) {
                double sum = 0.0;
                if (kept) {
                    for (int j = 0; j < S; j++)
                        sum += weights[j] * v[(size_t)j * D + h * d + c];
                    sum /= total;
                }
                o[(size_t)s * D + h * d + c] = sum; /* no kept key: 0 */
            }
        }
    }

    /* Gating, then the output projection with its bias. */
    for (size_t i = 0; i < (size_t)S * D; i++)
        o[i] *= g[i];
    for (int s = 0; s < S; s++) {
        double *row = out + (((size_t)b * S + s) * z.N + n) * D;
        for (int f = 0; f < D; f++) {
            double sum = in->bo[f];
            for (int i = 0; i < D; i++)
                sum += o[(size_t)s * D + i] * (double)in->wo[(size_t)f * D + i];
            row[f] = sum;
        }
    }
}

void msa_reference(double *out, const msa_inputs *in, msa_size z)
{
    const long columns = (long)z.B * z.N;
    const size_t block = (size_t)z.S * z.D;

#pragma omp parallel
    {
        double *buffers = (double *)malloc((6 * block + (size_t)z.S) * sizeof(double));
        if (!buffers) {
            fprintf(stderr, "msa_reference: out of host memory\n");
            exit(EXIT_FAILURE);
        }
#pragma omp for schedule(dynamic, 1)
        for (long column = 0; column < columns; column++)
            reference_column(out, in, z, column / z.N, column % z.N, buffers, buffers + block,
                             buffers + 2 * block, buffers + 3 * block, buffers + 4 * block,
                             buffers + 5 * block, buffers + 6 * block);
        free(buffers);
    }
}

double msa_scale_logits(msa_inputs *in, msa_size z, double largest)
{
    const size_t block = (size_t)z.S * z.D;
    const int d = z.D / z.H;
    double found = 0.0;
    double *buffers = (double *)malloc(3 * block * sizeof(double));
    if (!buffers) {
        fprintf(stderr, "msa_scale_logits: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    double *x = buffers, *q = buffers + block, *k = buffers + 2 * block;
    double highest = 0.0, lowest = 0.0; /* the largest and the smallest logit */
    for (long column = 0; column < (long)z.B * z.N; column++) {
        layer_norm_column(x, in, z, column / z.N, column % z.N);
        project(q, x, in->wq, z.S, z.D);
        project(k, x, in->wk, z.S, z.D);
        const long b = column / z.N, n = column % z.N;
        for (int h = 0; h < z.H; h++)
            for (int s = 0; s < z.S; s++)
                for (int j = 0; j < z.S; j++) {
                    if (in->mask[((size_t)b * z.S + j) * z.N + n] == 0.0f)
                        continue; /* a masked key's logit reaches no softmax */
                    double score = 0.0;
                    for (int c = 0; c < d; c++)
                        score += q[(size_t)s * z.D + h * d + c] * k[(size_t)j * z.D + h * d + c];
                    score /= sqrt((double)d);
                    highest = fmax(highest, score);
                    lowest = fmin(lowest, score);
                }
    }
    free(buffers);
    /* The logit of largest magnitude becomes +largest, never -largest: a
     * softmax that forgets its maximum overflows on a large positive logit
     * only, so the sign of wq's scale is chosen to make one. */
    found = highest >= -lowest ? highest : lowest;
    if (found != 0.0) {
        const float factor = (float)(largest / found);
        for (size_t i = 0; i < (size_t)z.D * z.D; i++)
            in->wq[i] *= factor;
    }
    return found;
}
