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
#include <time.h>

#include "harness/csv.h"
#include "csv_reader.h"
#include "headline.h"
#include "markdown.h"

#define TAIL "NVIDIA H200,13.0,abc1234,2025-01-02"
#define GOOD_ROW "2,naive,trimul,B=8 T=1024 C=768 NH=12,3.9,3.8,4.2,1653.5,71.0," TAIL

static const char list_text[] =
    "trimul 1 champion simt fp32 sm_75 cublas-permute cublas_permute_kernel\n"
    "trimul 2 best simt fp32 sm_75 naive naive_kernel\n"
    "trimul 8 best tensor tf32 sm_80 tf32 tf32_kernel\n"
    "msa 6 best simt fp32 sm_75 fused fused_kernel\n"
    "msa 6 torch simt fp32 sm_75 torch-eager -\n";

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

/* A row of naive at B=8 T=256 C=768 NH=12 with one field changed: the
 * chapter, a time, the shape, the gpu or the date. */
static void row_with(char *row, size_t capacity, const char *chapter, const char *median,
                     const char *shape, const char *gpu, const char *date)
{
    snprintf(row, capacity, "%s,naive,trimul,%s,%s,0.4,0.6,100,10,%s,13.0,abc,%s\n",
             chapter ? chapter : "2", shape ? shape : "B=8 T=256 C=768 NH=12", median ? median : "0.5",
             gpu ? gpu : "NVIDIA H200", date ? date : "2025-01-02");
}

/* Rows the reader must refuse: impossible and future dates, a
 * chapter that is not the list's, numbers in other spellings than decimal,
 * a size past the int the programs take, a control character in a text. */
static void test_refuses_impossible_rows(void **state)
{
    (void)state;
    char row[512], tomorrow[16], today[16];
    time_t now = time(NULL), later = now + 24 * 60 * 60;
    struct tm day;
    strftime(today, sizeof today, "%Y-%m-%d", gmtime_r(&now, &day));
    strftime(tomorrow, sizeof tomorrow, "%Y-%m-%d", gmtime_r(&later, &day));
    const struct {
        const char *chapter, *median, *shape, *gpu, *date, *reason;
    } cases[] = {
        {NULL, NULL, NULL, NULL, "2026-02-31", "date \"2026-02-31\" is not a day of the calendar"},
        {NULL, NULL, NULL, NULL, "2025-02-29", "is not a day of the calendar"},
        {NULL, NULL, NULL, NULL, "2025-04-31", "is not a day of the calendar"},
        {NULL, NULL, NULL, NULL, "2025-13-01", "is not a date"},
        {NULL, NULL, NULL, NULL, "9999-12-31", "date \"9999-12-31\" is after today (UTC)"},
        {NULL, NULL, NULL, NULL, tomorrow, "is after today (UTC)"},
        {"99", NULL, NULL, NULL, NULL, "chapter 99, but the kernel list introduces naive in chapter 2"},
        {"3", NULL, NULL, NULL, NULL, "chapter 3, but the kernel list introduces naive in chapter 2"},
        {"02", NULL, NULL, NULL, NULL, "chapter \"02\" is not a chapter number"},
        {"+2", NULL, NULL, NULL, NULL, "chapter \"+2\" is not a chapter number"},
        {NULL, "0x1p9", NULL, NULL, NULL, "median_ms \"0x1p9\" is not a number"},
        {NULL, "0X.8p0", NULL, NULL, NULL, "median_ms \"0X.8p0\" is not a number"},
        {NULL, "+0.5", NULL, NULL, NULL, "median_ms \"+0.5\" is not a number"},
        {NULL, " 0.5", NULL, NULL, NULL, "median_ms \" 0.5\" is not a number"},
        {NULL, ".5", NULL, NULL, NULL, "median_ms \".5\" is not a number"},
        {NULL, "infinity", NULL, NULL, NULL, "median_ms \"infinity\" is not a number"},
        {NULL, NULL, "B=8 T=99999999999999999999999 C=768 NH=12", NULL, NULL,
         "a size is larger than 2147483647"},
        {NULL, NULL, "B=8 T=2147483648 C=768 NH=12", NULL, NULL, "a size is larger than 2147483647"},
        {NULL, NULL, "B=8 T=+256 C=768 NH=12", NULL, NULL, "a size is not a positive integer"},
        {NULL, NULL, "B=8 T=0256 C=768 NH=12", NULL, NULL, "a size is not a positive integer"},
        {NULL, NULL, "B=8 T=0x100 C=768 NH=12", NULL, NULL, "a size is not a positive integer"},
        {NULL, NULL, NULL, "\"NVIDIA\nH200\"", NULL, "gpu holds a control character (byte 0x0a)"},
        {NULL, NULL, NULL, "NVIDIA\tH200", NULL, "gpu holds a control character (byte 0x09)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        row_with(row, sizeof row, cases[k].chapter, cases[k].median, cases[k].shape, cases[k].gpu,
                 cases[k].date);
        expect_refused(row, 2, cases[k].reason);
    }
    /* and what stays good: a leap day, today, the largest int, a PyTorch row in chapter 6 */
    const char *good[] = {"2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100,10," TAIL "\n",
                          "2,naive,trimul,B=8 T=2147483647 C=768 NH=12,5e-1,4E-1,0.6,100,10," TAIL "\n"};
    result_set set;
    char error[1024] = "";
    for (size_t k = 0; k < 2; k++) {
        if (read_csv(good[k], &set, error, sizeof error) != 0)
            fail_msg("a good row was refused: %s", error);
        csv_reader_free(&set);
    }
    for (int k = 0; k < 2; k++) {
        row_with(row, sizeof row, NULL, NULL, NULL, NULL, k ? today : "2024-02-29");
        if (read_csv(row, &set, error, sizeof error) != 0)
            fail_msg("a good date was refused: %s", error);
        csv_reader_free(&set);
    }
    char text[1024];
    snprintf(text, sizeof text, "%s\n6,torch-eager,msa,B=1 S=512 N=256 D=256 H=8 mask=kept,"
             "1,1,1,1,1," TAIL "\n7,torch-eager,msa,B=1 S=512 N=256 D=256 H=8,1,1,1,1,1," TAIL "\n",
             CSV_HEADER);
    set = (result_set){0};
    assert_int_equal(csv_reader_text(&set, "msa.csv", text, strlen(text), &kernels, error,
                                     sizeof error), -1);
    if (!strstr(error, "msa.csv:3: malformed row: chapter 7, but the kernel list introduces "
                       "torch-eager in chapter 6"))
        fail_msg("got \"%s\"", error);
    csv_reader_free(&set);
}

/* A gpu or commit with markup reaches the tables as its characters. */
static void test_writes_fields_as_markdown_text(void **state)
{
    (void)state;
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    markdown_put(out, "<script>alert(1)</script> <img src=x onerror=alert(2)>");
    fputc('|', out);
    markdown_put(out, "NVIDIA H200 (a, b) 13.0-x");
    fputc('|', out);
    markdown_put(out, "a|b *c* _d_ `e` [f](g) $h$ &amp; \\ {i} ~j~ ^k^ @l #m");
    fclose(out);
    assert_string_equal(text, "\\<script\\>alert(1)\\</script\\> \\<img src=x onerror=alert(2)\\>"
                              "|NVIDIA H200 (a, b) 13.0-x"
                              "|a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) \\$h\\$ \\&amp; \\\\ "
                              "\\{i\\} \\~j\\~ \\^k\\^ \\@l \\#m");
    free(text);
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

/* The book's order of the cards: those measured in full (every headline
 * kernel some card measured at the default size that the card can run),
 * the newest first, then the others. One row from an unknown card comes
 * last; a card without a kernel it could run does not lead. */
static void test_cards_in_the_books_order(void **state)
{
    (void)state;
    result_set set;
    char error[1024] = "";
    const char *full_h200 =
        "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,1,1,1,1,1,NVIDIA H200,13.0,a,2025-01-02\n"
        "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,NVIDIA H200,13.0,a,2025-01-02\n"
        "8,tf32,trimul,B=8 T=1024 C=768 NH=12,1,1,1,1,1,NVIDIA H200,13.0,a,2025-01-02\n";
    char body[2048];
    snprintf(body, sizeof body, "%s"
             "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,2,2,2,1,1,NVIDIA GeForce RTX 4090,13.0,b,2025-01-04\n"
             "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,NVIDIA GeForce RTX 4090,13.0,b,2025-01-04\n"
             "8,tf32,trimul,B=8 T=1024 C=768 NH=12,2,2,2,1,1,NVIDIA GeForce RTX 4090,13.0,b,2025-01-04\n"
             "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,3,3,3,1,1,Tesla T4,13.0,c,2025-01-05\n"
             "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,Tesla T4,13.0,c,2025-01-05\n"
             "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,Mystery GPU,13.0,d,2025-01-06\n",
             full_h200);
    if (read_csv(body, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    const char **cards;
    int full, count = headline_cards(&set, &kernels, "trimul", &cards, &full);
    assert_int_equal(count, 4);
    assert_int_equal(full, 3); /* the T4 cannot run tf32 (sm_80), so it is not asked for it */
    assert_string_equal(cards[0], "Tesla T4");
    assert_string_equal(cards[1], "NVIDIA GeForce RTX 4090");
    assert_string_equal(cards[2], "NVIDIA H200");
    assert_string_equal(cards[3], "Mystery GPU");
    assert_null(cards[4]);
    free(cards);
    assert_int_equal(headline_cards(&set, &kernels, "msa", &cards, &full), 0);
    assert_null(cards[0]);
    free(cards);
    csv_reader_free(&set);

    /* a newer card that lacks a kernel it could run comes after the full one */
    snprintf(body, sizeof body, "%s"
             "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,2,2,2,1,1,NVIDIA GeForce RTX 4090,13.0,b,2025-01-04\n"
             "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,NVIDIA GeForce RTX 4090,13.0,b,2025-01-04\n"
             "2,naive,trimul,B=8 T=1024 C=768 NH=12,9,9,9,1,1,Mystery GPU,13.0,d,2025-01-06\n",
             full_h200);
    if (read_csv(body, &set, error, sizeof error) != 0)
        fail_msg("%s", error);
    count = headline_cards(&set, &kernels, "trimul", &cards, &full);
    assert_int_equal(count, 3);
    assert_int_equal(full, 1);
    assert_string_equal(cards[0], "NVIDIA H200");
    assert_string_equal(cards[1], "NVIDIA GeForce RTX 4090"); /* two headline rows */
    assert_string_equal(cards[2], "Mystery GPU");             /* one */
    free(cards);
    csv_reader_free(&set);
}

static void test_which_card_runs_which_kernel(void **state)
{
    (void)state;
    kernel_entry simt = {.needs_major = 7, .needs_minor = 5};
    kernel_entry tensor = {.needs_major = 8, .needs_minor = 0};
    kernel_entry hopper = {.needs_major = 9, .needs_minor = 0, .needs_arch_specific = 1};
    assert_true(headline_card_runs("Tesla T4", &simt));
    assert_false(headline_card_runs("Tesla T4", &tensor));
    assert_true(headline_card_runs("NVIDIA A100-SXM4-80GB", &tensor));
    assert_false(headline_card_runs("NVIDIA A100-SXM4-80GB", &hopper));
    assert_false(headline_card_runs("NVIDIA GeForce RTX 4090", &hopper));
    assert_true(headline_card_runs("NVIDIA H100 80GB HBM3", &hopper));
    assert_false(headline_card_runs("NVIDIA B200", &hopper)); /* sm_90a code runs on 9.0 alone */
    assert_true(headline_card_runs("NVIDIA B200", &tensor));
    assert_true(headline_card_runs("Mystery GPU", &hopper)); /* unknown: asked for everything */
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
        assert_int_equal(markdown_number(text, sizeof text, values[k]), 0);
        assert_string_equal(text, printed[k]);
    }
    assert_int_equal(markdown_number(text, sizeof text, 1e31), -1);
    assert_int_equal(markdown_number(text, sizeof text, HUGE_VAL), -1);
    assert_int_equal(markdown_number(text, sizeof text, -1), -1);
    assert_int_equal(markdown_number(text, 3, 4567.8), -1); /* too small a buffer */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_good_rows),
        cmocka_unit_test(test_refuses_malformed_rows),
        cmocka_unit_test(test_refuses_impossible_rows),
        cmocka_unit_test(test_writes_fields_as_markdown_text),
        cmocka_unit_test(test_refuses_values_it_cannot_print),
        cmocka_unit_test(test_refuses_a_rate_above_its_pipes_peak),
        cmocka_unit_test(test_refuses_a_wrong_header),
        cmocka_unit_test(test_accepts_an_msa_mask_and_any_kernel_without_a_list),
        cmocka_unit_test(test_newest_row_by_date_then_place),
        cmocka_unit_test(test_newest_of_each_kernel_and_shape_on_a_card),
        cmocka_unit_test(test_cards_in_the_books_order),
        cmocka_unit_test(test_which_card_runs_which_kernel),
        cmocka_unit_test(test_reads_a_folder_in_name_order),
        cmocka_unit_test(test_formats_three_significant_digits),
    };
    return cmocka_run_group_tests(tests, read_kernels, free_kernels);
}
