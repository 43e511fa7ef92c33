/* book/results.c - the measured results as the book and the README show
 * them: the tables (a short headline, and all of them) and the data gnuplot
 * draws the plots from, all read from the CSV files of plots/data.
 *
 * Built by book/book.mk: this file (the command line), results_rows.c (the
 * rows and cards each table and plot shows), results_tables.c (the tables),
 * plot_data.c (the plots' data), with the book's readers (book/csv_reader.c
 * and the others, tools/kernel_list.c, common/device/gpu_peaks.c).
 *
 *   results table headline  > headline.md   the champions and each chapter's best, default sizes
 *   results table all       > all.md        every kernel at every size
 *   results table summary   > summary.md    each chapter's best at every size, with the
 *                                           floors and the champions (the printed appendix)
 *   results plotdata --out DIR              what plots/NAME.gp reads, and the captions
 *   results check                           validates the CSV files
 *   options: --data DIR (plots/data) --kernels FILE (chapters/kernels.list)
 *
 * A table shows one card, and on it the newest row of each kernel and
 * shape: kernels in the order of the kernel list (the story's), shapes
 * smallest first. The cards come in the order headline_cards gives: each
 * card with a full headline, the newest first (after `make bench` on a
 * student's card, that card, then the H200 the book was measured on, for
 * comparison), then the others. The headline shows the cards with a full
 * headline (when none has one, the card with the most headline rows), the
 * table of all results every card; a plot draws the first card that can
 * draw it. A share
 * of peak is against the peak of the pipe the kernel runs on. An error
 * names its file and line and makes results exit with 1.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"

int main(int argc, char **argv)
{
    const char *data_dir = "plots/data", *kernels_path = "chapters/kernels.list", *out_dir = NULL;
    const char *command = NULL, *which = NULL; /* "table all", "plotdata", ... */
    for (int k = 1; k < argc; k++) {
        const char **option = strcmp(argv[k], "--data") == 0      ? &data_dir
                              : strcmp(argv[k], "--kernels") == 0 ? &kernels_path
                              : strcmp(argv[k], "--out") == 0     ? &out_dir
                                                                  : NULL;
        if (option && k + 1 < argc)
            *option = argv[++k];
        else if (!option && !which && argv[k][0] != '-')
            *(command ? &which : &command) = argv[k];
        else
            command = "";
    }
    command = command ? command : "";
    int is_table = strcmp(command, "table") == 0;
    int is_summary = is_table && which && strcmp(which, "summary") == 0;
    if (is_table ? !which || (strcmp(which, "headline") != 0 && strcmp(which, "all") != 0 && !is_summary)
                 : which || (strcmp(command, "plotdata") == 0) != (out_dir != NULL) ||
                       (strcmp(command, "plotdata") != 0 && strcmp(command, "check") != 0)) {
        fprintf(stderr, "usage: results table headline|all|summary | plotdata --out DIR | check, with "
                "--data DIR --kernels FILE (see book/results.c)\n");
        return 2;
    }

    char error[2048];
    if (kernel_list_read(kernels_path, &kernels, error, sizeof error) != 0 ||
        csv_reader_folder(data_dir, &kernels, &results, error, sizeof error) != 0)
        die("%s", error);
    if (strcmp(command, "check") == 0) {
        printf("%s: %d rows in %d files, all well formed\n", data_dir, results.count,
               results.file_count);
    } else if (out_dir) {
        FILE *index = open_output(out_dir, "index", "");
        for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
            write_plot_data(out_dir, index, &problems[k]);
        fclose(index);
    } else { /* an error midway stops it: book/build.sh and readme.sh then keep nothing */
        for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
            if (is_summary)
                put_summaries(stdout, &problems[k]);
            else
                put_tables(stdout, &problems[k], strcmp(which, "all") == 0);
        if (!is_summary)
            printf("GFLOP/s count the work the layer defines, whatever a kernel skips or adds: the "
                   "products of the causal triangle (key j up to query i), and every key of the MSA "
                   "layer, masked or not.\n");
    }
    return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}

