/* tests/test_csv.c - cmocka tests of common/harness/csv.c under the conditions a
 * benchmark meets: many runs appending to one file at once (make bench on
 * several chapters, or several machines writing to a shared plots/data/),
 * and a file left without its final newline (a run killed mid-row, an
 * editor), and the check of a --csv destination before a run. Each writer
 * is a forked process, as each run is. Built by
 * `make`, run by `make test`:
 *
 *   build/tests/test_csv
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
#include <sys/wait.h>
#include <unistd.h>

#include "harness/csv.h"

enum { MANY_WRITERS = 16, ROWS_EACH = 300, FIRST_WRITERS = 8, FIRST_ROUNDS = 20 };

/* A fresh directory of our own, so that each file starts out not existing. */
static void fresh_directory(char *dir, size_t capacity)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, capacity, "%s/workbook-csv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
}

/* Row `index` of writer `writer`: every field says whose it is, so a line
 * torn or glued to another one cannot pass for a row. */
static csv_row row_of(int writer, int index, char *kernel, char *commit)
{
    sprintf(kernel, "writer%02d", writer);
    sprintf(commit, "row%04d", index);
    csv_row row = {6, kernel, "msa", "B=2 S=8 N=32 D=64 H=4 mask=drawn", 0.012345, 0.011, 0.019,
                   1234.5, 678.9, "NVIDIA H200", "13.0", commit, "2026-12-01"};
    return row;
}

/* Forks `writers` processes that wait at one gate (a pipe whose writing end
 * the parent closes), then each append `rows` rows to path. Returns when
 * all have exited; fails the test if one of them failed. */
static void run_writers(const char *path, int writers, int rows)
{
    int gate[2];
    assert_int_equal(pipe(gate), 0);
    pid_t children[MANY_WRITERS];
    assert_true(writers <= MANY_WRITERS);
    for (int w = 0; w < writers; w++) {
        children[w] = fork();
        assert_true(children[w] >= 0);
        if (children[w] == 0) {
            close(gate[1]);
            char byte;
            (void)!read(gate[0], &byte, 1); /* returns 0 when the gate opens */
            int failed = 0;
            for (int i = 0; i < rows; i++) {
                char kernel[32], commit[32];
                csv_row row = row_of(w, i, kernel, commit);
                failed |= csv_append(path, &row) != 0;
            }
            _exit(failed ? 1 : 0);
        }
    }
    close(gate[0]);
    close(gate[1]); /* every writer starts now */
    for (int w = 0; w < writers; w++) {
        int status;
        assert_int_equal(waitpid(children[w], &status, 0), children[w]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

/* Reads path line by line and checks: the header first and never again,
 * every other line exactly one of the rows of `writers` x `rows`, each of
 * them once, and the file ending in a newline. */
static void expect_whole_rows(const char *path, int writers, int rows)
{
    FILE *file = fopen(path, "r");
    assert_non_null(file);
    static int seen[MANY_WRITERS][ROWS_EACH];
    memset(seen, 0, sizeof seen);
    char line[4096];
    int number = 0, headers = 0, broken = 0, total = 0;
    while (fgets(line, sizeof line, file)) {
        number++;
        size_t length = strlen(line);
        if (length == 0 || line[length - 1] != '\n') {
            print_error("line %d has no newline: '%s'\n", number, line);
            broken++;
            continue;
        }
        line[length - 1] = '\0';
        if (strcmp(line, CSV_HEADER) == 0) {
            if (number != 1)
                print_error("line %d is a second header\n", number);
            headers++;
            continue;
        }
        int writer = -1, index = -1;
        if (sscanf(line, "6,writer%2d,", &writer) != 1 || writer < 0 || writer >= writers ||
            !strstr(line, ",row") || sscanf(strstr(line, ",row") + 4, "%4d", &index) != 1 ||
            index < 0 || index >= rows) {
            print_error("line %d is not a whole row: '%.200s'\n", number, line);
            broken++;
            continue;
        }
        char kernel[32], commit[32], want[1024];
        csv_row row = row_of(writer, index, kernel, commit);
        assert_true(csv_format_row(want, sizeof want, &row) > 0);
        if (strcmp(line, want) != 0) {
            print_error("line %d is torn: '%.200s'\n", number, line);
            broken++;
            continue;
        }
        seen[writer][index]++;
        total++;
    }
    fclose(file);
    int missing_or_twice = 0;
    for (int w = 0; w < writers; w++)
        for (int i = 0; i < rows; i++)
            missing_or_twice += seen[w][i] != 1;
    if (headers != 1 || broken || missing_or_twice)
        print_error("%s: %d header line(s), %d broken line(s), %d of %d rows missing or twice\n",
                    path, headers, broken, missing_or_twice, writers * rows);
    assert_int_equal(headers, 1);
    assert_int_equal(broken, 0);
    assert_int_equal(missing_or_twice, 0);
    assert_int_equal(total, writers * rows);
}

static void test_csv_many_writers_leave_whole_rows_and_one_header(void **state)
{
    (void)state;
    char dir[512], path[600];
    fresh_directory(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/msa.csv", dir);
    run_writers(path, MANY_WRITERS, ROWS_EACH);
    expect_whole_rows(path, MANY_WRITERS, ROWS_EACH);
    unlink(path);
    rmdir(dir);
}

/* The race for the header alone: runs that find the file missing at the
 * same moment, each with one row. */
static void test_csv_runs_creating_a_file_at_once_write_one_header(void **state)
{
    (void)state;
    char dir[512], path[600];
    fresh_directory(dir, sizeof dir);
    for (int round = 0; round < FIRST_ROUNDS; round++) {
        snprintf(path, sizeof path, "%s/round%02d.csv", dir, round);
        run_writers(path, FIRST_WRITERS, 1);
        expect_whole_rows(path, FIRST_WRITERS, 1);
        unlink(path);
    }
    rmdir(dir);
}

/* A file whose last row lost its newline: the next row goes on a line of
 * its own, and the old row is kept as it was. */
static void test_csv_repairs_a_missing_final_newline(void **state)
{
    (void)state;
    char dir[512], path[600];
    fresh_directory(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/cut.csv", dir);
    char kernel[32], commit[32], first[1024], second[1024];
    csv_row row = row_of(0, 0, kernel, commit);
    assert_true(csv_format_row(first, sizeof first, &row) > 0);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "%s\n%s", CSV_HEADER, first); /* no newline after the row */
    fclose(file);

    row = row_of(0, 1, kernel, commit);
    assert_true(csv_format_row(second, sizeof second, &row) > 0);
    assert_int_equal(csv_append(path, &row), 0);

    char want[4096], got[4096] = "";
    snprintf(want, sizeof want, "%s\n%s\n%s\n", CSV_HEADER, first, second);
    file = fopen(path, "r");
    assert_non_null(file);
    size_t length = fread(got, 1, sizeof got - 1, file);
    got[length] = '\0';
    fclose(file);
    assert_string_equal(got, want);

    /* A header cut before its newline is repaired the same way. */
    file = fopen(path, "w");
    fputs(CSV_HEADER, file);
    fclose(file);
    assert_int_equal(csv_append(path, &row), 0);
    file = fopen(path, "r");
    length = fread(got, 1, sizeof got - 1, file);
    got[length] = '\0';
    fclose(file);
    snprintf(want, sizeof want, "%s\n%s\n", CSV_HEADER, second);
    assert_string_equal(got, want);
    unlink(path);
    rmdir(dir);
}

/* What csv_append refuses, it leaves as it was. */
static void test_csv_refuses_a_foreign_file_and_leaves_it(void **state)
{
    (void)state;
    char dir[512], path[600];
    fresh_directory(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/other.csv", dir);
    FILE *file = fopen(path, "w");
    fputs("name,value\nx,1", file);
    fclose(file);
    char kernel[32], commit[32];
    csv_row row = row_of(0, 0, kernel, commit);
    assert_int_equal(csv_append(path, &row), -1);
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    assert_int_equal((int)info.st_size, (int)strlen("name,value\nx,1"));
    unlink(path);
    rmdir(dir);
}

/* What --csv FILE is checked for before a run: a file csv_append could
 * write, and the check itself leaves nothing behind. */
static void test_csv_check_destination(void **state)
{
    (void)state;
    char dir[512], path[700], message[1024];
    fresh_directory(dir, sizeof dir);

    snprintf(path, sizeof path, "%s/new.csv", dir);
    assert_int_equal(csv_check_destination(path, message, sizeof message), 0);
    assert_int_equal(access(path, F_OK), -1); /* not created: no empty file without a header */

    assert_int_equal(csv_check_destination("/nonexistent-dir/x.csv", message, sizeof message), -1);
    assert_non_null(
        strstr(message, "/nonexistent-dir/x.csv: the directory /nonexistent-dir does not exist"));

    assert_int_equal(csv_check_destination(dir, message, sizeof message), -1);
    assert_non_null(strstr(message, "is not a regular file"));

    snprintf(path, sizeof path, "%s/regular", dir);
    FILE *file = fopen(path, "w");
    fputs("name,value\n", file);
    fclose(file);
    assert_int_equal(csv_check_destination(path, message, sizeof message), -1);
    assert_non_null(strstr(message, "does not start with the header"));
    char below[800];
    snprintf(below, sizeof below, "%s/x.csv", path);
    assert_int_equal(csv_check_destination(below, message, sizeof message), -1);
    assert_non_null(strstr(message, "is not a directory"));
    unlink(path);

    /* Ours, or empty: accepted. */
    snprintf(path, sizeof path, "%s/ours.csv", dir);
    file = fopen(path, "w");
    fputs(CSV_HEADER "\n", file);
    fclose(file);
    assert_int_equal(csv_check_destination(path, message, sizeof message), 0);
    file = fopen(path, "w");
    fclose(file);
    assert_int_equal(csv_check_destination(path, message, sizeof message), 0);
    unlink(path);

    /* A bare file name is in the current directory. */
    assert_int_equal(csv_check_destination("no-such-file-here.csv", message, sizeof message), 0);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_many_writers_leave_whole_rows_and_one_header),
        cmocka_unit_test(test_csv_runs_creating_a_file_at_once_write_one_header),
        cmocka_unit_test(test_csv_repairs_a_missing_final_newline),
        cmocka_unit_test(test_csv_refuses_a_foreign_file_and_leaves_it),
        cmocka_unit_test(test_csv_check_destination),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
