/* msa_reference.h - problem B, MSA column-wise gated self-attention (the
 * AlphaFold 2 Evoformer layer; docs/design.md, "The two problems"), on the CPU: sizes, the
 * input tensors and how they are drawn, work counts, and the referee.
 * Plain C, so the host unit tests can check it by hand on tiny cases.
 *
 *   msa    float32 (B, S, N, D)    S sequences of N residues, D features
 *   mask   float32 (B, S, N)       1 keep, 0 padding
 *   parameters: ln_gamma, ln_beta (D); wq, wk, wv (D, D); wg (D, D), bg (D);
 *               wo (D, D), bo (D); every W stored W[out][in]
 *   out    float32 (B, S, N, D)
 *
 * For each b and residue column n, with X = msa[b, :, n, :] (S x D):
 *   X = LayerNorm(X) over D (eps 1e-5, biased variance)
 *   Q = X Wq^T, K = X Wk^T, V = X Wv^T, G = sigmoid(X Wg^T + bg)
 *   per head h (H heads of d = D / H): A = softmax over the kept keys j of
 *   Q_h K_h^T / sqrt(d), O_h = A V_h; a query with no kept key gets O_h = 0
 *   out[b, :, n, :] = (G * concat_h O_h) Wo^T + bo
 */
#ifndef WORKBOOK_MSA_REFERENCE_H
#define WORKBOOK_MSA_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSA_LAYERNORM_EPS 1e-5

/* The book's headline size of the MSA layer (the program's own default is
 * the small case its runner names), as the CSV's shape column writes it,
 * before its mask. */
#define MSA_HEADLINE_SHAPE "B=1 S=512 N=256 D=256 H=8"

typedef struct {
    int B, S, N, D, H;   /* head size d = D / H */
} msa_size;

/* The input tensors, in the order of msa_input_names (the .npy file names). */
enum {
    MSA_IN_MSA,
    MSA_IN_MASK,
    MSA_IN_LN_GAMMA,
    MSA_IN_LN_BETA,
    MSA_IN_WQ,
    MSA_IN_WK,
    MSA_IN_WV,
    MSA_IN_WG,
    MSA_IN_BG,
    MSA_IN_WO,
    MSA_IN_BO,
    MSA_INPUT_COUNT
};

/* "msa", "mask", "ln_gamma", "ln_beta", "wq", "wk", "wv", "wg", "bg", "wo", "bo" */
extern const char *const msa_input_names[MSA_INPUT_COUNT];
#define MSA_OUTPUT_NAME "out"

/* Host copies of every input. */
typedef struct {
    float *msa, *mask;
    float *ln_gamma, *ln_beta;
    float *wq, *wk, *wv;
    float *wg, *bg;
    float *wo, *bo;
} msa_inputs;

/* The shape of input `which` (an MSA_IN_ value); returns its number of
 * dimensions (1 to 4). */
int msa_input_shape(msa_size size, int which, long shape[4]);
size_t msa_input_count(msa_size size, int which);
/* The field of inputs that holds tensor `which`. */
float **msa_input_slot(msa_inputs *inputs, int which);
size_t msa_output_count(msa_size size);               /* B*S*N*D, shape as msa */

/* Allocates every tensor (uninitialised). Returns 0, or -1 when out of memory
 * (nothing is left allocated). */
int msa_inputs_alloc(msa_inputs *inputs, msa_size size);
void msa_inputs_free(msa_inputs *inputs);

/* Draws every input from the seeded generator, in this order: ln_gamma,
 * ln_beta, wq, wk, wv, wg, bg, wo, bo, msa, mask.
 *   weights  uniform in +-1/sqrt(D)
 *   ln_gamma uniform in [0.75, 1.25]; ln_beta, bg, bo: magnitude in
 *            [0.05, 0.25] with a random sign (small, never zero)
 *   msa      uniform in [-1.5, 2.5) (a nonzero mean for LayerNorm to remove)
 *   mask     per column (b, n): column 0 keeps every key, column 1 none,
 *            column 2 exactly one; the others are all-kept, all-masked or
 *            single-kept with probability 1/8 each, otherwise each key is
 *            kept with probability 3/4. */
void msa_draw_inputs(msa_inputs *inputs, msa_size size, uint64_t seed);

/* The kinds of mask a run can use (docs/design.md, "Mask kinds"); the CSV's
 * shape ends with its name. */
typedef enum {
    MSA_MASK_DRAWN, /* msa_draw_inputs' adversarial mix: what the checks use */
    MSA_MASK_KEPT,  /* every key kept, as in most real MSAs */
    MSA_MASK_PAD,   /* the last tenth of the sequences masked in every column */
    MSA_MASK_KIND_COUNT
} msa_mask_kind;

/* "drawn", "kept", "pad" */
extern const char *const msa_mask_kind_names[MSA_MASK_KIND_COUNT];

/* Overwrites the mask with kind `kind` (MSA_MASK_DRAWN leaves it as drawn).
 * pad masks sequences s >= S - S/10 (none when S < 10). */
void msa_apply_mask_kind(float *mask, msa_size size, msa_mask_kind kind);

/* Scales wq so that the logit Q K^T / sqrt(d) of largest magnitude that a
 * softmax of the layer sees (every head, every query, every kept key of
 * every column) becomes +largest: the check with large logits, where a
 * softmax that does not subtract its maximum overflows on that very logit,
 * under any mask. Returns that logit before the scaling, with its sign; 0,
 * and wq left as it was, when every key is masked. */
double msa_scale_logits(msa_inputs *inputs, msa_size size, double largest);

/* A mask value of 0 masks its key; any other value keeps it (the referee
 * and every kernel test mask != 0; the value is no weight). NaN and
 * infinity mean neither, so a mask read from a file is refused for them:
 * returns 0 when every value is finite, otherwise -1 with a message naming
 * path and the first bad element, "mask.npy: element 5 (b=0, s=1, n=2) is
 * nan; ...". */
int msa_check_mask(const float *mask, msa_size size, const char *path, char *message,
                   size_t capacity);

/* How many columns (b, n) of a mask keep every key, none, exactly one, or
 * some other number. */
typedef struct {
    long all_kept, all_masked, single_kept, partial;
} msa_mask_census;
msa_mask_census msa_count_mask_columns(const float *mask, msa_size size);

/* Useful work per forward: 10*S*N*D^2 (the five D x D projections, two flops
 * per multiply-add) plus 4*N*S^2*D (scores and attention times V), per batch;
 * LayerNorm, softmax and gating are not counted. */
double msa_useful_flops(msa_size size);
/* Every input read once, the output written once. */
double msa_compulsory_bytes(msa_size size);

/* The referee: out (B, S, N, D) in double, term by term as above. Parallel
 * over columns with OpenMP where the build enables it. */
void msa_reference(double *out, const msa_inputs *inputs, msa_size size);

#ifdef __cplusplus
}
#endif

#endif
