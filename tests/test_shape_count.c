/* tests/test_shape_count.c - the counts the prose writes as formulas of a
 * shape's sizes (book/shape_count.c): the parts of the MSA layer's work
 * and traffic that chapters 7 and 13 put at a pipe's peak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "shape_count.h"

#define ALPHAFOLD "B=1 S=512 N=256 D=256 H=8 mask=kept"

static double count_of(const char *formula, const char *shape)
{
    char error[128] = "";
    double value = -1;
    assert_int_equal(shape_count(formula, shape, &value, error, sizeof error), 0);
    assert_string_equal(error, "");
    return value;
}

static void test_the_layers_parts(void **state)
{
    (void)state;
    /* the five projections, 10 S N D^2, and the two attention products, 4 N S^2 D */
    assert_true(count_of("10*B*S*N*D*D", ALPHAFOLD) == 85899345920.0);
    assert_true(count_of("4 * B*N*S*S*D", ALPHAFOLD) == 68719476736.0);
    /* the exponentials, B N H S^2, and the head size as D / H */
    assert_true(count_of("B*N*H*S*S", "B=1 S=1024 N=384 D=64 H=8 mask=kept") == 3221225472.0);
    assert_true(count_of("D/H", ALPHAFOLD) == 32);
    /* precedence and parentheses: 4 bytes a float of (4D + D + (D + 8)) features, written and read */
    assert_true(count_of("2*4*B*S*N*(4*D + D + (D + 8))", ALPHAFOLD) == 1619001344.0);
    assert_true(count_of("2+3*4-1", ALPHAFOLD) == 13);
    /* the triangle's names, NH before N is no prefix match */
    assert_true(count_of("B*NH*T*(T+1)", "B=8 T=1024 C=768 NH=12") == 100761600.0);
}

static void expect_error(const char *formula, const char *shape, const char *why)
{
    char error[128] = "";
    double value = -1;
    assert_int_equal(shape_count(formula, shape, &value, error, sizeof error), -1);
    assert_string_equal(error, why);
    assert_true(value == -1); /* untouched */
}

static void test_what_a_count_may_not_hold(void **state)
{
    (void)state;
    expect_error("10*S*X", ALPHAFOLD, "no such size in the shape: \"X\"");
    expect_error("B*mask", ALPHAFOLD, "a size that is not a number: \"mask=kept\"");
    expect_error("S^2", ALPHAFOLD, "a character a count may not hold: \"^\"");
    expect_error("(S*N", ALPHAFOLD, "a parenthesis not closed in the count");
    expect_error("S*", ALPHAFOLD, "a term missing at the end of the count");
    expect_error("", ALPHAFOLD, "a term missing at the end of the count");
    expect_error("S/(H-8)", ALPHAFOLD, "a division by zero in \"/(H-8)\"");
    expect_error("S S", ALPHAFOLD, "a character a count may not hold: \"S\"");
    expect_error("N", "B=1 NH=8", "no such size in the shape: \"N\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_layers_parts),
        cmocka_unit_test(test_what_a_count_may_not_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
