/* tests/test_gpu_peaks.c - cmocka tests of common/device/gpu_peaks.c: each pipe's
 * peak, the memory bandwidth and the shared memory per block of the cards
 * students own, against their data sheets; the cards known by the name CUDA
 * reports. Built by `make`, run by `make test`:
 *
 *   build/tests/test_gpu_peaks
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "device/gpu_peaks.h"

/* TFLOP/s to one decimal, as the data sheets and the book print them */
static double tflops(double gflops)
{
    return (double)(long)(gflops / 100.0 + 0.5) / 10.0;
}

/* One card as CUDA names it, with its data sheet's numbers: FP32 and dense
 * TF32 TFLOP/s (0: no TF32), memory GB/s, compute capability. */
static void expect_card(const char *cuda_name, double fp32_tflops, double tf32_tflops,
                        double memory_gbps, int major, int minor)
{
    const gpu_card *card = gpu_card_find(cuda_name);
    assert_non_null(card);
    assert_int_equal(card->major, major);
    assert_int_equal(card->minor, minor);
    assert_true(tflops(gpu_card_peak_gflops(cuda_name, GPU_PIPE_SIMT)) == fp32_tflops);
    assert_true(tflops(gpu_card_peak_gflops(cuda_name, GPU_PIPE_TENSOR)) == tf32_tflops);
    assert_true(gpu_card_memory_gbps(cuda_name) == memory_gbps);
}

static void test_the_cards_students_own(void **state)
{
    (void)state;
    expect_card("Tesla T4", 8.1, 0, 320, 7, 5);
    expect_card("NVIDIA A10", 31.2, 62.5, 600, 8, 6);
    expect_card("NVIDIA L4", 30.3, 60.6, 300, 8, 9);
    expect_card("NVIDIA GeForce RTX 3090", 35.6, 35.6, 936, 8, 6);
    expect_card("NVIDIA GeForce RTX 4090", 82.6, 82.6, 1008, 8, 9);
    expect_card("NVIDIA A100-SXM4-80GB", 19.5, 155.9, 2039, 8, 0);
    expect_card("NVIDIA A100-PCIE-40GB", 19.5, 155.9, 1555, 8, 0);
    /* Hopper and Blackwell: the formula at the boost clock, above the data
     * sheets' tensor numbers (495 and 1100), which they quote at a lower clock */
    expect_card("NVIDIA H100 80GB HBM3", 66.9, 535.3, 3350, 9, 0);
    expect_card("NVIDIA H100 PCIe", 51.2, 409.7, 2000, 9, 0);
    expect_card("NVIDIA H200", 66.9, 535.3, 4800, 9, 0);
    expect_card("NVIDIA GeForce RTX 5090", 104.8, 104.8, 1792, 12, 0);
    expect_card("NVIDIA B200", 74.4, 1191.2, 8000, 10, 0);
}

static void test_geforce_runs_tf32_at_half_rate(void **state)
{
    (void)state;
    assert_int_equal(gpu_tf32_per_sm_per_clock(8, 9, 0), 512);  /* L4, L40S */
    assert_int_equal(gpu_tf32_per_sm_per_clock(8, 9, 1), 256);  /* RTX 4090 */
    assert_int_equal(gpu_tf32_per_sm_per_clock(8, 0, 0), 1024); /* A100 */
    assert_int_equal(gpu_tf32_per_sm_per_clock(9, 0, 0), 2048);
    assert_int_equal(gpu_tf32_per_sm_per_clock(10, 0, 0), 4096);
    assert_int_equal(gpu_tf32_per_sm_per_clock(12, 0, 1), 256);
    assert_int_equal(gpu_tf32_per_sm_per_clock(7, 5, 0), 0);
    assert_true(gpu_name_is_geforce("NVIDIA GeForce RTX 3090"));
    assert_true(gpu_name_is_geforce("NVIDIA TITAN RTX"));
    assert_false(gpu_name_is_geforce("NVIDIA L4"));
    assert_false(gpu_name_is_geforce(NULL));
}

static void test_fp32_lanes_per_sm(void **state)
{
    (void)state;
    assert_int_equal(gpu_fp32_lanes_per_sm(7, 5), 64);
    assert_int_equal(gpu_fp32_lanes_per_sm(8, 0), 64);
    assert_int_equal(gpu_fp32_lanes_per_sm(8, 6), 128);
    assert_int_equal(gpu_fp32_lanes_per_sm(9, 0), 128);
    assert_int_equal(gpu_fp32_lanes_per_sm(12, 0), 128);
    assert_int_equal(gpu_fp32_lanes_per_sm(7, 0), 0); /* before the workbook's oldest */
}

static void test_special_function_unit_rate(void **state)
{
    (void)state;
    assert_int_equal(gpu_sfu_per_sm_per_clock(7, 5), 16);
    assert_int_equal(gpu_sfu_per_sm_per_clock(8, 0), 16);
    assert_int_equal(gpu_sfu_per_sm_per_clock(8, 9), 16);
    assert_int_equal(gpu_sfu_per_sm_per_clock(9, 0), 16);
    assert_int_equal(gpu_sfu_per_sm_per_clock(12, 0), 16);
    assert_int_equal(gpu_sfu_per_sm_per_clock(7, 0), 0);
}

static void test_shared_memory_a_block_may_opt_in_to(void **state)
{
    (void)state;
    assert_int_equal(gpu_shared_per_block_optin(7, 5), 65536);
    assert_int_equal(gpu_shared_per_block_optin(8, 0), 166912);
    assert_int_equal(gpu_shared_per_block_optin(8, 6), 101376);
    assert_int_equal(gpu_shared_per_block_optin(8, 9), 101376);
    assert_int_equal(gpu_shared_per_block_optin(9, 0), 232448);
    assert_int_equal(gpu_shared_per_block_optin(10, 0), 232448);
    assert_int_equal(gpu_shared_per_block_optin(12, 0), 101376);
    assert_int_equal(gpu_shared_per_block_optin(6, 1), 0);
}

static void test_more_specific_names_first(void **state)
{
    (void)state;
    assert_int_equal(gpu_card_find("NVIDIA H100 PCIe")->sm_count, 114);
    assert_int_equal(gpu_card_find("NVIDIA H100 NVL")->sm_count, 132);
    assert_true(gpu_card_find("NVIDIA H200 NVL")->clock_mhz == 1785);
    assert_int_equal(gpu_card_find("NVIDIA A10")->minor, 6);     /* not the A100 */
    assert_int_equal(gpu_card_find("NVIDIA L40S")->sm_count, 142); /* not the L4 */
    assert_true(gpu_card_find("NVIDIA A100 80GB PCIe")->memory_gbps == 1935);
}

static void test_unknown_card_is_not_found(void **state)
{
    (void)state;
    assert_null(gpu_card_find("Imaginary GPU 9000"));
    assert_null(gpu_card_find(NULL));
    assert_true(gpu_card_peak_gflops("Imaginary GPU 9000", GPU_PIPE_SIMT) == 0);
    assert_true(gpu_card_memory_gbps("Imaginary GPU 9000") == 0);
}

static void test_bandwidth_from_what_cuda_reports(void **state)
{
    (void)state;
    /* H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus, 3352 GB/s */
    assert_true((long)(gpu_memory_gbps_from(2619000, 5120) + 0.5) == 3352);
    assert_true(gpu_memory_gbps_from(0, 5120) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_cards_students_own),
        cmocka_unit_test(test_geforce_runs_tf32_at_half_rate),
        cmocka_unit_test(test_fp32_lanes_per_sm),
        cmocka_unit_test(test_special_function_unit_rate),
        cmocka_unit_test(test_shared_memory_a_block_may_opt_in_to),
        cmocka_unit_test(test_more_specific_names_first),
        cmocka_unit_test(test_unknown_card_is_not_found),
        cmocka_unit_test(test_bandwidth_from_what_cuda_reports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
