/* renumber.c - `generate renumber LIST CSV`: CSV (a file of plots/data/,
 * header first, the chapter in the first field, the kernel in the second,
 * the problem in the third) to standard output,
 * with each row's chapter set to the one the list gives its kernel: when a
 * kernel moves to another chapter, its rows measured before the move follow
 * it. Nothing else of a row changes, and a row whose kernel the list does
 * not name is left as it is (the CSV reader refuses it later, with its
 * line). Those three fields hold no comma or quote (the reader checks
 * that), so the first commas find them even in a row with a quoted field
 * further on. */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int renumber_command(const char *path, const char *csv_path)
{
    kernel_list list;
    read_list(path, &list);
    FILE *in = fopen(csv_path, "r");
    if (!in)
        die("cannot read %s", csv_path);
    char *line = NULL;
    size_t capacity = 0;
    for (long number = 1; getline(&line, &capacity, in) >= 0; number++) {
        char *first = strchr(line, ','), *second = first ? strchr(first + 1, ',') : NULL;
        char *third = second ? strchr(second + 1, ',') : NULL;
        const kernel_entry *entry = NULL;
        if (number > 1 && third) {
            size_t kernel_length = (size_t)(second - first - 1);
            if (kernel_length > 6 && strncmp(second - 6, "+graph", 6) == 0)
                kernel_length -= 6; /* a replay is its kernel's */
            const size_t problem_length = (size_t)(third - second - 1);
            for (int k = 0; k < list.count && !entry; k++) {
                const kernel_entry *e = &list.entries[k];
                if (strlen(e->name) == kernel_length && strncmp(e->name, first + 1, kernel_length) == 0 &&
                    strlen(e->problem) == problem_length &&
                    strncmp(e->problem, second + 1, problem_length) == 0)
                    entry = e;
            }
        }
        if (entry)
            printf("%d%s", entry->chapter, first);
        else
            fputs(line, stdout);
    }
    free(line);
    fclose(in);
    kernel_list_free(&list);
    return fflush(stdout) == 0 ? 0 : 1;
}

