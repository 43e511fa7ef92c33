/* tests/test_host.c - cmocka unit tests of the host code in common/: the
 * comparison, the random generator, the timing summary, the CSV rows, the
 * command line and the spelling of its numbers, the size arithmetic and the
 * triangle referee. Built by
 * `make`, run by `make test`:
 *
 *   build/tests/test_host
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/compare.h"
#include "harness/csv.h"
#include "harness/numbers.h"
#include "harness/rng.h"
#include "harness/sizes.h"
#include "harness/stats.h"
#include "problems/triangle_reference.h"

/* ------------------------------------------------------------ compare */

static const compare_spec all_fp32 = {COMPARE_ALL, 0, TOLERANCE_FP32};

static void test_compare_identical_passes(void **state)
{
    (void)state;
    float got[3] = {1.0f, -2.0f, 3.0f};
    double want[3] = {1.0, -2.0, 3.0};
    compare_result r = compare_results(got, want, 3, all_fp32);
    assert_true(r.passed);
    assert_int_equal(r.compared, 3);
    assert_true(r.rel_l2_error == 0.0);
    assert_true(r.max_abs_error == 0.0);
}

static void test_compare_nan_fails_and_is_reported(void **state)
{
    (void)state;
    float got[4] = {1.0f, NAN, 3.0f, 4.0f};
    double want[4] = {1.0, 2.0, 3.0, 4.0};
    compare_result r = compare_results(got, want, 4, all_fp32);
    assert_false(r.passed);
    assert_int_equal(r.not_finite, 1);
    assert_int_equal(r.reported_count, 1);
    assert_int_equal(r.reported[0], 1);
}

static void test_compare_inf_fails(void **state)
{
    (void)state;
    float got[2] = {INFINITY, 1.0f};
    double want[2] = {1.0, 1.0};
    compare_result r = compare_results(got, want, 2, all_fp32);
    assert_false(r.passed);
    assert_int_equal(r.not_finite, 1);
}

static void test_compare_unwritten_poisoned_output_fails(void **state)
{
    (void)state;
    /* What a kernel that forgot half its outputs leaves behind: the NaN
     * that poisoned the buffer (all bits set, as cudaMemset 0xFF writes). */
    float got[8];
    double want[8];
    memset(got, 0xFF, sizeof got);
    for (int i = 0; i < 8; i++) {
        want[i] = i + 1;
        if (i % 2 == 0)
            got[i] = (float)want[i];
    }
    compare_result r = compare_results(got, want, 8, all_fp32);
    assert_false(r.passed);
    assert_int_equal(r.not_finite, 4);
    assert_int_equal(r.reported_count, 4);
    assert_int_equal(r.reported[3], 7);
}

static void test_compare_reports_at_most_five_indices(void **state)
{
    (void)state;
    float got[10];
    double want[10];
    for (int i = 0; i < 10; i++) {
        got[i] = NAN;
        want[i] = 1.0;
    }
    compare_result r = compare_results(got, want, 10, all_fp32);
    assert_int_equal(r.not_finite, 10);
    assert_int_equal(r.reported_count, COMPARE_MAX_REPORTED);
}

static void test_compare_tolerance_edges(void **state)
{
    (void)state;
    /* want = (1, 0, ..., 0) has norm 1, so the relative error is the error. */
    double want[4] = {1.0, 0.0, 0.0, 0.0};
    float under[4] = {1.0f, 0.9e-5f, 0.0f, 0.0f};
    float over[4] = {1.0f, 1.1e-5f, 0.0f, 0.0f};
    assert_true(compare_results(under, want, 4, all_fp32).passed);
    compare_result r = compare_results(over, want, 4, all_fp32);
    assert_false(r.passed);
    assert_true(fabs(r.rel_l2_error - 1.1e-5) < 1e-9);
    assert_true(fabs(r.max_abs_error - 1.1e-5) < 1e-9);
    assert_int_equal(r.max_abs_index, 1);

    /* The same error passes under the looser TF32 tolerance. */
    compare_spec tf32 = {COMPARE_ALL, 0, TOLERANCE_TF32};
    assert_true(compare_results(over, want, 4, tf32).passed);
}

static void test_compare_zero_reference(void **state)
{
    (void)state;
    double want[2] = {0.0, 0.0};
    float zeros[2] = {0.0f, 0.0f}, nonzero[2] = {0.0f, 1e-30f};
    assert_true(compare_results(zeros, want, 2, all_fp32).passed);
    assert_false(compare_results(nonzero, want, 2, all_fp32).passed);
}

static void test_compare_lower_triangle_ignores_upper(void **state)
{
    (void)state;
    /* Two 3x3 matrices; above the diagonal is garbage, NaN and huge. */
    enum { n = 3, count = 2 * n * n };
    float got[count];
    double want[count];
    for (int k = 0; k < count; k++) {
        int row = (k / n) % n, col = k % n;
        want[k] = k + 1;
        got[k] = col <= row ? (float)(k + 1) : (col == 2 ? NAN : 1e30f);
    }
    compare_spec lower = {COMPARE_LOWER_TRIANGLE, n, TOLERANCE_FP32};
    compare_result r = compare_results(got, want, count, lower);
    assert_true(r.passed);
    assert_int_equal(r.compared, 2 * 6);

    /* ...but a NaN on or below the diagonal still fails. */
    got[n * n + 2 * n + 1] = NAN; /* second matrix, row 2, column 1 */
    r = compare_results(got, want, count, lower);
    assert_false(r.passed);
    assert_int_equal(r.reported[0], n * n + 2 * n + 1);
}

static void test_compare_empty_region_fails(void **state)
{
    (void)state;
    float got[1] = {1.0f};
    double want[1] = {1.0};
    assert_false(compare_results(got, want, 0, all_fp32).passed);
}

/* ------------------------------------------------------------ rng */

static void test_rng_is_deterministic(void **state)
{
    (void)state;
    rng_t a, b;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    for (int i = 0; i < 1000; i++)
        assert_true(rng_next_u64(&a) == rng_next_u64(&b));
}

static void test_rng_known_values(void **state)
{
    (void)state;
    /* SplitMix64 from seed 0: the published first output. */
    rng_t rng;
    rng_seed(&rng, 0);
    assert_true(rng_next_u64(&rng) == 0xE220A8397B1DCDAFull);
}

static void test_rng_seeds_differ_and_range_holds(void **state)
{
    (void)state;
    rng_t a, b;
    rng_seed(&a, 1);
    rng_seed(&b, 2);
    assert_true(rng_next_u64(&a) != rng_next_u64(&b));
    float values[4096];
    rng_fill_uniform(&a, values, 4096, -1.0f, 1.0f);
    double sum = 0.0;
    for (int i = 0; i < 4096; i++) {
        assert_true(values[i] >= -1.0f && values[i] < 1.0f);
        sum += values[i];
    }
    assert_true(fabs(sum / 4096) < 0.05); /* no gross bias */
}

/* ------------------------------------------------------------ stats */

static void test_summary_odd_and_even(void **state)
{
    (void)state;
    double odd[5] = {5, 1, 4, 2, 3};
    timing_summary s = summarize_times(odd, 5);
    assert_true(s.median_ms == 3 && s.min_ms == 1 && s.max_ms == 5 && s.reps == 5);
    double even[4] = {4, 1, 3, 2};
    s = summarize_times(even, 4);
    assert_true(s.median_ms == 2.5);
    assert_true(odd[0] == 5); /* input untouched */
}

/* ------------------------------------------------------------ csv */

static csv_row sample_row(void)
{
    csv_row row = {5, "shared", "trimul", "B=8 T=1024 C=768 NH=12", 0.1234567, 0.12, 0.13,
                   52000.04, 2000.0, "NVIDIA H200", "13.0", "abc1234", "2026-11-29"};
    return row;
}

static void test_csv_format_row(void **state)
{
    (void)state;
    csv_row row = sample_row();
    char line[512];
    int n = csv_format_row(line, sizeof line, &row);
    assert_int_equal(n, (int)strlen(line));
    assert_string_equal(line, "5,shared,trimul,B=8 T=1024 C=768 NH=12,0.123457,0.120000,"
                              "0.130000,52000.0,2000.0,NVIDIA H200,13.0,abc1234,2026-11-29");
    /* The row has exactly the header's 13 columns. */
    int commas = 0;
    for (char *c = line; *c; c++)
        commas += *c == ',';
    assert_int_equal(commas, 12);
}

static void test_csv_quotes_fields_with_commas_and_quotes(void **state)
{
    (void)state;
    csv_row row = sample_row();
    row.gpu = "Card \"X\", rev 2";
    char line[512];
    assert_true(csv_format_row(line, sizeof line, &row) > 0);
    assert_non_null(strstr(line, ",\"Card \"\"X\"\", rev 2\",13.0,"));
}

static void test_csv_refuses_small_buffer_and_missing_field(void **state)
{
    (void)state;
    csv_row row = sample_row();
    char small[20];
    assert_int_equal(csv_format_row(small, sizeof small, &row), -1);
    row.commit = NULL;
    char line[512];
    assert_int_equal(csv_format_row(line, sizeof line, &row), -1);
}

static void test_csv_append_writes_header_once(void **state)
{
    (void)state;
    char path[] = "/tmp/workbook-csv-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    csv_row row = sample_row();
    assert_int_equal(csv_append(path, &row), 0);
    assert_int_equal(csv_append(path, &row), 0);
    FILE *file = fopen(path, "r");
    char line[512];
    assert_non_null(fgets(line, sizeof line, file));
    assert_string_equal(line, CSV_HEADER "\n");
    int rows = 0;
    while (fgets(line, sizeof line, file))
        rows++;
    fclose(file);
    assert_int_equal(rows, 2);

    /* A file that is not ours is left alone. */
    file = fopen(path, "w");
    fputs("name,value\n", file);
    fclose(file);
    assert_int_equal(csv_append(path, &row), -1);
    unlink(path);
}

/* ------------------------------------------------------------ cli */

static const cli_spec triangle_spec = {
    "chapterX", "test", 4, {"B", "T", "C", "NH"}, {8, 1024, 768, 12}, 0, NULL, NULL, 0, 0, 1, 0};
static const char *const mask_names[] = {"drawn", "kept", "pad"};
static const cli_spec msa_spec = {"chapterY", "test", 5, {"B", "S", "N", "D", "H"},
                                  {2, 8, 32, 64, 4}, 1, "mask", mask_names, 3, 0, 0, 1};

static cli_status parse(const cli_spec *spec, cli_options *options, char *message, ...)
{
    char *argv[16] = {"chapterX"};
    int argc = 1;
    va_list args;
    va_start(args, message);
    for (char *arg; (arg = va_arg(args, char *)) != NULL;)
        argv[argc++] = arg;
    va_end(args);
    return cli_parse(spec, argc, argv, options, message, 256);
}

static void test_cli_defaults(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    assert_int_equal(parse(&triangle_spec, &o, message, NULL), CLI_RUN);
    assert_true(o.sizes[0] == 8 && o.sizes[1] == 1024 && o.sizes[2] == 768 && o.sizes[3] == 12);
    assert_int_equal(o.reps, CLI_DEFAULT_REPS);
    assert_null(o.kernel);
    assert_null(o.csv_path);
    assert_true(o.seed == RNG_DEFAULT_SEED);
}

static void test_cli_sizes_and_flags(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    assert_int_equal(parse(&triangle_spec, &o, message, "T=256", "NH=4", "--kernel", "naive",
                           "--reps", "20", "--csv", "out.csv", "--check-only", "--only-new",
                           "--seed", "7", NULL),
                     CLI_RUN);
    assert_true(o.sizes[1] == 256 && o.sizes[3] == 4 && o.sizes[0] == 8);
    assert_true(o.size_given[1] && o.size_given[3] && !o.size_given[0] && !o.size_given[2]);
    assert_string_equal(o.kernel, "naive");
    assert_int_equal(o.reps, 20);
    assert_string_equal(o.csv_path, "out.csv");
    assert_true(o.check_only && o.only_new);
    assert_true(o.seed == 7);
}

static void test_cli_errors(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    assert_int_equal(parse(&triangle_spec, &o, message, "--bogus", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "--bogus"));
    assert_int_equal(parse(&triangle_spec, &o, message, "S=4", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "unknown size 'S'"));
    assert_int_equal(parse(&triangle_spec, &o, message, "T=0", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "T=-4", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "T=12abc", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "T=", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "T=99999999999", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "--reps", "19", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "--reps", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "needs a value"));
    assert_int_equal(parse(&triangle_spec, &o, message, "--seed", "-1", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "stray", NULL), CLI_ERROR);
    /* --load belongs only to programs that read files. */
    assert_int_equal(parse(&triangle_spec, &o, message, "--load", "dir", NULL), CLI_ERROR);
    cli_spec files = triangle_spec;
    files.allows_files = 1;
    assert_int_equal(parse(&files, &o, message, "--load", "dir", "--save", "out", NULL), CLI_RUN);
    assert_string_equal(o.load_dir, "dir");
    assert_string_equal(o.save_dir, "out");
}

static void test_cli_size_limits_and_repeats(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    /* Sizes are int in every kernel: past INT_MAX the message names the limit. */
    assert_int_equal(parse(&triangle_spec, &o, message, "T=99999999999", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "T=99999999999 is larger than 2147483647"));
    assert_int_equal(parse(&triangle_spec, &o, message, "T=2147483648", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "T=2147483648 is larger than 2147483647"));
    assert_int_equal(parse(&triangle_spec, &o, message, "T=99999999999999999999999", NULL),
                     CLI_ERROR);
    assert_non_null(strstr(message, "is larger than 2147483647"));
    assert_int_equal(parse(&triangle_spec, &o, message, "T=2147483647", NULL), CLI_RUN);
    assert_true(o.sizes[1] == 2147483647L);
    /* Not a number is still "a positive whole number". */
    assert_int_equal(parse(&triangle_spec, &o, message, "T=-5", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "positive whole number"));

    /* A size given twice is an error, not "the last one wins". */
    assert_int_equal(parse(&triangle_spec, &o, message, "B=2", "B=3", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "B is given twice (B=2, then B=3)"));
    assert_int_equal(parse(&triangle_spec, &o, message, "B=2", "T=256", "B=2", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "B is given twice"));
}

/* KEY=VALUE for a small program's own sizes: the value, the default where
 * the key is absent, a refusal where it is malformed or out of range. */
static void test_whole_number_argument(void **state)
{
    (void)state;
    char *argv[] = {"prog", "KEYSX=3", "KEYS=64", "HS=16abc", "BIG=257", "NEG=-1", NULL};
    const int argc = 6;
    int value = 99;
    assert_int_equal(whole_number_argument(argc, argv, "KEYS", 8, 256, &value), 1);
    assert_true(value == 64); /* KEYSX=3 is another key */
    value = 99;
    assert_int_equal(whole_number_argument(argc, argv, "STAGES", 1, 64, &value), 0);
    assert_true(value == 99); /* absent: the default stays */
    assert_int_equal(whole_number_argument(argc, argv, "HS", 8, 128, &value), -1);
    assert_int_equal(whole_number_argument(argc, argv, "BIG", 8, 256, &value), -1);
    assert_int_equal(whole_number_argument(argc, argv, "NEG", 0, 10, &value), -1);
    assert_true(value == 99); /* untouched by a refusal */
}

/* Every spelling a person might try for a number, and what each is: one
 * parser, strict, for the command line and the CSV files alike. */
static void test_whole_number_spellings(void **state)
{
    (void)state;
    long long value = 7;
    const char *malformed[] = {"", " 1", "1 ", "+1", "01", "00", "-0", "0x10", "1e3", "1.0",
                               "12abc", "1_000", "\t1", "-", "--1", "99999999999999999999x"};
    for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++)
        if (whole_number_parse(malformed[k], -100, 100, &value) != WHOLE_NUMBER_MALFORMED)
            fail_msg("'%s' was not refused as malformed", malformed[k]);
    assert_int_equal(whole_number_parse(NULL, 0, 1, &value), WHOLE_NUMBER_MALFORMED);
    assert_true(value == 7); /* untouched by a refusal */
    assert_int_equal(whole_number_parse("0", 0, 10, &value), WHOLE_NUMBER_OK);
    assert_true(value == 0);
    assert_int_equal(whole_number_parse("2147483647", 1, 2147483647, &value), WHOLE_NUMBER_OK);
    assert_true(value == 2147483647);
    assert_int_equal(whole_number_parse("2147483648", 1, 2147483647, &value),
                     WHOLE_NUMBER_OUT_OF_RANGE);
    assert_int_equal(whole_number_parse("99999999999999999999999", 1, 2147483647, &value),
                     WHOLE_NUMBER_OUT_OF_RANGE);
    /* a '-' only where a negative value is in range */
    assert_int_equal(whole_number_parse("-1", 0, 10, &value), WHOLE_NUMBER_MALFORMED);
    assert_int_equal(whole_number_parse("-5", -10, 10, &value), WHOLE_NUMBER_OK);
    assert_true(value == -5);
    assert_int_equal(whole_number_parse("-9223372036854775808", LLONG_MIN, 0, &value),
                     WHOLE_NUMBER_OK);
    assert_true(value == LLONG_MIN);
    assert_int_equal(whole_number_parse("-9223372036854775809", LLONG_MIN, 0, &value),
                     WHOLE_NUMBER_OUT_OF_RANGE);
    unsigned long long seed = 7;
    assert_int_equal(whole_number_parse_unsigned("18446744073709551615", UINT64_MAX, &seed),
                     WHOLE_NUMBER_OK);
    assert_true(seed == UINT64_MAX);
    assert_int_equal(whole_number_parse_unsigned("18446744073709551616", UINT64_MAX, &seed),
                     WHOLE_NUMBER_OUT_OF_RANGE);
    assert_int_equal(whole_number_parse_unsigned(" -1", UINT64_MAX, &seed), WHOLE_NUMBER_MALFORMED);
    assert_int_equal(whole_number_parse_unsigned("-1", UINT64_MAX, &seed), WHOLE_NUMBER_MALFORMED);
}

static void test_decimal_number_spellings(void **state)
{
    (void)state;
    double value = 7;
    const char *malformed[] = {"", " 1", "1 ", "+1", "0x1p9", "0X10", "inf", "nan", "Infinity",
                               ".5", "5.", "1e", "1e+", "1,5", "1e400", "--1", "1.5.2"};
    for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++)
        if (decimal_number_parse(malformed[k], &value) == 0)
            fail_msg("'%s' was not refused", malformed[k]);
    assert_true(value == 7);
    const char *good[] = {"3.9", "0.034100", "1e-3", "-2.5E+4", "12", "4e-32"};
    const double values[] = {3.9, 0.0341, 1e-3, -2.5e4, 12, 4e-32};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        assert_int_equal(decimal_number_parse(good[k], &value), 0);
        assert_true(value == values[k]);
    }
}

/* Whole numbers have one spelling: decimal digits, no sign, blank or leading zero. */
static void test_cli_refuses_loose_numbers(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    const char *seeds[] = {" -1", "-1", "+7", "07", "7 ", "0x7", "18446744073709551616"};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++)
        if (parse(&triangle_spec, &o, message, "--seed", seeds[k], NULL) != CLI_ERROR)
            fail_msg("--seed '%s' was taken as %llu", seeds[k], (unsigned long long)o.seed);
    assert_int_equal(parse(&triangle_spec, &o, message, "--seed", "18446744073709551615", NULL),
                     CLI_RUN);
    assert_true(o.seed == UINT64_MAX);
    const char *sizes[] = {"T=+128", "T=0128", "T= 128", "T=128 ", "T=1e3", "T=0x80", "T=-0"};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        if (parse(&triangle_spec, &o, message, sizes[k], NULL) != CLI_ERROR)
            fail_msg("'%s' was taken as T=%ld", sizes[k], o.sizes[1]);
    assert_non_null(strstr(message, "must be a positive whole number"));
    const char *reps[] = {" 20", "020", "+20", "20.0"};
    for (size_t k = 0; k < sizeof reps / sizeof *reps; k++)
        if (parse(&triangle_spec, &o, message, "--reps", reps[k], NULL) != CLI_ERROR)
            fail_msg("--reps '%s' was taken as %d", reps[k], o.reps);
    assert_int_equal(parse(&triangle_spec, &o, message, "--input-scale", "0x1p-3", NULL),
                     CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "--input-scale", " 2", NULL), CLI_ERROR);
}

/* Every option is given once, as every size is: a second --reps is
 * refused, never taken in place of the first. */
static void test_cli_refuses_a_repeated_option(void **state)
{
    (void)state;
    cli_options o;
    char message[256];
    assert_int_equal(parse(&triangle_spec, &o, message, "--reps", "20", "--reps", "30", NULL),
                     CLI_ERROR);
    assert_non_null(strstr(message, "--reps is given twice"));
    assert_int_equal(parse(&triangle_spec, &o, message, "--check-only", "T=256", "--check-only",
                           NULL),
                     CLI_ERROR);
    assert_non_null(strstr(message, "--check-only is given twice"));
    assert_int_equal(parse(&triangle_spec, &o, message, "--kernel", "1", "--kernel", "naive", NULL),
                     CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &o, message, "--csv", "a.csv", "--csv", "a.csv", NULL),
                     CLI_ERROR);
    /* a value that looks like an option is the value, not a repeat */
    assert_int_equal(parse(&triangle_spec, &o, message, "--csv", "--list", "--list", NULL),
                     CLI_RUN);
    assert_string_equal(o.csv_path, "--list");
    assert_true(o.list);
}

/* --list checks --kernel and --csv before it lists. */
static void test_cli_list_checks_the_other_options(void **state)
{
    (void)state;
    const char *names[2] = {"cublas-permute", "naive"};
    const int chapters[2] = {1, 2};
    cli_options options;
    int first, last;
    char *bogus[] = {"chapterX", "--list", "--kernel", "bogus", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 4, bogus, names, chapters, NULL, 2, &options, &first, &last), 2);
    char *leading_zero[] = {"chapterX", "--list", "--kernel", "01", NULL};
    assert_int_equal(cli_start(&triangle_spec, 4, leading_zero, names, chapters, NULL, 2, &options,
                               &first, &last),
                     2);
    char *nowhere[] = {"chapterX", "--list", "--csv", "/nonexistent/x.csv", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 4, nowhere, names, chapters, NULL, 2, &options, &first, &last),
        2);
    char *errors[] = {"chapterX", "--errors", "/nonexistent/e.csv", "--list", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 4, errors, names, chapters, NULL, 2, &options, &first, &last), 2);
    char *one[] = {"chapterX", "--list", "--kernel", "naive", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 4, one, names, chapters, NULL, 2, &options, &first, &last), 0);
}

/* ------------------------------------------------------------ sizes */

static void test_size_arithmetic_saturates(void **state)
{
    (void)state;
    assert_true(size_times(6, 7) == 42);
    assert_true(size_times(0, SIZE_MAX) == 0);
    assert_true(size_times((size_t)1 << 32, (size_t)1 << 31) == (size_t)1 << 63);
    assert_true(size_times((size_t)1 << 32, (size_t)1 << 32) == SIZE_MAX);
    assert_true(size_times(SIZE_MAX, 2) == SIZE_MAX);
    assert_true(size_plus(SIZE_MAX - 1, 1) == SIZE_MAX);
    assert_true(size_plus(SIZE_MAX, 1) == SIZE_MAX);
    assert_true(size_plus(40, 2) == 42);

    /* Products that wrap a long to 0: saturated, they
     * stay above every limit. */
    size_t msa = size_times(size_times(size_times(1073741824, 1073741824), 16), 64);
    assert_true(msa == SIZE_MAX);
    size_t inputs = size_times(size_times(size_times(2097152, 2097152), 3), 4194304);
    assert_true(inputs == SIZE_MAX);
    assert_true(size_times(size_times(2, 1024), 3) == 6144);
}

static void test_size_at_most_names_the_limit(void **state)
{
    (void)state;
    char message[256];
    assert_int_equal(size_at_most(2147483647, 2147483647, "B*T*3*C", "input floats",
                                  "the kernels index with int", message, sizeof message),
                     0);
    assert_int_equal(size_at_most(2147483648u, 2147483647, "B*T*3*C", "input floats",
                                  "the kernels index with int", message, sizeof message),
                     -1);
    assert_string_equal(message, "B*T*3*C = 2147483648 input floats is more than the 2147483647 "
                                 "the kernels index with int");
    assert_int_equal(size_at_most(SIZE_MAX, 2147483647, "B*S*N", "rows",
                                  "the kernels index with int", message, sizeof message),
                     -1);
    assert_string_equal(message,
                        "B*S*N = 2^64 or more rows is more than the 2147483647 the kernels index "
                        "with int");
}

static void test_size_fits_memory(void **state)
{
    (void)state;
    char message[256];
    const size_t gb = 1000000000;
    assert_int_equal(size_fits_memory(2 * gb, 4 * gb, "host memory", "this machine has", message,
                                      sizeof message),
                     0);
    assert_int_equal(size_fits_memory(52 * gb + gb / 10, 23 * gb, "host memory", "this machine has",
                                      message, sizeof message),
                     -1);
    assert_string_equal(message,
                        "needs 52.1 GB of host memory, more than the 23.0 GB this machine has");
    assert_int_equal(size_fits_memory(SIZE_MAX, 23 * gb, "host memory", "this machine has",
                                      message, sizeof message),
                     -1);
    assert_string_equal(message,
                        "needs 2^64 or more bytes of host memory, more than the 23.0 GB this "
                        "machine has");
    /* An unknown amount (0) refuses nothing. */
    assert_int_equal(size_fits_memory(SIZE_MAX, 0, "host memory", "this machine has", message,
                                      sizeof message),
                     0);
    assert_true(host_memory_bytes() > 0);
}

/* The shared memory of chapters 5 and 8's tiles at the head sizes the
 * cards need split: KB figures are the CUDA guide's per-block limits. */
static void test_split_k_count(void **state)
{
    (void)state;
    const size_t kb = 1024, row = 3 * 132 * 4; /* chapter 5's three tiles, per value of k */
    assert_int_equal(split_k_count(64, 16, row, 0, 227 * kb), 64);  /* H200: one launch */
    assert_int_equal(split_k_count(64, 16, row, 0, 99 * kb), 64);   /* 99 KB: just fits */
    assert_int_equal(split_k_count(64, 16, row, 0, 64 * kb), 32);   /* T4: two of 32 */
    assert_int_equal(split_k_count(128, 16, row, 0, 163 * kb), 64); /* A100: two of 64 */
    assert_int_equal(split_k_count(128, 16, row, 0, 64 * kb), 32);  /* T4: four of 32 */
    /* Chapter 8's three tiles of 128 rows of k + 4 floats at HS = 128 on 99 KB:
     * 56 values fit, three parts; evened out, 48 + 48 + 32. */
    const size_t tile_row = 3 * 128 * 4;
    assert_int_equal(split_k_count(128, 8, tile_row, 4 * tile_row, 99 * kb), 48);
    assert_int_equal(split_k_count(48, 16, row, 0, 64 * kb), 32);  /* parts of 32 and 16 */
    assert_int_equal(split_k_count(64, 16, row, 0, 16 * row - 1), 0); /* not one chunk */
}

static void test_cli_find_kernel(void **state)
{
    (void)state;
    const char *names[3] = {"cublas-permute", "cublas-direct", "naive"};
    char message[256];
    assert_int_equal(cli_find_kernel("naive", names, 3, message, sizeof message), 2);
    assert_int_equal(cli_find_kernel("1", names, 3, message, sizeof message), 0);
    assert_int_equal(cli_find_kernel("3", names, 3, message, sizeof message), 2);
    assert_int_equal(cli_find_kernel("0", names, 3, message, sizeof message), -1);
    assert_int_equal(cli_find_kernel("4", names, 3, message, sizeof message), -1);
    assert_int_equal(cli_find_kernel("fast", names, 3, message, sizeof message), -1);
    assert_non_null(strstr(message, "3=naive"));
    assert_int_equal(cli_find_kernel("01", names, 3, message, sizeof message), -1);
    assert_int_equal(cli_find_kernel(" 1", names, 3, message, sizeof message), -1);
    assert_int_equal(cli_find_kernel("+1", names, 3, message, sizeof message), -1);
}

static void test_cli_choose_kernels(void **state)
{
    (void)state;
    const char *names[3] = {"cublas-permute", "cublas-direct", "naive"};
    const int chapters[3] = {1, 1, 2};
    cli_options options;
    memset(&options, 0, sizeof options);
    int first = -7, last = -7;
    assert_int_equal(cli_choose_kernels("t", &options, names, chapters, NULL, 3, &first, &last),
                     -1);
    assert_int_equal(first, 0);
    assert_int_equal(last, 2);
    options.kernel = "naive";
    assert_int_equal(cli_choose_kernels("t", &options, names, chapters, NULL, 3, &first, &last),
                     -1);
    assert_int_equal(first, 2);
    assert_int_equal(last, 2);
    options.kernel = "fast";
    assert_int_equal(cli_choose_kernels("t", &options, names, chapters, NULL, 3, &first, &last), 2);
    options.kernel = NULL;
    assert_int_equal(cli_choose_kernels("t", &options, names, chapters, NULL, CLI_MAX_KERNELS + 1,
                                        &first, &last),
                     2);
    options.list = 1;
    assert_int_equal(cli_choose_kernels("t", &options, names, chapters, NULL, 3, &first, &last), 0);
}

static void test_cli_runs_kernel(void **state)
{
    (void)state;
    cli_options options;
    memset(&options, 0, sizeof options);
    assert_true(cli_runs_kernel(&options, 1, 8));  /* every contender races */
    assert_true(cli_runs_kernel(&options, 8, 8));
    options.only_new = 1;
    assert_false(cli_runs_kernel(&options, 5, 8)); /* --only-new: only chapter 8's */
    assert_true(cli_runs_kernel(&options, 8, 8));
}

static void test_cli_start(void **state)
{
    (void)state;
    const char *names[2] = {"cublas-permute", "naive"};
    const int chapters[2] = {1, 2};
    cli_options options;
    int first = -7, last = -7;
    char *run[] = {"chapterX", "T=256", "--kernel", "2", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 4, run, names, chapters, NULL, 2, &options, &first, &last), -1);
    assert_int_equal(options.sizes[1], 256);
    assert_int_equal(first, 1);
    assert_int_equal(last, 1);
    char *help[] = {"chapterX", "--help", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 2, help, names, chapters, NULL, 2, &options, &first, &last), 0);
    char *bad[] = {"chapterX", "T=abc", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 2, bad, names, chapters, NULL, 2, &options, &first, &last), 2);
    char *unknown[] = {"chapterX", "--kernel", "fast", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 3, unknown, names, chapters, NULL, 2, &options, &first, &last),
        2);
    char *list[] = {"chapterX", "--list", NULL};
    assert_int_equal(
        cli_start(&triangle_spec, 2, list, names, chapters, NULL, 2, &options, &first, &last), 0);
}

static void test_cli_shape_matches_csv_spelling(void **state)
{
    (void)state;
    cli_options options;
    char shape[64], message[256];
    assert_int_equal(parse(&triangle_spec, &options, message, NULL), CLI_RUN);
    cli_format_shape(&triangle_spec, &options, shape, sizeof shape);
    assert_string_equal(shape, "B=8 T=1024 C=768 NH=12");
}

/* The MSA programs' mask kind: a choice spelled like a size, which the shape
 * ends with, given at most once, one of its names; --logits and
 * --input-scale only where the program takes them. */
static void test_cli_choice_and_scales(void **state)
{
    (void)state;
    cli_options options;
    char shape[96], message[256];
    assert_int_equal(parse(&msa_spec, &options, message, NULL), CLI_RUN);
    cli_format_shape(&msa_spec, &options, shape, sizeof shape);
    assert_string_equal(shape, "B=2 S=8 N=32 D=64 H=4 mask=drawn");
    assert_int_equal(parse(&msa_spec, &options, message, "S=512", "mask=kept", NULL), CLI_RUN);
    cli_format_shape(&msa_spec, &options, shape, sizeof shape);
    assert_string_equal(shape, "B=2 S=512 N=32 D=64 H=4 mask=kept");
    assert_int_equal(parse(&msa_spec, &options, message, "mask=padded", NULL), CLI_ERROR);
    assert_non_null(strstr(message, "drawn kept pad"));
    assert_int_equal(parse(&msa_spec, &options, message, "mask=kept", "mask=pad", NULL),
                     CLI_ERROR);
    assert_non_null(strstr(message, "given twice"));
    assert_int_equal(parse(&triangle_spec, &options, message, "mask=kept", NULL), CLI_ERROR);
    assert_int_equal(parse(&msa_spec, &options, message, "--logits", "90", NULL), CLI_RUN);
    assert_true(options.logits == 90.0);
    assert_int_equal(parse(&msa_spec, &options, message, "--input-scale", "2", NULL), CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &options, message, "--input-scale", "1e-3", NULL),
                     CLI_RUN);
    assert_true(options.input_scale == 1e-3);
    assert_int_equal(parse(&triangle_spec, &options, message, "--input-scale", "-1", NULL),
                     CLI_ERROR);
    assert_int_equal(parse(&triangle_spec, &options, message, "--logits", "80", NULL), CLI_ERROR);
}

/* ------------------------------------------------------------ triangle referee */

static void test_triangle_reference_by_hand(void **state)
{
    (void)state;
    /* B=1, T=2, NH=1, HS=4: token t holds q_t, k_t, v_t (4 floats each). */
    triangle_size s = {1, 2, 1, 4};
    float inp[2 * 3 * 4] = {
        1, 2, 3, 4,   /* q0 */ 1, 0, 0, 1,  /* k0 */ 9, 9, 9, 9, /* v0 */
        0, 1, 0, 1,   /* q1 */ 2, 2, 2, 2,  /* k1 */ 9, 9, 9, 9, /* v1 */
    };
    double preatt[4];
    triangle_reference(preatt, inp, s);
    /* scale 1/sqrt(4) = 1/2 */
    assert_true(preatt[0] == (1 + 4) / 2.0);       /* q0.k0 = 5 */
    assert_true(preatt[1] == 0.0);                 /* j > i: masked */
    assert_true(preatt[2] == (0 + 1) / 2.0);       /* q1.k0 = 1 */
    assert_true(preatt[3] == (2 + 2) / 2.0);       /* q1.k1 = 4 */
}

static void test_triangle_reference_heads_and_batches(void **state)
{
    (void)state;
    /* B=2, T=1, NH=2, HS=1: each score is q*k of one head, unscaled. */
    triangle_size s = {2, 1, 2, 1};
    float inp[2 * 1 * 3 * 2] = {
        /* b0: q(h0,h1) k(h0,h1) v */ 2, 3, 5, 7, 0, 0,
        /* b1 */                      -1, 4, 6, 0.5f, 0, 0,
    };
    double preatt[4];
    triangle_reference(preatt, inp, s);
    assert_true(preatt[0] == 10.0 && preatt[1] == 21.0);
    assert_true(preatt[2] == -6.0 && preatt[3] == 2.0);
}

static void test_triangle_counts(void **state)
{
    (void)state;
    triangle_size s = {8, 1024, 12, 64};
    assert_true(triangle_input_count(s) == 8ull * 1024 * 3 * 768);
    assert_true(triangle_output_count(s) == 8ull * 12 * 1024 * 1024);
    assert_true(triangle_useful_flops(s) == 2.0 * 64 * 8 * 12 * 1024 * 1025 / 2);
    assert_true(triangle_compulsory_bytes(s) ==
                4.0 * (2.0 * 8 * 1024 * 768 + 8.0 * 12 * 1024 * 1025 / 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_identical_passes),
        cmocka_unit_test(test_compare_nan_fails_and_is_reported),
        cmocka_unit_test(test_compare_inf_fails),
        cmocka_unit_test(test_compare_unwritten_poisoned_output_fails),
        cmocka_unit_test(test_compare_reports_at_most_five_indices),
        cmocka_unit_test(test_compare_tolerance_edges),
        cmocka_unit_test(test_compare_zero_reference),
        cmocka_unit_test(test_compare_lower_triangle_ignores_upper),
        cmocka_unit_test(test_compare_empty_region_fails),
        cmocka_unit_test(test_rng_is_deterministic),
        cmocka_unit_test(test_rng_known_values),
        cmocka_unit_test(test_rng_seeds_differ_and_range_holds),
        cmocka_unit_test(test_summary_odd_and_even),
        cmocka_unit_test(test_csv_format_row),
        cmocka_unit_test(test_csv_quotes_fields_with_commas_and_quotes),
        cmocka_unit_test(test_csv_refuses_small_buffer_and_missing_field),
        cmocka_unit_test(test_csv_append_writes_header_once),
        cmocka_unit_test(test_cli_defaults),
        cmocka_unit_test(test_cli_sizes_and_flags),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_cli_runs_kernel),
        cmocka_unit_test(test_cli_choose_kernels),
        cmocka_unit_test(test_cli_start),
        cmocka_unit_test(test_cli_find_kernel),
        cmocka_unit_test(test_cli_size_limits_and_repeats),
        cmocka_unit_test(test_whole_number_spellings),
        cmocka_unit_test(test_whole_number_argument),
        cmocka_unit_test(test_decimal_number_spellings),
        cmocka_unit_test(test_cli_refuses_loose_numbers),
        cmocka_unit_test(test_cli_refuses_a_repeated_option),
        cmocka_unit_test(test_cli_list_checks_the_other_options),
        cmocka_unit_test(test_size_arithmetic_saturates),
        cmocka_unit_test(test_size_at_most_names_the_limit),
        cmocka_unit_test(test_size_fits_memory),
        cmocka_unit_test(test_split_k_count),
        cmocka_unit_test(test_cli_shape_matches_csv_spelling),
        cmocka_unit_test(test_cli_choice_and_scales),
        cmocka_unit_test(test_triangle_reference_by_hand),
        cmocka_unit_test(test_triangle_reference_heads_and_batches),
        cmocka_unit_test(test_triangle_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
