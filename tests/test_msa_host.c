/* tests/test_msa_host.c - cmocka unit tests of the MSA problem's host code:
 * the .npy reader and writer (round trips, every kind of malformed file,
 * files that are not regular, a header checked before the data)
 * and the CPU referee on cases small enough to check by hand, including the
 * all-masked column whose output must be exactly bo, and the check that
 * refuses a mask holding NaN or infinity. Built by `make`, run by
 * `make test`:
 *
 *   build/tests/test_msa_host
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
#include <sys/stat.h>
#include <unistd.h>

#include "problems/msa_reference.h"
#include "harness/npy.h"

/* ------------------------------------------------------------ .npy */

static void temporary_path(char *path, size_t capacity, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, capacity, "%s/workbook-test-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(),
             name);
}

static void test_npy_round_trip(void **state)
{
    (void)state;
    char path[512], message[512];
    temporary_path(path, sizeof path, "round.npy");
    const long shape[3] = {2, 3, 4};
    float values[24];
    for (int i = 0; i < 24; i++)
        values[i] = 0.25f * i - 3.0f;
    assert_int_equal(npy_write_f32(path, values, 3, shape, message, sizeof message), 0);

    npy_array array;
    assert_int_equal(npy_read_f32(path, &array, message, sizeof message), 0);
    assert_int_equal(array.ndim, 3);
    assert_int_equal(array.shape[0], 2);
    assert_int_equal(array.shape[1], 3);
    assert_int_equal(array.shape[2], 4);
    assert_int_equal(array.count, 24);
    assert_memory_equal(array.data, values, sizeof values);
    assert_int_equal(npy_expect_shape(&array, path, 3, shape, message, sizeof message), 0);
    npy_free(&array);

    /* The data starts on a 64-byte boundary, as NumPy writes it. */
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fclose(file);
    assert_int_equal((size - 24 * 4) % 64, 0);
    unlink(path);
}

static void test_npy_one_dimension_and_scalar(void **state)
{
    (void)state;
    char path[512], message[512], text[64];
    temporary_path(path, sizeof path, "vector.npy");
    const long shape[1] = {5};
    const float values[5] = {1, 2, 3, 4, 5};
    assert_int_equal(npy_write_f32(path, values, 1, shape, message, sizeof message), 0);
    npy_array array;
    assert_int_equal(npy_read_f32(path, &array, message, sizeof message), 0);
    assert_int_equal(array.ndim, 1);
    assert_int_equal(array.shape[0], 5);
    assert_memory_equal(array.data, values, sizeof values);
    npy_free(&array);
    unlink(path);

    npy_format_shape(text, sizeof text, 1, shape);
    assert_string_equal(text, "(5,)");
    npy_format_shape(text, sizeof text, 0, shape);
    assert_string_equal(text, "()");
}

/* A file in memory: magic, version 1.0, the header padded to 64, data. */
static size_t build_npy(unsigned char *bytes, const char *dict, size_t data_bytes)
{
    size_t length = strlen(dict);
    size_t padded = length + 1;
    while ((10 + padded) % 64)
        padded++;
    memcpy(bytes, "\x93NUMPY\x01\x00", 8);
    bytes[8] = (unsigned char)(padded & 0xff);
    bytes[9] = (unsigned char)(padded >> 8);
    memcpy(bytes + 10, dict, length);
    memset(bytes + 10 + length, ' ', padded - length - 1);
    bytes[10 + padded - 1] = '\n';
    memset(bytes + 10 + padded, 0, data_bytes);
    return 10 + padded + data_bytes;
}

static void expect_parse_error(const unsigned char *bytes, size_t length, const char *phrase)
{
    npy_array array;
    char message[512] = "";
    assert_int_equal(npy_parse_f32(bytes, length, "x.npy", &array, message, sizeof message), -1);
    assert_null(array.data);
    if (!strstr(message, phrase))
        fail_msg("message \"%s\" does not say \"%s\"", message, phrase);
    assert_non_null(strstr(message, "x.npy"));
}

static void test_npy_accepts_what_numpy_writes(void **state)
{
    (void)state;
    unsigned char bytes[512];
    size_t length =
        build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
    npy_array array;
    char message[256];
    assert_int_equal(npy_parse_f32(bytes, length, "x.npy", &array, message, sizeof message), 0);
    assert_int_equal(array.ndim, 2);
    assert_int_equal(array.count, 6);
    npy_free(&array);
    /* No trailing comma, double quotes: still a valid dict. */
    length = build_npy(bytes, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (6,)}", 24);
    assert_int_equal(npy_parse_f32(bytes, length, "x.npy", &array, message, sizeof message), 0);
    assert_int_equal(array.ndim, 1);
    npy_free(&array);
}

static void test_npy_rejects_malformed_files(void **state)
{
    (void)state;
    unsigned char bytes[512];
    size_t length;

    expect_parse_error((const unsigned char *)"hello, world", 12, "not a .npy file");

    length = build_npy(bytes, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16);
    expect_parse_error(bytes, length, "float32");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16);
    expect_parse_error(bytes, length, "Fortran");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20);
    expect_parse_error(bytes, length, "bytes of data");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 28);
    expect_parse_error(bytes, length, "bytes of data");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False}", 4);
    expect_parse_error(bytes, length, "shape");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", 8);
    expect_parse_error(bytes, length, "shape");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
    bytes[6] = 9; /* format version 9.0 */
    expect_parse_error(bytes, length, "version");

    length = build_npy(bytes, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
    expect_parse_error(bytes, 40, "truncated");
}

static void test_npy_missing_file_and_shape_mismatch(void **state)
{
    (void)state;
    npy_array array;
    char message[512];
    assert_int_equal(npy_read_f32("/nonexistent/dir/mask.npy", &array, message, sizeof message), -1);
    assert_non_null(strstr(message, "cannot open"));

    float values[6] = {0};
    array.ndim = 3;
    array.shape[0] = 2, array.shape[1] = 8, array.shape[2] = 31;
    array.count = 6;
    array.data = values;
    const long want[3] = {2, 8, 32};
    assert_int_equal(npy_expect_shape(&array, "mask.npy", 3, want, message, sizeof message), -1);
    assert_string_equal(message, "mask.npy has shape (2, 8, 31), expected (2, 8, 32)");
}

/* Only regular files are read, and a FIFO is refused without waiting for
 * a writer (the test would hang otherwise). */
static void test_npy_reads_regular_files_only(void **state)
{
    (void)state;
    npy_array array;
    char path[512], message[512];
    temporary_path(path, sizeof path, "dir.npy");
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(npy_read_f32(path, &array, message, sizeof message), -1);
    assert_non_null(strstr(message, "dir.npy: a directory, not a regular file"));
    assert_null(array.data);
    rmdir(path);

    assert_int_equal(npy_read_f32("/dev/zero", &array, message, sizeof message), -1);
    assert_string_equal(message, "/dev/zero: a character device, not a regular file");

    temporary_path(path, sizeof path, "fifo.npy");
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(npy_read_f32(path, &array, message, sizeof message), -1);
    assert_non_null(strstr(message, "fifo.npy: a FIFO, not a regular file"));
    assert_int_equal(npy_read_header(path, &array, message, sizeof message), -1);
    unlink(path);
}

/* The header, and the file's size against it, are checked before the data
 * is read: a file 16 GB too long (sparse: no disk is used) is refused at
 * once, and npy_read_header gives the shape without reading any data. */
static void test_npy_header_is_checked_before_the_data(void **state)
{
    (void)state;
    char path[512], message[512];
    temporary_path(path, sizeof path, "long.npy");
    const long shape[2] = {3, 4};
    float values[12] = {0};
    assert_int_equal(npy_write_f32(path, values, 2, shape, message, sizeof message), 0);

    npy_array array;
    assert_int_equal(npy_read_header(path, &array, message, sizeof message), 0);
    assert_int_equal(array.ndim, 2);
    assert_true(array.shape[0] == 3 && array.shape[1] == 4 && array.count == 12);
    assert_null(array.data);

    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    assert_int_equal(truncate(path, info.st_size + ((off_t)16 << 30)), 0); /* 48 + 16 GiB of data */
    assert_int_equal(npy_read_header(path, &array, message, sizeof message), -1);
    assert_non_null(strstr(message, "holds 17179869232 bytes of data, but its shape needs 48"));
    assert_int_equal(npy_read_f32(path, &array, message, sizeof message), -1);
    assert_non_null(strstr(message, "holds 17179869232 bytes of data"));
    assert_null(array.data);
    unlink(path);
}

/* ------------------------------------------------------------ the mask */

static void test_msa_check_mask_refuses_nan_and_inf(void **state)
{
    (void)state;
    msa_size z = {2, 3, 4, 8, 2}; /* mask (2, 3, 4): 24 values */
    float mask[24];
    char message[512];
    for (int i = 0; i < 24; i++)
        mask[i] = i % 3 == 0 ? 0.0f : 1.0f;
    mask[7] = 0.5f;  /* kept: any finite nonzero value keeps a key */
    mask[8] = -2.0f; /* kept too */
    mask[9] = -0.0f; /* masked, as 0 is */
    assert_int_equal(msa_check_mask(mask, z, "mask.npy", message, sizeof message), 0);

    mask[17] = NAN; /* b=1, s=1, n=1 */
    mask[20] = INFINITY;
    assert_int_equal(msa_check_mask(mask, z, "in/mask.npy", message, sizeof message), -1);
    assert_non_null(strstr(message, "in/mask.npy: element 17 (b=1, s=1, n=1) is nan"));
    mask[17] = 1.0f;
    assert_int_equal(msa_check_mask(mask, z, "in/mask.npy", message, sizeof message), -1);
    assert_non_null(strstr(message, "in/mask.npy: element 20 (b=1, s=2, n=0) is inf"));
    mask[20] = -INFINITY;
    assert_int_equal(msa_check_mask(mask, z, "in/mask.npy", message, sizeof message), -1);
    assert_non_null(strstr(message, "element 20 (b=1, s=2, n=0) is -inf"));
}

/* ------------------------------------------------------------ the referee */

/* A tiny layer whose answer follows on paper: D = 2, one head, gamma 1,
 * beta 0, Wq = Wk = 0 (every score 0, so attention is a plain average over
 * the kept keys), Wv = Wo = identity, Wg = 0 and bg = 0 (every gate 1/2). */
static void tiny_layer(msa_inputs *in, msa_size z)
{
    assert_int_equal(msa_inputs_alloc(in, z), 0);
    for (int i = 0; i < 2; i++) {
        in->ln_gamma[i] = 1.0f;
        in->ln_beta[i] = 0.0f;
        in->bg[i] = 0.0f;
    }
    in->bo[0] = 0.25f, in->bo[1] = -0.5f;
    for (int i = 0; i < 4; i++) {
        in->wq[i] = in->wk[i] = in->wg[i] = 0.0f;
        in->wv[i] = in->wo[i] = (i == 0 || i == 3) ? 1.0f : 0.0f;
    }
}

static void test_msa_reference_by_hand(void **state)
{
    (void)state;
    /* B=1, S=2, N=3: column 0 keeps both keys, column 1 none, column 2 only
     * key 1. Row 0 of each column is (1, 3), row 1 is (5, 1). */
    msa_size z = {1, 2, 3, 2, 1};
    msa_inputs in;
    tiny_layer(&in, z);
    for (int n = 0; n < 3; n++) {
        float *row0 = in.msa + (0 * 3 + n) * 2, *row1 = in.msa + (1 * 3 + n) * 2;
        row0[0] = 1.0f, row0[1] = 3.0f;
        row1[0] = 5.0f, row1[1] = 1.0f;
    }
    const float mask[2][3] = {{1, 0, 0}, {1, 0, 1}}; /* mask[s][n] */
    memcpy(in.mask, mask, sizeof mask);

    /* LayerNorm: (1, 3) has mean 2, variance 1, so it becomes (-1, 1) / sqrt(1 + eps);
     * (5, 1) has mean 3, variance 4: (2, -2) / sqrt(4 + eps). */
    const double a = 1.0 / sqrt(1.0 + MSA_LAYERNORM_EPS), c = 2.0 / sqrt(4.0 + MSA_LAYERNORM_EPS);
    const double xn[2][2] = {{-a, a}, {c, -c}};

    double out[12];
    msa_reference(out, &in, z);
    for (int s = 0; s < 2; s++) {
        for (int f = 0; f < 2; f++) {
            double bias = in.bo[f];
            /* column 0: gate 1/2 times the average of both rows, plus bo */
            double both = 0.5 * (xn[0][f] + xn[1][f]) / 2.0 + bias;
            /* column 1: nothing kept, O = 0, the output is exactly bo */
            double none = bias;
            /* column 2: only key 1 kept, every query copies its value */
            double one = 0.5 * xn[1][f] + bias;
            assert_float_equal(out[(s * 3 + 0) * 2 + f], both, 1e-12);
            assert_true(out[(s * 3 + 1) * 2 + f] == none);
            assert_float_equal(out[(s * 3 + 2) * 2 + f], one, 1e-12);
        }
    }
    msa_inputs_free(&in);
}

static void test_msa_reference_softmax_and_heads(void **state)
{
    (void)state;
    /* Two heads of d = 1 on D = 2, with Wq = Wk = identity: head h's score
     * between rows i and j is xn[i][h] * xn[j][h] / sqrt(1), and its
     * softmax over both kept keys weighs the values. */
    msa_size z = {1, 2, 1, 2, 2};
    msa_inputs in;
    tiny_layer(&in, z);
    in.wq[0] = in.wq[3] = in.wk[0] = in.wk[3] = 1.0f;
    in.msa[0] = 1.0f, in.msa[1] = 3.0f, in.msa[2] = 5.0f, in.msa[3] = 1.0f;
    in.mask[0] = in.mask[1] = 1.0f;
    const double a = 1.0 / sqrt(1.0 + MSA_LAYERNORM_EPS), c = 2.0 / sqrt(4.0 + MSA_LAYERNORM_EPS);
    const double xn[2][2] = {{-a, a}, {c, -c}};

    double out[4];
    msa_reference(out, &in, z);
    for (int i = 0; i < 2; i++) {
        for (int h = 0; h < 2; h++) {
            double e0 = exp(xn[i][h] * xn[0][h]), e1 = exp(xn[i][h] * xn[1][h]);
            double o = (e0 * xn[0][h] + e1 * xn[1][h]) / (e0 + e1);
            assert_float_equal(out[i * 2 + h], 0.5 * o + in.bo[h], 1e-12);
        }
    }
    msa_inputs_free(&in);
}

static void test_msa_inputs_are_drawn_as_designed(void **state)
{
    (void)state;
    msa_size z = {2, 8, 32, 64, 4};
    msa_inputs in, again;
    assert_int_equal(msa_inputs_alloc(&in, z), 0);
    assert_int_equal(msa_inputs_alloc(&again, z), 0);
    msa_draw_inputs(&in, z, 7);
    msa_draw_inputs(&again, z, 7);
    for (int k = 0; k < MSA_INPUT_COUNT; k++)
        assert_memory_equal(*msa_input_slot(&in, k), *msa_input_slot(&again, k),
                            msa_input_count(z, k) * sizeof(float));

    const float bound = 1.0f / 8.0f;
    for (int i = 0; i < 64 * 64; i++) {
        assert_true(fabsf(in.wq[i]) <= bound && fabsf(in.wo[i]) <= bound);
    }
    for (int i = 0; i < 64; i++) {
        assert_true(in.ln_gamma[i] >= 0.75f && in.ln_gamma[i] <= 1.25f);
        assert_true(fabsf(in.ln_beta[i]) >= 0.05f && fabsf(in.bg[i]) >= 0.05f &&
                    fabsf(in.bo[i]) >= 0.05f);
        assert_true(fabsf(in.bo[i]) <= 0.25f);
    }

    /* Columns 0, 1 and 2 (b = 0, n = 0..2): all kept, none kept, one kept. */
    int kept[3] = {0, 0, 0};
    for (int s = 0; s < 8; s++)
        for (int n = 0; n < 3; n++) {
            float m = in.mask[s * 32 + n];
            assert_true(m == 0.0f || m == 1.0f);
            kept[n] += m != 0.0f;
        }
    assert_int_equal(kept[0], 8);
    assert_int_equal(kept[1], 0);
    assert_int_equal(kept[2], 1);
    msa_mask_census census = msa_count_mask_columns(in.mask, z);
    assert_int_equal(census.all_kept + census.all_masked + census.single_kept + census.partial, 64);
    assert_true(census.all_kept >= 1 && census.all_masked >= 1 && census.single_kept >= 1);
    assert_true(census.partial >= 1);
    msa_inputs_free(&in);
    msa_inputs_free(&again);
}

static void test_msa_counts(void **state)
{
    (void)state;
    msa_size small = {2, 8, 32, 64, 4};
    /* 2 * (10 * 8 * 32 * 64^2 + 4 * 32 * 8^2 * 64) */
    assert_true(msa_useful_flops(small) == 22020096.0);
    assert_int_equal(msa_output_count(small), 32768);
    long shape[4];
    assert_int_equal(msa_input_shape(small, MSA_IN_MASK, shape), 3);
    assert_int_equal(shape[2], 32);
    assert_int_equal(msa_input_shape(small, MSA_IN_WG, shape), 2);
    assert_int_equal(msa_input_shape(small, MSA_IN_BO, shape), 1);
    assert_string_equal(msa_input_names[MSA_IN_LN_GAMMA], "ln_gamma");
    /* msa, out, mask, five weights and four vectors of D, in bytes */
    assert_true(msa_compulsory_bytes(small) ==
                4.0 * (2.0 * 32768 + 2 * 8 * 32 + 5.0 * 64 * 64 + 4.0 * 64));
}

/* The three mask kinds: drawn is left as drawn, kept keeps all, pad masks
 * the last tenth of the sequences of every column. */
static void test_mask_kinds(void **state)
{
    (void)state;
    const msa_size z = {2, 20, 3, 8, 2};
    msa_inputs in;
    assert_int_equal(msa_inputs_alloc(&in, z), 0);
    msa_draw_inputs(&in, z, 11);
    float *drawn = malloc(msa_input_count(z, MSA_IN_MASK) * sizeof(float));
    assert_non_null(drawn);
    memcpy(drawn, in.mask, msa_input_count(z, MSA_IN_MASK) * sizeof(float));
    msa_apply_mask_kind(in.mask, z, MSA_MASK_DRAWN);
    assert_memory_equal(drawn, in.mask, msa_input_count(z, MSA_IN_MASK) * sizeof(float));
    msa_apply_mask_kind(in.mask, z, MSA_MASK_KEPT);
    msa_mask_census census = msa_count_mask_columns(in.mask, z);
    assert_int_equal(census.all_kept, z.B * z.N);
    msa_apply_mask_kind(in.mask, z, MSA_MASK_PAD);
    for (int b = 0; b < z.B; b++)
        for (int s = 0; s < z.S; s++)
            for (int n = 0; n < z.N; n++)
                assert_true(in.mask[(b * z.S + s) * z.N + n] == (s < 18 ? 1.0f : 0.0f));
    assert_string_equal(msa_mask_kind_names[MSA_MASK_PAD], "pad");
    free(drawn);
    msa_inputs_free(&in);
}

/* msa_scale_logits makes the logit of largest magnitude +90, whatever its
 * sign was: the referee then sees logits of that size, and no larger, and a
 * softmax without its maximum sees exp(90), which overflows a float. Over
 * a few seeds, the largest logit is negative at least once. */
static void test_scale_logits(void **state)
{
    (void)state;
    const msa_size z = {1, 6, 2, 8, 2};
    int negative = 0;
    for (unsigned seed = 1; seed <= 12; seed++) {
        msa_inputs in;
        assert_int_equal(msa_inputs_alloc(&in, z), 0);
        msa_draw_inputs(&in, z, seed);
        const double before = msa_scale_logits(&in, z, 90.0);
        assert_true(before != 0.0 && fabs(before) < 10.0);
        negative += before < 0.0;
        const double after = msa_scale_logits(&in, z, 90.0); /* measures again, scales by ~1 */
        assert_true(fabs(after - 90.0) < 90.0 * 1e-5);
        msa_inputs_free(&in);
    }
    assert_true(negative > 0);
}

/* Only the logits of kept keys count: with one key kept per column, the
 * largest kept logit becomes 90 while the layer's largest over every key
 * stays larger; with every key masked there is nothing to scale. (Counting
 * masked keys too, a drawn mask could hide the very logit meant to
 * overflow, and a softmax without its maximum passed.) */
static void test_scale_logits_kept_keys_only(void **state)
{
    (void)state;
    const msa_size z = {1, 6, 2, 8, 2};
    const size_t cells = (size_t)z.B * z.S * z.N;
    int larger = 0;
    for (unsigned seed = 1; seed <= 12; seed++) {
        msa_inputs in;
        assert_int_equal(msa_inputs_alloc(&in, z), 0);
        msa_draw_inputs(&in, z, seed);
        for (size_t i = 0; i < cells; i++) /* every key masked */
            in.mask[i] = 0.0f;
        const float wq0 = in.wq[0];
        assert_true(msa_scale_logits(&in, z, 90.0) == 0.0);
        assert_true(in.wq[0] == wq0);
        for (int s = 0; s < z.S; s++) /* only sequence 0 kept, in every column */
            for (int n = 0; n < z.N; n++)
                in.mask[(size_t)s * z.N + n] = s == 0 ? 1.0f : 0.0f;
        msa_scale_logits(&in, z, 90.0);
        assert_true(fabs(msa_scale_logits(&in, z, 90.0) - 90.0) < 90.0 * 1e-5);
        for (size_t i = 0; i < cells; i++)
            in.mask[i] = 1.0f;
        larger += fabs(msa_scale_logits(&in, z, 90.0)) > 90.0 * (1.0 + 1e-3);
        msa_inputs_free(&in);
    }
    assert_true(larger > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_round_trip),
        cmocka_unit_test(test_npy_one_dimension_and_scalar),
        cmocka_unit_test(test_npy_accepts_what_numpy_writes),
        cmocka_unit_test(test_npy_rejects_malformed_files),
        cmocka_unit_test(test_npy_missing_file_and_shape_mismatch),
        cmocka_unit_test(test_npy_reads_regular_files_only),
        cmocka_unit_test(test_npy_header_is_checked_before_the_data),
        cmocka_unit_test(test_msa_check_mask_refuses_nan_and_inf),
        cmocka_unit_test(test_msa_reference_by_hand),
        cmocka_unit_test(test_msa_reference_softmax_and_heads),
        cmocka_unit_test(test_msa_inputs_are_drawn_as_designed),
        cmocka_unit_test(test_msa_counts),
        cmocka_unit_test(test_mask_kinds),
        cmocka_unit_test(test_scale_logits),
        cmocka_unit_test(test_scale_logits_kept_keys_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
