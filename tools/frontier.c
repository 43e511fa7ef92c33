/* frontier.c - `generate frontier LIST DATA DIR UPTO`: chapter 9's precision
 * frontier. For each kernel of the triangle of chapters 1 to UPTO (the
 * chapter that shows it; tried variants aside) measured at the problem's
 * default size (TRIANGLE_DEFAULT_SHAPE, common/problems/triangle_reference.h)
 * on one card: its newest median time (DATA/trimul.csv, read and checked by
 * the book's CSV reader, book/csv_reader.c) and its newest relative L2
 * error at input scale 1 (DATA/accuracy/, book/accuracy_reader.c), joined
 * by kernel. The card is the first, in the book's order of cards
 * (headline_cards), with a kernel measured both ways. Writes
 * DIR/precision-frontier.dat (time, error, kind, name, label level; kind 0
 * FP32 lanes, 1 TF32, 2 3xTF32; the level, 1 to 5 in order of time within
 * a kind, lifts labels apart) and DIR/precision-frontier.caption, for
 * plots/figures/precision-frontier.gp.
 */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_reader.h"
#include "csv_reader.h"
#include "headline.h"
#include "problems/triangle_reference.h"

/* The newest error of kernel at shape on gpu, at input scale 1, or NULL. */
static const accuracy_row *newest_error(const accuracy_set *errors, const char *kernel,
                                        const char *shape, const char *gpu)
{
    const accuracy_row *best = NULL;
    for (int k = 0; k < errors->count; k++) {
        const accuracy_row *row = &errors->rows[k];
        if (strcmp(row->kernel, kernel) == 0 && strcmp(row->shape, shape) == 0 &&
            strcmp(row->gpu, gpu) == 0 && row->input_scale == 1.0 && row->largest_logit == 0.0 &&
            (!best || strcmp(row->date, best->date) > 0 ||
             (strcmp(row->date, best->date) == 0 && row->order > best->order)))
            best = row;
    }
    return best;
}

/* The kind of e on the frontier, -1 for one it leaves out. */
static int kind_of(const kernel_entry *e, int upto)
{
    if (strcmp(e->problem, "trimul") != 0 || e->role == KERNEL_TRIED || e->role == KERNEL_TORCH ||
        e->chapter > upto)
        return -1;
    return e->pipe == GPU_PIPE_SIMT ? 0 : strcmp(e->accuracy, "tf32") == 0 ? 1 : 2;
}

int frontier_command(const char *path, const char *data_dir, const char *out, int upto)
{
    static const char shape[] = TRIANGLE_DEFAULT_SHAPE;
    kernel_list list;
    read_list(path, &list);
    result_set times;
    accuracy_set errors;
    char message[1024];
    if (csv_reader_folder(data_dir, &list, &times, message, sizeof message) != 0 ||
        accuracy_read(data_dir, &errors, message, sizeof message) != 0)
        die("%s", message);
    const char **cards;
    int full;
    if (headline_cards(&times, &list, "trimul", &cards, &full) < 0)
        die("out of memory");
    const int n = list.count;
    const result_row **time = calloc((size_t)n + 1, sizeof *time);
    const accuracy_row **error = calloc((size_t)n + 1, sizeof *error);
    int *kind = calloc((size_t)n + 1, sizeof *kind);
    if (!time || !error || !kind)
        die("out of memory");
    const char *gpu = NULL;
    for (int c = 0; cards[c] && !gpu; c++) {
        for (int k = 0; k < n; k++) {
            kind[k] = kind_of(&list.entries[k], upto);
            time[k] = kind[k] < 0 ? NULL : csv_reader_newest(&times, list.entries[k].name, shape, cards[c]);
            error[k] = kind[k] < 0 ? NULL : newest_error(&errors, list.entries[k].name, shape, cards[c]);
            if (!time[k] || !error[k])
                kind[k] = -1;
            else
                gpu = cards[c];
        }
    }
    if (!gpu)
        die("no kernel of chapters 1 to %d has both a time and an error at %s on one card", upto,
            shape);
    char data_path[4096], caption_path[4096];
    snprintf(data_path, sizeof data_path, "%s/precision-frontier.dat", out);
    snprintf(caption_path, sizeof caption_path, "%s/precision-frontier.caption", out);
    FILE *data = fopen(data_path, "w");
    if (!data)
        die("cannot write %s", data_path);
    const char *date = "";
    for (int k = 0; k < n; k++) {
        if (kind[k] < 0)
            continue;
        int faster = 0; /* the level: how many of its kind are faster, cycling 1 to 5 */
        for (int j = 0; j < n; j++)
            faster += kind[j] == kind[k] && time[j]->median_ms < time[k]->median_ms;
        fprintf(data, "%s %.3e %d %s %d\n", time[k]->field[RESULT_MEDIAN_MS], error[k]->rel_l2,
                kind[k], list.entries[k].name, 1 + faster % 5);
        if (strcmp(time[k]->field[RESULT_DATE], date) > 0)
            date = time[k]->field[RESULT_DATE];
    }
    FILE *caption = fopen(caption_path, "w");
    if (fclose(data) != 0 || !caption)
        die("cannot write %s", caption ? data_path : caption_path);
    fprintf(caption, "Error against time, every kernel of the triangle at %s (median time; "
            "relative L2 error against the double referee). Measured on the %s, %s.\n", shape,
            gpu, date);
    if (fclose(caption) != 0)
        die("cannot write %s", caption_path);
    free(time);
    free(error);
    free(kind);
    free(cards);
    csv_reader_free(&times);
    accuracy_free(&errors);
    kernel_list_free(&list);
    return 0;
}
