/* tests/test_csv_reader.c - cmocka tests of book/csv_reader.c: good rows
 * are read with their numbers and places, each kind of malformed row is
 * refused with its file, line and reason, the newest row wins, and values
 * print in three significant digits or not at all. Built by `make`, run by
 * `make test` from the repository root:
 *
 *   build/tests/test_csv_reader
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/csv.h"
#include "csv_reader.h"

#define TAIL "NVIDIA H200,13.0,abc1234,2025-01-02"
#define GOOD_ROW "2,naive,trimul,B=8 T=1024 C=768 NH=12,3.9,3.8,4.2,1653.5,71.0," TAIL

static const char list_text[] =
    "trimul 1 champion simt fp32 sm_75 cublas-permute cublas_permute_kernel\n"
    "trimul 2 best simt fp32 sm_75 naive naive_kernel\n"
    "trimul 8 best tensor tf32 sm_80 tf32 tf32_kernel\n"
    "msa 6 best simt fp32 sm_75 fused fused_kernel\n";

static kernel_list kernels;

static int read_kernels(void **state)
{
    (void)state;
    char error[256];
    return kernel_list_parse("test.list", list_text, &kernels, error, sizeof error);
}

static int free_kernels(void **state)
{
    (void)state;
    kernel_list_free(&kernels);
    return 0;
}

/* Reads header + body as "data/trimul.csv"; returns the status. */
static int read_csv(const char *body, result_set *set, char *error, size_t capacity)
{
    char text[4096];
    snprintf(text, sizeof text, "%s\n%s", CSV_HEADER, body);
    *set = (result_set){0};
    return csv_reader_text(set, "data/trimul.csv", text, strlen(text), &kernels, error, capacity);
}

static void test_reads_good_rows(void **state)
{
    (void)state;
    result_set set;
    char error[1024] = "";
    const char *body = GOOD_ROW "\r\n"
        "8,tf32,trimul,\"B=8 T=1024 C=768 NH=12\",0.095,0.092,0.103,67881.5,2916.0,"
        "\"NVIDIA \"\"H200\"\"\",13.0,abc1234,2025-01-03\n";
    if (read_csv(body, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    assert_int_equal(set.count, 2);
    assert_int_equal(set.rows[0].chapter, 2);
    assert_true(set.rows[0].median_ms == 3.9);
    assert_true(csv_reader_number(&set.rows[0], RESULT_GBPS) == 71.0);
    assert_int_equal(set.rows[0].line, 2);
    assert_int_equal(set.rows[1].line, 3);
    assert_int_equal(set.rows[1].kernel, 2);
    assert_string_equal(set.rows[1].field[RESULT_GPU], "NVIDIA \"H200\"");
    assert_string_equal(set.rows[0].file, "data/trimul.csv");
    csv_reader_free(&set);
}

/* The body must be refused with "data/trimul.csv:LINE: " and the reason. */
static void expect_refused(const char *body, int line, const char *reason)
{
    result_set set;
    char error[1024] = "", where[64];
    snprintf(where, sizeof where, "data/trimul.csv:%d: ", line);
    assert_int_equal(read_csv(body, &set, error, sizeof error), -1);
    if (!strstr(error, where) || !strstr(error, reason))
        fail_msg("got \"%s\", expected \"%s...%s\"", error, where, reason);
    csv_reader_free(&set);
}

static void test_refuses_malformed_rows(void **state)
{
    (void)state;
    expect_refused(GOOD_ROW "\n2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0," TAIL "\n",
                   3, "12 fields, the header has 13");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,fast,0.4,0.6,100,10," TAIL "\n", 2,
                   "median_ms \"fast\" is not a number");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.7,0.9,100,10," TAIL "\n", 2,
                   "min_ms <= median_ms <= max_ms");
    expect_refused("2,turbo,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "kernel \"turbo\" is not one of the trimul kernels");
    expect_refused("2,naive+swizzle,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "kernel \"naive+swizzle\" is not one of");
    expect_refused("6,fused,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "kernel \"fused\" is not one of the trimul kernels");
    expect_refused("2,Naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "is not a kernel name");
    expect_refused("2,naive,trimul,B=8 T=256,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "shape \"B=8 T=256\"");
    expect_refused("2,naive,trimul,B=8 T=0 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "a size is not a positive integer");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10,"
                   "NVIDIA H200,13.0,abc,29/11/2025\n", 2, "date \"29/11/2025\"");
    expect_refused("2,naive,trimul,\"B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "a quoted field is never closed");
    expect_refused("2,naive,trimul,\"B=8\"x,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "text after the closing quote of field 4");
    expect_refused("2,nai\"ve,trimul,B=8,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "a quote inside unquoted field 2");
    expect_refused(GOOD_ROW "\n\n" GOOD_ROW "\n", 3, "an empty line");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,,10," TAIL "\n", 2,
                   "gflops is empty");
    expect_refused("x,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "chapter \"x\" is not a chapter number");
    expect_refused("2,naive,triangle,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "problem \"triangle\"");
    expect_refused("6,fused,msa,B=1 S=8 N=32 D=64 H=4,0.5,0.4,0.6,100,10," TAIL "\n", 2,
                   "a msa row in trimul.csv");
}

static void test_refuses_values_it_cannot_print(void **state)
{
    (void)state;
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,4e-32,3e-32,5e-32,100,10," TAIL "\n", 2,
                   "median_ms 4e-32 is out of range");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,1e300,1e300,1e300,100,10," TAIL "\n", 2,
                   "median_ms 1e300 is out of range");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,inf,10," TAIL "\n", 2,
                   "gflops \"inf\" is not a number");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,nan,10," TAIL "\n", 2,
                   "gflops \"nan\" is not a number");
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,1e40,10," TAIL "\n", 2,
                   "gflops 1e40 is out of range");
}

static void test_refuses_a_rate_above_its_pipes_peak(void **state)
{
    (void)state;
    /* the H200's FP32 peak is 66.9 TFLOP/s; its TF32 tensor peak 535.3 */
    expect_refused("2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,70000,10," TAIL "\n", 2,
                   "gflops 70000 is 104.6% of the FP32 peak of the NVIDIA H200");
    result_set set;
    char error[1024] = "";
    if (read_csv("8,tf32,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,70000,10," TAIL "\n", &set,
                 error, sizeof error) != 0)
        fail_msg("a tensor kernel at 13%% of its peak was refused: %s", error);
    csv_reader_free(&set);
}

static void test_refuses_a_wrong_header(void **state)
{
    (void)state;
    result_set set = {0};
    char error[1024] = "";
    const char *text = "chapter,kernel\n1,naive\n";
    assert_int_equal(csv_reader_text(&set, "x.csv", text, strlen(text), NULL, error, sizeof error), -1);
    assert_non_null(strstr(error, "x.csv:1: the first line is not the header"));
    assert_int_equal(csv_reader_text(&set, "x.csv", "", 0, NULL, error, sizeof error), -1);
    assert_non_null(strstr(error, "x.csv:1: the file is empty"));
}

static void test_accepts_an_msa_mask_and_any_kernel_without_a_list(void **state)
{
    (void)state;
    result_set set = {0};
    char error[1024] = "", text[1024];
    snprintf(text, sizeof text, "%s\n6,anything+graph,msa,B=1 S=512 N=256 D=256 H=8 mask=kept,"
             "1,1,1,1,1," TAIL "\n", CSV_HEADER);
    if (csv_reader_text(&set, "msa.csv", text, strlen(text), NULL, error, sizeof error) != 0)
        fail_msg("%s", error);
    assert_int_equal(set.rows[0].kernel, -1);
    csv_reader_free(&set);
    snprintf(text, sizeof text, "%s\n6,fused,msa,B=1 S=512 N=256 D=256 H=8 mask=some,"
             "1,1,1,1,1," TAIL "\n", CSV_HEADER);
    assert_int_equal(csv_reader_text(&set, "msa.csv", text, strlen(text), NULL, error, sizeof error), -1);
    assert_non_null(strstr(error, "the mask is drawn, kept or pad"));
    csv_reader_free(&set);
}

static void test_newest_row_by_date_then_place(void **state)
{
    (void)state;
    result_set set;
    char error[1024] = "";
    const char *body =
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,NVIDIA H200,13.0,a,2025-01-03\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,8,8,8,1,1,NVIDIA H200,13.0,b,2025-01-02\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,7,7,7,1,1,NVIDIA H200,13.0,c,2025-01-03\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,6,6,6,1,1,Tesla T4,13.0,d,2025-01-01\n";
    if (read_csv(body, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    const result_row *newest = csv_reader_newest(&set, "naive", "B=8 T=1024 C=768 NH=12", NULL);
    assert_string_equal(newest->field[RESULT_COMMIT], "c");
    newest = csv_reader_newest(&set, "naive", "B=8 T=1024 C=768 NH=12", "Tesla T4");
    assert_string_equal(newest->field[RESULT_COMMIT], "d");
    assert_null(csv_reader_newest(&set, "naive", "B=8 T=99 C=768 NH=12", NULL));
    assert_string_equal(csv_reader_newest_gpu(&set, "trimul"), "NVIDIA H200");
    assert_null(csv_reader_newest_gpu(&set, "msa"));
    csv_reader_free(&set);
}

static int only_naive(const result_row *row, const void *how)
{
    return strcmp(row->field[RESULT_KERNEL], how) == 0;
}

static void test_newest_of_each_kernel_and_shape_on_a_card(void **state)
{
    (void)state;
    result_set set;
    char error[1024] = "";
    const char *body =
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,NVIDIA H200,13.0,a,2025-01-03\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,8,8,8,1,1,NVIDIA H200,13.0,b,2025-01-04\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,7,7,7,1,1,NVIDIA H200,13.0,c,2025-01-02\n"
        "2,naive,trimul,B=8 T=256 C=768 NH=12,6,6,6,1,1,NVIDIA H200,13.0,d,2025-01-01\n"
        "2,naive,trimul,B=8 T=256 C=768 NH=12,5,5,5,1,1,Tesla T4,13.0,e,2025-01-05\n"
        "1,cublas-permute,trimul,B=8 T=256 C=768 NH=12,4,4,4,1,1,NVIDIA H200,13.0,f,2025-01-01\n";
    if (read_csv(body, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    int count;
    const result_row **rows = csv_reader_newest_each(&set, "trimul", "NVIDIA H200", only_naive,
                                                     "naive", &count);
    assert_int_equal(count, 2);
    const char *commits = strcmp(rows[0]->field[RESULT_SHAPE], "B=8 T=1024 C=768 NH=12") == 0
                              ? "b d" : "d b";
    char seen[8];
    snprintf(seen, sizeof seen, "%s %s", rows[0]->field[RESULT_COMMIT], rows[1]->field[RESULT_COMMIT]);
    assert_string_equal(seen, commits);
    free(rows);
    rows = csv_reader_newest_each(&set, "trimul", "NVIDIA H200", NULL, NULL, &count);
    assert_int_equal(count, 3);
    free(rows);
    rows = csv_reader_newest_each(&set, "msa", "NVIDIA H200", NULL, NULL, &count);
    assert_int_equal(count, 0);
    free(rows);
    csv_reader_free(&set);
}

static void test_reads_a_folder_in_name_order(void **state)
{
    (void)state;
    result_set set;
    char error[1024] = "";
    if (csv_reader_folder("tests/fixtures/book/data", NULL, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    assert_int_equal(set.file_count, 2);
    assert_non_null(strstr(set.files[0], "msa.csv"));
    assert_true(set.count > 40);
    csv_reader_free(&set);
    assert_int_equal(csv_reader_folder("no/such/folder", NULL, &set, error, sizeof error), 0);
    assert_int_equal(set.count, 0);
}

static void test_formats_three_significant_digits(void **state)
{
    (void)state;
    char text[32];
    const double values[] = {0.0123456, 1.23456, 12.3456, 123.456, 4567.8, 0};
    const char *const printed[] = {"0.0123", "1.23", "12.3", "123", "4568", "0"};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(csv_reader_format(text, sizeof text, values[k]), 0);
        assert_string_equal(text, printed[k]);
    }
    assert_int_equal(csv_reader_format(text, sizeof text, 1e31), -1);
    assert_int_equal(csv_reader_format(text, sizeof text, HUGE_VAL), -1);
    assert_int_equal(csv_reader_format(text, sizeof text, -1), -1);
    assert_int_equal(csv_reader_format(text, 3, 4567.8), -1); /* too small a buffer */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_good_rows),
        cmocka_unit_test(test_refuses_malformed_rows),
        cmocka_unit_test(test_refuses_values_it_cannot_print),
        cmocka_unit_test(test_refuses_a_rate_above_its_pipes_peak),
        cmocka_unit_test(test_refuses_a_wrong_header),
        cmocka_unit_test(test_accepts_an_msa_mask_and_any_kernel_without_a_list),
        cmocka_unit_test(test_newest_row_by_date_then_place),
        cmocka_unit_test(test_newest_of_each_kernel_and_shape_on_a_card),
        cmocka_unit_test(test_reads_a_folder_in_name_order),
        cmocka_unit_test(test_formats_three_significant_digits),
    };
    return cmocka_run_group_tests(tests, read_kernels, free_kernels);
}
