/* tests/test_accuracy_reader.c - cmocka tests of book/accuracy_reader.c:
 * the rows --errors appends are read back, the newest wins, and a malformed
 * row or header stops the reading with its file and line.
 *
 *   build/tests/test_accuracy_reader
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

#include "accuracy_reader.h"
#include "harness/csv.h"

static void folder_with(char *dir, size_t capacity, const char *text)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, capacity, "%s/workbook-accuracy-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    mkdir(dir, 0777);
    char path[600];
    snprintf(path, sizeof path, "%s/trimul.csv", dir);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    fclose(file);
}

static void remove_folder(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/trimul.csv", dir);
    unlink(path);
    rmdir(dir);
}

static void test_rows_are_read_and_the_newest_wins(void **state)
{
    (void)state;
    char dir[512], error[1024];
    folder_with(dir, sizeof dir, CSV_ACCURACY_HEADER "\n"
                "9,tf32x3,trimul,B=8 T=1024 C=768 NH=12,1,0,4.590e-07,1.5e-06,H200,13.0,c,2026-12-01\n"
                "9,tf32x3,trimul,B=8 T=1024 C=768 NH=12,0.001,0,4.616e-07,1e-12,H200,13.0,c,2026-12-01\n"
                "9,tf32x3,trimul,B=8 T=1024 C=768 NH=12,1,0,4.000e-07,1.5e-06,H200,13.0,c,2026-11-30\n");
    accuracy_set set;
    assert_int_equal(accuracy_read_folder(dir, &set, error, sizeof error), 0);
    assert_int_equal(set.count, 3);
    const accuracy_row *row = accuracy_newest(&set, "tf32x3", "B=8 T=1024 C=768 NH=12", 1, 0);
    assert_non_null(row);
    assert_true(row->rel_l2 == 4.590e-07); /* the newer date, not the later line */
    row = accuracy_newest(&set, "tf32x3", "B=8 T=1024 C=768 NH=12", 0.001, 0);
    assert_non_null(row);
    assert_true(row->rel_l2 == 4.616e-07);
    assert_null(accuracy_newest(&set, "tf32x3", "B=8 T=1024 C=768 NH=12", 1, 90));
    assert_null(accuracy_newest(&set, "naive", "B=8 T=1024 C=768 NH=12", 1, 0));
    accuracy_free(&set);
    remove_folder(dir);
}

static void test_malformed_files_are_refused_with_file_and_line(void **state)
{
    (void)state;
    char dir[512], error[1024];
    accuracy_set set;
    folder_with(dir, sizeof dir, "chapter,kernel\n");
    assert_int_equal(accuracy_read_folder(dir, &set, error, sizeof error), -1);
    assert_non_null(strstr(error, "trimul.csv:1: the first line is not the header"));
    accuracy_free(&set);
    folder_with(dir, sizeof dir, CSV_ACCURACY_HEADER "\n9,tf32x3,trimul,B=8,1,0,small,1,H,13,c,2026-12-01\n");
    assert_int_equal(accuracy_read_folder(dir, &set, error, sizeof error), -1);
    assert_non_null(strstr(error, "trimul.csv:2: malformed row"));
    accuracy_free(&set);
    folder_with(dir, sizeof dir, CSV_ACCURACY_HEADER "\n9,tf32x3,trimul,B=8,1,0,1e-7\n");
    assert_int_equal(accuracy_read_folder(dir, &set, error, sizeof error), -1);
    assert_non_null(strstr(error, "not 12 fields"));
    accuracy_free(&set);
    remove_folder(dir);
    assert_int_equal(accuracy_read_folder("/nonexistent-folder", &set, error, sizeof error), 0);
    assert_int_equal(set.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_read_and_the_newest_wins),
        cmocka_unit_test(test_malformed_files_are_refused_with_file_and_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
