/* headline.c - what the book shows each problem at, and on which cards.
 * See headline.h. */
#include "headline.h"

#include <stdlib.h>
#include <string.h>

#include "card_reader.h"
#include "problems/msa_reference.h"
#include "problems/triangle_reference.h"

const char *headline_default_shape(const char *problem)
{
    return strcmp(problem, "trimul") == 0 ? TRIANGLE_DEFAULT_SHAPE
           : strcmp(problem, "msa") == 0  ? MSA_HEADLINE_SHAPE
                                          : NULL;
}

/* The first champion of a problem in the list, or NULL. */
static const char *first_champion(const kernel_list *kernels, const char *problem)
{
    for (int k = 0; k < kernels->count; k++)
        if (kernels->entries[k].role == KERNEL_CHAMPION &&
            strcmp(kernels->entries[k].problem, problem) == 0)
            return kernels->entries[k].name;
    return NULL;
}

const char *headline_shape(const result_set *set, const kernel_list *kernels,
                                      const char *problem, char shape[128])
{
    const char *default_shape = headline_default_shape(problem);
    const char *champion = first_champion(kernels, problem);
    if (!default_shape)
        return NULL;
    snprintf(shape, 128, "%s mask=kept", default_shape);
    if (!champion || !csv_reader_newest(set, champion, shape, NULL))
        snprintf(shape, 128, "%s", default_shape);
    return shape;
}

int headline_card_runs(const char *gpu, const kernel_entry *kernel)
{
    const gpu_card *card = gpu_card_find(gpu);
    if (!card)
        return 1;
    if (kernel->needs_arch_specific) /* sm_90a code runs on 9.0 alone */
        return card->major == kernel->needs_major && card->minor == kernel->needs_minor;
    return card->major > kernel->needs_major ||
           (card->major == kernel->needs_major && card->minor >= kernel->needs_minor);
}

/* Whether a card can run a kernel, as headline_card_runs says for a card
 * the peaks table knows; for one it does not, as its own rows say: a
 * program measures every kernel the card can run and skips the others, so
 * such a card runs what needs no more than the most any kernel it measured
 * needs (an sm_90a kernel only if it measured one). */
static int card_runs_as_measured(const result_set *set, const kernel_list *kernels, const char *gpu,
                                 const kernel_entry *kernel)
{
    if (gpu_card_find(gpu))
        return headline_card_runs(gpu, kernel);
    int most = 0, arch_specific = 0; /* major * 10 + minor */
    for (int k = 0; k < set->count; k++) {
        const result_row *row = &set->rows[k];
        if (row->kernel < 0 || strcmp(row->field[RESULT_GPU], gpu) != 0)
            continue;
        const kernel_entry *measured = &kernels->entries[row->kernel];
        int needs = measured->needs_major * 10 + measured->needs_minor;
        most = needs > most ? needs : most;
        arch_specific |= measured->needs_arch_specific;
    }
    int needs = kernel->needs_major * 10 + kernel->needs_minor;
    return kernel->needs_arch_specific ? arch_specific && needs <= most : needs <= most;
}

/* What the order of the cards is decided by. */
typedef struct {
    const char *gpu;
    const result_row *newest;  /* its newest row of the problem */
    int headline_rows;         /* headline kernels it measured at the headline shape */
    int full;                  /* 1: every one it should have */
} card_rank;

static int by_gpu(const void *a, const void *b)
{
    return strcmp((*(const result_row *const *)a)->field[RESULT_GPU],
                  (*(const result_row *const *)b)->field[RESULT_GPU]);
}

/* Full headlines first, the newest first; then the most headline rows. */
static int by_rank(const void *a, const void *b)
{
    const card_rank *x = a, *y = b;
    if (x->full != y->full)
        return y->full - x->full;
    if (!x->full && x->headline_rows != y->headline_rows)
        return y->headline_rows - x->headline_rows;
    return csv_reader_newer(x->newest, y->newest) ? -1 : 1;
}

/* A champion or a chapter's best kernel, measured as itself (no replay):
 * what the headline table shows; PyTorch is shown, but not required. */
static int is_headline_kernel(const kernel_list *kernels, const result_row *row)
{
    const kernel_entry *entry = &kernels->entries[row->kernel];
    return (entry->role == KERNEL_CHAMPION || entry->role == KERNEL_BEST) &&
           strcmp(entry->name, row->field[RESULT_KERNEL]) == 0;
}

int headline_cards(const result_set *set, const kernel_list *kernels, const char *problem,
                     const char ***cards, int *full)
{
    char shape[128] = "";
    int count = 0, ranked = 0;
    *cards = NULL;
    *full = 0;
    headline_shape(set, kernels, problem, shape);
    /* the problem's rows, those of one card side by side */
    const result_row **rows = malloc((size_t)(set->count + 1) * sizeof *rows);
    if (!rows)
        return -1;
    for (int k = 0; k < set->count; k++)
        if (strcmp(set->rows[k].field[RESULT_PROBLEM], problem) == 0 && set->rows[k].kernel >= 0)
            rows[count++] = &set->rows[k];
    if (count > 1) /* qsort wants a real array, even of none */
        qsort(rows, (size_t)count, sizeof *rows, by_gpu);
    for (int k = 0; k < count; k++)
        ranked += k == 0 || strcmp(rows[k]->field[RESULT_GPU], rows[k - 1]->field[RESULT_GPU]) != 0;
    /* per card, which headline kernels it measured; and which any card did */
    size_t kernel_count = (size_t)kernels->count;
    card_rank *ranks = malloc(((size_t)ranked + 1) * sizeof *ranks);
    char *has = calloc(((size_t)ranked + 1) * (kernel_count + 1), 1);
    char *measured = calloc(kernel_count + 1, 1);
    *cards = malloc(((size_t)ranked + 1) * sizeof **cards);
    if (!ranks || !has || !measured || !*cards) {
        free(rows), free(ranks), free(has), free(measured), free(*cards);
        *cards = NULL;
        return -1;
    }
    for (int k = 0, c = -1; k < count; k++) {
        const result_row *row = rows[k];
        if (k == 0 || strcmp(row->field[RESULT_GPU], rows[k - 1]->field[RESULT_GPU]) != 0)
            ranks[++c] = (card_rank){row->field[RESULT_GPU], row, 0, 0};
        ranks[c].newest = csv_reader_newer(row, ranks[c].newest) ? row : ranks[c].newest;
        if (is_headline_kernel(kernels, row) && strcmp(row->field[RESULT_SHAPE], shape) == 0) {
            char *seen = &has[(size_t)c * kernel_count + (size_t)row->kernel];
            ranks[c].headline_rows += !*seen;
            *seen = measured[row->kernel] = 1;
        }
    }
    for (int c = 0; c < ranked; c++) {
        ranks[c].full = 1;
        for (size_t k = 0; k < kernel_count; k++)
            if (measured[k] && !has[(size_t)c * kernel_count + k] &&
                card_runs_as_measured(set, kernels, ranks[c].gpu, &kernels->entries[k]))
                ranks[c].full = 0;
        *full += ranks[c].full;
    }
    if (ranked > 1)
        qsort(ranks, (size_t)ranked, sizeof *ranks, by_rank);
    for (int c = 0; c < ranked; c++)
        (*cards)[c] = ranks[c].gpu;
    (*cards)[ranked] = NULL;
    free(rows), free(ranks), free(has), free(measured);
    return ranked;
}

/* Rows of one kernel and shape side by side, oldest first: the newest of
 * each is the last of its run. */
