/* plots/figures/figure.h - what the figure programs share.
 *
 * A figure program #includes the chapter source whose index functions it
 * draws, is compiled for the host (the device side only to PTX, so that
 * ptxas never runs), and writes what gnuplot reads into the folder named by
 * its one argument: NAME.dat (the data), NAME.vars.gp (numbers the script
 * prints) and NAME.caption (one line). plots/figures.mk runs it.
 */
#ifndef WORKBOOK_FIGURE_H
#define WORKBOOK_FIGURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Opens DIR/NAME for writing, or exits with status 2 and the reason. */
static FILE *figure_open(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    if (!file) {
        perror(path);
        exit(2);
    }
    return file;
}

/* The folder the program writes into: its one argument. */
static const char *figure_folder(int argc, char **argv, const char *usage)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR   (%s)\n", argv[0], usage);
        exit(2);
    }
    return argv[1];
}

/* Writes DIR/FILE, one line of text, and closes it. */
static void figure_write_line(const char *dir, const char *file, const char *format, ...)
{
    FILE *out = figure_open(dir, file);
    va_list args;
    va_start(args, format);
    vfprintf(out, format, args);
    va_end(args);
    fputc('\n', out);
    if (fclose(out) != 0) {
        perror(file);
        exit(2);
    }
}

static void figure_close(FILE *file, const char *name)
{
    if (fclose(file) != 0) {
        perror(name);
        exit(2);
    }
}

#endif
