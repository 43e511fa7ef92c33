/* tests/test_card_reader.c - cmocka tests of book/card_reader.c: a card's
 * facts as CUDA reported them become its peaks and bandwidth (also for a
 * card no data sheet of gpu_peaks.c names), a later row replaces an earlier
 * one, the note says where the figures come from, and each kind of
 * malformed file is refused with its file, line and reason. Built by
 * `make`, run by `make test`:
 *
 *   build/tests/test_card_reader
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card_reader.h"
#include "device/gpu_peaks.h"
#include "harness/csv.h"

/* A file holding the header and then `rows`; its path is in `path`. */
static void write_cards(char path[64], const char *rows)
{
    strcpy(path, "/tmp/test_card_reader_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *file = fdopen(fd, "w");
    assert_non_null(file);
    fprintf(file, "%s\n%s", CSV_CARD_HEADER, rows);
    fclose(file);
}

/* card_reader_learn on a file of `rows`: its status, its message in error. */
static int learn(const char *rows, char *error, size_t capacity)
{
    char path[64];
    write_cards(path, rows);
    int status = card_reader_learn(path, error, capacity);
    unlink(path);
    return status;
}

static int forget(void **state)
{
    (void)state;
    gpu_card_forget_learned();
    return 0;
}

static double tflops(double gflops) /* to one decimal */
{
    return (double)(long)(gflops / 100.0 + 0.5) / 10.0;
}

static void test_a_card_in_no_table_gets_its_peaks(void **state)
{
    (void)state;
    char error[512] = "";
    const char *name = "NVIDIA GeForce RTX 4070";
    assert_null(gpu_card_find(name));
    assert_int_equal(learn("NVIDIA GeForce RTX 4070,8.9,46,2475,10501,192,99,36864,12.4,2026-12-06\n",
                           error, sizeof error), 0);
    const gpu_card *card = gpu_card_find(name);
    assert_non_null(card);
    assert_int_equal(card->reported, 1);
    assert_int_equal(card->sm_count, 46);
    /* 46 SMs x 128 lanes x 2 x 2.475 GHz; TF32 at the GeForce half of Ada's 512 */
    assert_true(tflops(gpu_card_peak_gflops(name, GPU_PIPE_SIMT)) == 29.1);
    assert_true(tflops(gpu_card_peak_gflops(name, GPU_PIPE_TENSOR)) == 29.1);
    /* 2 x 10.501 GHz x 24 bytes */
    assert_int_equal((int)(gpu_card_memory_gbps(name) + 0.5), 504);
    char note[256];
    assert_string_equal(card_reader_source(name, note, sizeof note),
                        "what CUDA reported on it: 46 SMs at 2.48 GHz, compute capability 8.9, "
                        "a 192-bit memory bus at 10.50 GHz");
}

static void test_reported_facts_come_before_the_data_sheet(void **state)
{
    (void)state;
    char error[512] = "", note[256];
    const char *name = "NVIDIA H200";
    assert_string_equal(card_reader_source(name, note, sizeof note), "its data sheet");
    assert_true(gpu_card_memory_gbps(name) == 4800);
    /* the card reported a lower clock than the data sheet's, then (a later
     * row) its real one: the last row counts */
    assert_int_equal(learn("NVIDIA H200,9.0,132,1755,3201,6144,227,61440,13.0,2026-12-06\n"
                           "NVIDIA H200,9.0,132,1980,3201,6144,227,61440,13.0,2026-12-07\n",
                           error, sizeof error), 0);
    assert_int_equal(gpu_card_find(name)->reported, 1);
    assert_true(tflops(gpu_card_peak_gflops(name, GPU_PIPE_SIMT)) == 66.9);
    assert_int_equal((int)(gpu_card_memory_gbps(name) + 0.5), 4917);
    /* a card whose name holds another's ("NVIDIA H200 NVL") is not this one */
    assert_string_equal(card_reader_source("NVIDIA H200 NVL", note, sizeof note), "its data sheet");
}

static void test_no_memory_clock_keeps_the_data_sheets_bandwidth(void **state)
{
    (void)state;
    char error[512] = "";
    assert_int_equal(learn("Tesla T4,7.5,40,1590,0,0,64,4096,12.4,2026-12-06\n", error,
                           sizeof error), 0);
    assert_int_equal(gpu_card_find("Tesla T4")->reported, 1);
    assert_true(gpu_card_memory_gbps("Tesla T4") == 320);
}

static void test_a_missing_file_teaches_nothing(void **state)
{
    (void)state;
    char error[512] = "";
    assert_int_equal(card_reader_learn("/tmp/no such folder/cards.csv", error, sizeof error), 0);
    assert_null(gpu_card_find("NVIDIA GeForce RTX 4070"));
}

/* Each malformed file: refused with the line and the reason. */
static void expect_refused(const char *rows, const char *why)
{
    char error[512] = "";
    assert_int_equal(learn(rows, error, sizeof error), -1);
    if (!strstr(error, why))
        fail_msg("expected \"%s\" in \"%s\"", why, error);
}

static void test_malformed_rows_are_refused(void **state)
{
    (void)state;
    expect_refused("NVIDIA X,9.0,132,1980,3201,6144,227,61440,13.0\n", ":2: malformed row: not 10 fields");
    expect_refused("NVIDIA X,9.0,132,1980,3201,6144,227,61440,13.0,2026-12-06,x\n", "not 10 fields");
    expect_refused(",9.0,132,1980,3201,6144,227,61440,13.0,2026-12-06\n", "no card name");
    expect_refused("NVIDIA X,9,132,1980,3201,6144,227,61440,13.0,2026-12-06\n", "MAJOR.MINOR");
    expect_refused("NVIDIA X,9.0,-5,1980,3201,6144,227,61440,13.0,2026-12-06\n", "whole number");
    expect_refused("NVIDIA X,9.0,132,1.98e3,3201,6144,227,61440,13.0,2026-12-06\n", "whole number");
    expect_refused("NVIDIA X,6.1,28,1582,5005,352,48,2816,12.4,2026-12-06\n", "before 7.5");
    expect_refused("NVIDIA X,9.0,132,1980,3201,6144,227,61440,13.0,2026-12-06\n"
                   "NVIDIA Y,9.0,132\n", ":3: malformed row");
    char path[64], error[512] = "";
    strcpy(path, "/tmp/test_card_reader_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "gpu,sms\n", 8), 8);
    close(fd);
    assert_int_equal(card_reader_learn(path, error, sizeof error), -1);
    unlink(path);
    assert_non_null(strstr(error, ":1: the first line is not the header"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_a_card_in_no_table_gets_its_peaks, forget),
        cmocka_unit_test_teardown(test_reported_facts_come_before_the_data_sheet, forget),
        cmocka_unit_test_teardown(test_no_memory_clock_keeps_the_data_sheets_bandwidth, forget),
        cmocka_unit_test_teardown(test_a_missing_file_teaches_nothing, forget),
        cmocka_unit_test_teardown(test_malformed_rows_are_refused, forget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
