/* tests/test_nsight_reader.c - cmocka tests of book/nsight_reader.c: the
 * profiler's readings are quoted from the first card of the book's order
 * that has them (or the card pinned), the card is named, the newest reading
 * counts, and a malformed file or a missing reading is refused with its
 * reason. Built by `make`, run by `make test`:
 *
 *   build/tests/test_nsight_reader
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsight_reader.h"

#define SHAPE "B=8 T=1024 C=768 NH=12"

/* A data folder whose nsight/nsight.csv holds `text`; returns its status. */
static int read_text(const char *text, nsight_set *set, char *error, size_t capacity)
{
    char dir[] = "/tmp/test_nsight_reader_XXXXXX", sub[64], path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/nsight", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/nsight.csv", sub);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    fclose(file);
    int status = nsight_read(dir, set, error, capacity);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
    return status;
}

static const char good[] =
    NSIGHT_HEADER "\n"
    "tf32x3+wgmma," SHAPE ",tf32x3_wgmma_scores,dram_pct,44.1,NVIDIA H200,abc,2026-12-04\n"
    "tf32x3+wgmma," SHAPE ",tf32x3_wgmma_scores,dram_tbs,2.12,NVIDIA H200,abc,2026-12-04\n"
    "tf32x3+wgmma," SHAPE ",tf32x3_wgmma_scores,dram_pct,61.7,NVIDIA H100 80GB HBM3,abc,2026-12-06\n"
    "tf32x3+wgmma," SHAPE ",tf32x3_wgmma_scores,dram_pct,45.0,NVIDIA H200,def,2026-12-06\n"
    "tf32x3+wgmma," SHAPE ",tf32x3_wgmma_scores,instructions_m,123.456,NVIDIA H200,def,2026-12-06\n";

/* The placeholder {{ncu|READING|KERNEL|SHAPE}} on `cards`: its status and text. */
static int quote(const nsight_set *set, const char *reading, const char *const *cards,
                 const char *pinned, char *text)
{
    char *part[4] = {"ncu", (char *)reading, "tf32x3+wgmma", SHAPE};
    return nsight_placeholder(set, part, 4, cards, pinned, text, 256);
}

static void test_the_book_cards_first_reading_the_newest(void **state)
{
    (void)state;
    nsight_set set;
    char error[512], text[256];
    assert_int_equal(read_text(good, &set, error, sizeof error), 0);
    const char *h200_first[] = {"NVIDIA H200", "NVIDIA H100 80GB HBM3", NULL};
    const char *h100_first[] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200", NULL};
    assert_int_equal(quote(&set, "dram_pct", h200_first, NULL, text), 1);
    assert_string_equal(text, "45"); /* the newer of the H200's two */
    assert_int_equal(quote(&set, "gpu", h200_first, NULL, text), 1);
    assert_string_equal(text, "NVIDIA H200");
    assert_int_equal(quote(&set, "dram_pct", h100_first, NULL, text), 1);
    assert_string_equal(text, "61.7");
    assert_int_equal(quote(&set, "gpu", h100_first, NULL, text), 1);
    assert_string_equal(text, "NVIDIA H100 80GB HBM3");
    /* a card with no reading of it (a T4's book): the card that has one */
    const char *t4_first[] = {"Tesla T4", NULL};
    assert_int_equal(quote(&set, "instructions_m", t4_first, NULL, text), 1);
    assert_string_equal(text, "123"); /* three significant digits */
    /* pinned: that card's, even where the book shows another first */
    assert_int_equal(quote(&set, "dram_pct", h200_first, "H100", text), 1);
    assert_string_equal(text, "61.7");
    /* a reading the pinned card lacks is refused, not taken from another */
    assert_int_equal(quote(&set, "dram_tbs", h200_first, "H100", text), -1);
    assert_non_null(strstr(text, "no Nsight Compute reading dram_tbs"));
    assert_int_equal(quote(&set, "l1_pct", h200_first, NULL, text), -1);
    assert_non_null(strstr(text, "make nsight"));
    char *wrong[3] = {"ncu", "dram_pct", "tf32x3+wgmma"};
    assert_int_equal(nsight_placeholder(&set, wrong, 3, h200_first, NULL, text, sizeof text), -1);
    char *other[4] = {"median_ms", "tf32x3+wgmma", SHAPE, NULL};
    assert_int_equal(nsight_placeholder(&set, other, 3, h200_first, NULL, text, sizeof text), 0);
    nsight_free(&set);
}

static void expect_refused(const char *text, const char *why)
{
    nsight_set set;
    char error[512] = "";
    assert_int_equal(read_text(text, &set, error, sizeof error), -1);
    if (!strstr(error, why))
        fail_msg("expected \"%s\" in \"%s\"", why, error);
}

static void test_malformed_files_are_refused(void **state)
{
    (void)state;
    expect_refused("kernel,reading\n", ":1: the first line is not the header");
    expect_refused(NSIGHT_HEADER "\nk," SHAPE ",f,dram_pct,44,NVIDIA H200,abc\n",
                   ":2: malformed row: not 8 fields");
    expect_refused(NSIGHT_HEADER "\nk," SHAPE ",f,dram_pct,lots,NVIDIA H200,abc,2026-12-06\n",
                   "not a number");
    expect_refused(NSIGHT_HEADER "\nk," SHAPE ",f,dram_pct,-1,NVIDIA H200,abc,2026-12-06\n",
                   "not a number");
    expect_refused(NSIGHT_HEADER "\nk," SHAPE ",f,,1,NVIDIA H200,abc,2026-12-06\n", "empty field");
    expect_refused(NSIGHT_HEADER "\nk," SHAPE ",f,gpu,1,NVIDIA H200,abc,2026-12-06\n",
                   "a reading named gpu");
}

static void test_no_file_no_readings(void **state)
{
    (void)state;
    nsight_set set;
    char error[256];
    assert_int_equal(nsight_read("/tmp/no such folder", &set, error, sizeof error), 0);
    assert_int_equal(set.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_book_cards_first_reading_the_newest),
        cmocka_unit_test(test_malformed_files_are_refused),
        cmocka_unit_test(test_no_file_no_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
