/* tests/test_kernel_list.c - cmocka tests of tools/kernel_list.c: the list
 * of contenders is read in its order, a CSV kernel is found by its name or
 * its "+graph" replay, each malformed line is refused with its line number,
 * and the real chapters/kernels.list reads. Built by `make`, run by
 * `make test` from the repository root:
 *
 *   build/tests/test_kernel_list
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kernel_list.h"

static const char list_text[] =
    "# a comment, then a blank line\n"
    "\n"
    "trimul 1 champion simt   fp32 sm_75  cublas-permute cublas_permute_kernel\n"
    "trimul 5 best     simt   fp32 sm_75  shared+rows    shared_rows_kernel\n"
    "trimul 8 step     tensor tf32 sm_80  tf32           tf32_kernel\n"
    "msa    6 torch    tensor tf32 sm_80  torch-eager-tf32 -\n"
    "msa    6 best     simt   fp32 sm_90a fused          fused_kernel\n";

static void test_reads_every_column_in_order(void **state)
{
    (void)state;
    kernel_list list;
    char error[256] = "";
    assert_int_equal(kernel_list_parse("test.list", list_text, &list, error, sizeof error), 0);
    assert_int_equal(list.count, 5);
    assert_string_equal(list.entries[0].name, "cublas-permute");
    assert_string_equal(list.entries[0].problem, "trimul");
    assert_int_equal(list.entries[0].chapter, 1);
    assert_int_equal(list.entries[0].role, KERNEL_CHAMPION);
    assert_int_equal(list.entries[2].pipe, GPU_PIPE_TENSOR);
    assert_string_equal(list.entries[2].accuracy, "tf32");
    assert_string_equal(list.entries[2].needs, "sm_80");
    assert_int_equal(list.entries[2].needs_major, 8);
    assert_int_equal(list.entries[2].needs_minor, 0);
    assert_int_equal(list.entries[2].needs_arch_specific, 0);
    assert_int_equal(list.entries[1].needs_major, 7);
    assert_int_equal(list.entries[1].needs_minor, 5);
    assert_int_equal(list.entries[4].needs_major, 9);
    assert_int_equal(list.entries[4].needs_arch_specific, 1);
    assert_int_equal(list.entries[3].role, KERNEL_TORCH);
    assert_string_equal(list.entries[3].symbol, "-");
    assert_string_equal(list.entries[4].symbol, "fused_kernel");
    kernel_list_free(&list);
    assert_int_equal(list.count, 0);
}

static void test_finds_a_name_and_its_graph_replay(void **state)
{
    (void)state;
    kernel_list list;
    char error[256];
    assert_int_equal(kernel_list_parse("test.list", list_text, &list, error, sizeof error), 0);
    assert_int_equal(kernel_list_find(&list, "trimul", "shared+rows"), 1);
    assert_int_equal(kernel_list_find(&list, "msa", "fused"), 4);
    assert_int_equal(kernel_list_find(&list, "msa", "fused+graph"), 4);
    assert_int_equal(kernel_list_find(&list, "trimul", "shared"), -1);       /* not a prefix match */
    assert_int_equal(kernel_list_find(&list, "trimul", "shared+rows+x"), -1); /* nor a suffix */
    assert_int_equal(kernel_list_find(&list, "msa", "shared+rows"), -1);     /* another problem's */
    assert_int_equal(kernel_list_find(&list, "msa", "fused+graph+graph"), -1);
    kernel_list_free(&list);
}

/* Each line must be refused with its number and what is wrong. */
static void expect_refused(const char *line, const char *message)
{
    char text[512], error[256] = "";
    snprintf(text, sizeof text, "# header\n%s\n", line);
    kernel_list list;
    assert_int_equal(kernel_list_parse("bad.list", text, &list, error, sizeof error), -1);
    assert_int_equal(list.count, 0);
    if (!strstr(error, "bad.list:2: ") || !strstr(error, message))
        fail_msg("\"%s\": got \"%s\", expected \"%s\"", line, error, message);
}

static void test_refuses_each_malformed_line(void **state)
{
    (void)state;
    expect_refused("trimul 1 champion simt fp32 sm_75 cublas-permute", "7 columns");
    expect_refused("trimul 1 champion simt fp32 sm_75 a b c", "9 columns");
    expect_refused("triangle 1 best simt fp32 sm_75 naive naive_kernel", "problem \"triangle\"");
    expect_refused("trimul two best simt fp32 sm_75 naive naive_kernel", "chapter \"two\"");
    expect_refused("trimul 0 best simt fp32 sm_75 naive naive_kernel", "chapter \"0\"");
    expect_refused("trimul 2 winner simt fp32 sm_75 naive naive_kernel", "role \"winner\"");
    expect_refused("trimul 2 best fp64 fp32 sm_75 naive naive_kernel", "pipe \"fp64\"");
    expect_refused("trimul 2 best simt bf16 sm_75 naive naive_kernel", "accuracy \"bf16\"");
    expect_refused("trimul 2 best simt fp32 sm_70 naive naive_kernel", "needs \"sm_70\"");
    expect_refused("trimul 8 best tensor tf32 sm_75 tf32 tf32_kernel", "needs sm_80 at least");
    expect_refused("trimul 2 best simt fp32 sm_75 Naive naive_kernel", "name \"Naive\"");
    expect_refused("trimul 2 best simt fp32 sm_75 naive+ naive_kernel", "name \"naive+\"");
    expect_refused("trimul 2 best simt fp32 sm_75 naive+graph naive_kernel", "listed twice");
}

static void test_refuses_a_name_listed_twice(void **state)
{
    (void)state;
    kernel_list list;
    char error[256] = "";
    const char *text = "msa 6 best simt fp32 sm_75 fused f\nmsa 7 best simt fp32 sm_75 fused g\n";
    assert_int_equal(kernel_list_parse("twice.list", text, &list, error, sizeof error), -1);
    assert_non_null(strstr(error, "twice.list:2: msa \"fused\" is listed twice"));
}

static void test_reads_the_real_list(void **state)
{
    (void)state;
    kernel_list list;
    char error[256] = "";
    int status = kernel_list_read("chapters/kernels.list", &list, error, sizeof error);
    if (status != 0)
        fail_msg("%s", error);
    assert_true(list.count > 10);
    assert_true(kernel_list_find(&list, "trimul", "cublas-permute") >= 0);
    assert_true(kernel_list_find(&list, "msa", "unfused+graph") >= 0);
    kernel_list_free(&list);
    assert_int_equal(kernel_list_read("no/such.list", &list, error, sizeof error), -1);
    assert_non_null(strstr(error, "no/such.list: cannot read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_every_column_in_order),
        cmocka_unit_test(test_finds_a_name_and_its_graph_replay),
        cmocka_unit_test(test_refuses_each_malformed_line),
        cmocka_unit_test(test_refuses_a_name_listed_twice),
        cmocka_unit_test(test_reads_the_real_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
