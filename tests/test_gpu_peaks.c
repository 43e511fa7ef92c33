/* tests/test_gpu_peaks.c - cmocka tests of common/gpu_peaks.c: the peak
 * formula of each pipe against the data sheets, and the cards known by the
 * name CUDA reports. Built by `make`, run by `make test`:
 *
 *   build/tests/test_gpu_peaks
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpu_peaks.h"

/* TFLOP/s to one decimal, as the data sheets and the book print them */
static double tflops(double gflops)
{
    return (double)(long)(gflops / 100.0 + 0.5) / 10.0;
}

static void test_h200_fp32_and_tf32_peaks(void **state)
{
    (void)state;
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_SIMT, 132, 1980, 9, 0)) == 66.9);
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_TENSOR, 132, 1980, 9, 0)) == 535.3);
}

static void test_a100_has_64_lanes_and_1024_tf32_per_sm(void **state)
{
    (void)state;
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_SIMT, 108, 1410, 8, 0)) == 19.5);
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_TENSOR, 108, 1410, 8, 0)) == 155.9);
}

static void test_other_ampere_and_ada_have_128_lanes_and_512_tf32_per_sm(void **state)
{
    (void)state;
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_SIMT, 72, 1695, 8, 6)) == 31.2);   /* A10 */
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_TENSOR, 72, 1695, 8, 6)) == 62.5);
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_TENSOR, 142, 2520, 8, 9)) == 183.2); /* L40S */
}

static void test_turing_has_64_lanes_and_no_tf32(void **state)
{
    (void)state;
    assert_true(tflops(gpu_peak_gflops(GPU_PIPE_SIMT, 40, 1590, 7, 5)) == 8.1);   /* T4 */
    assert_true(gpu_peak_gflops(GPU_PIPE_TENSOR, 40, 1590, 7, 5) == 0);
    assert_true(gpu_peak_gflops(GPU_PIPE_TENSOR, 100, 2000, 12, 0) == 0); /* not known yet */
}

static void test_lookup_by_the_name_cuda_reports(void **state)
{
    (void)state;
    int sm_count = 0, major = 0, minor = 0;
    double clock_mhz = 0;
    assert_int_equal(gpu_card_lookup("NVIDIA H200", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 132);
    assert_true(clock_mhz == 1980);
    assert_int_equal(major, 9);
    assert_int_equal(minor, 0);
    assert_int_equal(gpu_card_lookup("NVIDIA H100 PCIe", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 114);
    assert_int_equal(gpu_card_lookup("NVIDIA H100 80GB HBM3", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 132);
    assert_int_equal(gpu_card_lookup("NVIDIA A100-SXM4-80GB", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 108);
    assert_int_equal(gpu_card_lookup("NVIDIA A10", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 72);
    assert_int_equal(gpu_card_lookup("NVIDIA L40S", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 142);
    assert_int_equal(gpu_card_lookup("NVIDIA L4", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 58);
    assert_int_equal(gpu_card_lookup("NVIDIA GeForce RTX 4090", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(sm_count, 128);
    assert_int_equal(gpu_card_lookup("Tesla T4", &sm_count, &clock_mhz, &major, &minor), 0);
    assert_int_equal(major, 7);
}

static void test_unknown_card_is_not_found(void **state)
{
    (void)state;
    int sm_count = -7, major = -7, minor = -7;
    double clock_mhz = -7;
    assert_int_equal(gpu_card_lookup("Imaginary GPU 9000", &sm_count, &clock_mhz, &major, &minor), -1);
    assert_int_equal(sm_count, -7); /* left alone */
    assert_int_equal(gpu_card_lookup(NULL, &sm_count, &clock_mhz, &major, &minor), -1);
    assert_true(gpu_card_peak_gflops("Imaginary GPU 9000", GPU_PIPE_SIMT) == 0);
}

static void test_card_peak_is_lookup_then_formula(void **state)
{
    (void)state;
    assert_true(tflops(gpu_card_peak_gflops("NVIDIA H200", GPU_PIPE_SIMT)) == 66.9);
    assert_true(tflops(gpu_card_peak_gflops("NVIDIA H200", GPU_PIPE_TENSOR)) == 535.3);
    assert_true(tflops(gpu_card_peak_gflops("NVIDIA A100-PCIE-40GB", GPU_PIPE_TENSOR)) == 155.9);
    assert_true(gpu_card_peak_gflops("Tesla T4", GPU_PIPE_TENSOR) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_fp32_and_tf32_peaks),
        cmocka_unit_test(test_a100_has_64_lanes_and_1024_tf32_per_sm),
        cmocka_unit_test(test_other_ampere_and_ada_have_128_lanes_and_512_tf32_per_sm),
        cmocka_unit_test(test_turing_has_64_lanes_and_no_tf32),
        cmocka_unit_test(test_lookup_by_the_name_cuda_reports),
        cmocka_unit_test(test_unknown_card_is_not_found),
        cmocka_unit_test(test_card_peak_is_lookup_then_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
