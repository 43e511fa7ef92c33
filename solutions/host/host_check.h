/* solutions/host/host_check.h - what the host-side checks of the exercises
 * share (solutions/host/NN-slug.cu, one per exercise that has one).
 *
 * A host check is a small program that includes an exercise's file (its
 * main renamed exercise_main) and runs the exercise's __host__ __device__
 * functions on the CPU: no GPU needed. Its entry is host_check_main(argc,
 * argv): the one compile of the file serves the exercise's program and its
 * check (solutions/grade.mk, main_program.cpp). The grader builds it as
 * build/FOLDER/NAME.host and runs it; it prints one line per check,
 *
 *     ok   tile_of_block: every tile on or below the diagonal once, up to 600 tiles a side
 *     FAIL tile_of_block: block 1 of 3 (2 tiles a side) is tile (0, 1), above the diagonal
 *
 * and exits 0 when every check passed, 1 otherwise, after a last line
 *
 *     host checks done: 2 passed, 0 failed
 *
 * When the grader grades, the check runs twice (probed_call.h): as the
 * probe, built with the student's file, which only answers the check's
 * calls of the student's functions, and as the referee, built with the
 * exercise as handed out, which replays those answers and gives the only
 * verdict the grader reads. A check of a
 * "predict, then measure" exercise also answers `NAME.host predict KERNEL
 * KEY=VALUE... [--card NAME|live]` with one line, "predicted_ms X", which
 * the grader divides the measured time by (predict_check.h).
 *
 * The sizes and inputs a check draws beyond its fixed ones come from the
 * grading's seed (GRADE_SEED, which the grader prints; a fixed one when the
 * check is run by hand), so that they change at each grading and a run can
 * be repeated.
 *
 * The checks compare with referees written the slow, obvious way (a
 * brute-force count, an enumeration, a reference in double), never with the
 * solution's own code, so that this folder, which the students get, gives
 * no answer away.
 */
#ifndef WORKBOOK_HOST_CHECK_H
#define WORKBOOK_HOST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probed_call.h"

static int host_check_failures, host_check_passes;

/* One check's verdict: "ok   NAME: detail" or "FAIL NAME: detail". */
static void host_check(int passed, const char *name, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    printf("%s %s: ", passed ? "ok  " : "FAIL", name);
    vprintf(format, arguments);
    printf("\n");
    va_end(arguments);
    if (!passed)
        host_check_failures++;
    else
        host_check_passes++;
}

/* The closing line and the exit status of the check program. The referee
 * also fails a record that holds more than the check's calls. */
static int host_check_status(void)
{
    if (!probed_finished())
        host_check(0, "the program's answers", "the record holds more than the check's %ld calls",
                   probed_run.calls);
    printf("host checks done: %d passed, %d failed\n", host_check_passes, host_check_failures);
    return host_check_failures ? 1 : 0;
}

/* The grading's seed: GRADE_SEED, or a fixed one. */
static unsigned long long host_seed(void)
{
    const char *seed = getenv("GRADE_SEED");
    return seed && *seed ? strtoull(seed, NULL, 10) : 20261202ull;
}

/* A whole number drawn in [low, high] from *state (a 64-bit linear
 * congruential generator: the same draws on every machine). */
static long host_draw(unsigned long long *state, long low, long high)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return low + (long)((*state >> 33) % (unsigned long long)(high - low + 1));
}

/* A float with every bit of its 24-bit significand drawn, of either sign,
 * its magnitude in [2^low_exponent, 2^(high_exponent + 1)). */
static float host_full_float(unsigned long long *state, int low_exponent, int high_exponent)
{
    const long fraction = host_draw(state, 0, (1L << 23) - 1);
    const int exponent = (int)host_draw(state, low_exponent, high_exponent);
    const float magnitude = ldexpf(1.0f + (float)fraction * 0x1p-23f, exponent);
    return host_draw(state, 0, 1) ? -magnitude : magnitude;
}

/* The value of KEY=VALUE among argv[first..argc), or fallback. */
static long host_size(int argc, char **argv, int first, const char *key, long fallback)
{
    const size_t length = strlen(key);
    for (int k = first; k < argc; k++)
        if (strncmp(argv[k], key, length) == 0 && argv[k][length] == '=')
            return strtol(argv[k] + length + 1, NULL, 10);
    return fallback;
}

/* How many 32-byte sectors and how many accesses of the warp's 32 addresses
 * (byte offsets, each `bytes` wide, aligned to it): the memory system serves
 * a warp's access by the sectors its addresses fall in. */
static int host_sectors(const long *byte_offsets, int count, int bytes)
{
    long seen[32 * 4];
    int sectors = 0;
    for (int k = 0; k < count; k++)
        for (long sector = byte_offsets[k] / 32; sector <= (byte_offsets[k] + bytes - 1) / 32;
             sector++) {
            int known = 0;
            for (int s = 0; s < sectors; s++)
                known |= seen[s] == sector;
            if (!known && sectors < (int)(sizeof seen / sizeof seen[0]))
                seen[sectors++] = sector;
        }
    return sectors;
}

/* The wavefronts a warp's access to shared memory takes: 32 banks of 4
 * bytes, word w in bank w % 32; one wavefront per distinct word a bank must
 * deliver (threads reading the same word share it). word_offsets are in
 * 4-byte words, one per lane that takes part. */
static int host_wavefronts(const long *word_offsets, int count)
{
    int worst = 0;
    for (int bank = 0; bank < 32; bank++) {
        long words[32];
        int distinct = 0;
        for (int k = 0; k < count; k++) {
            if (((word_offsets[k] % 32) + 32) % 32 != bank)
                continue;
            int known = 0;
            for (int w = 0; w < distinct; w++)
                known |= words[w] == word_offsets[k];
            if (!known)
                words[distinct++] = word_offsets[k];
        }
        if (distinct > worst)
            worst = distinct;
    }
    return worst;
}

#endif
