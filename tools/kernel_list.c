/* kernel_list.c - reads chapters/kernels.list. See kernel_list.h. */
#include "kernel_list.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *error, size_t capacity, kernel_list *list, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error, capacity, format, args);
    va_end(args);
    kernel_list_free(list);
    return -1;
}

/* Index of word in the NULL-ended words, or -1. */
static int word_index(const char *word, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (strcmp(word, words[k]) == 0)
            return k;
    return -1;
}

static int copy_column(char *into, size_t capacity, const char *text)
{
    if (strlen(text) >= capacity)
        return -1;
    strcpy(into, text);
    return 0;
}

int kernel_list_parse(const char *path, const char *text, kernel_list *list, char *error,
                      size_t capacity)
{
    static const char *const problems[] = {"trimul", "msa", NULL};
    static const char *const roles[] = {"champion", "step", "best", "tried", "torch", NULL};
    static const char *const pipes[] = {"simt", "tensor", NULL};
    static const char *const accuracies[] = {"fp32", "tf32", NULL};
    static const char *const needs[] = {"sm_75", "sm_80", "sm_90a", NULL};
    list->entries = NULL;
    list->count = 0;
    int number = 0;
    for (const char *line = text; *line; ) {
        size_t length = strcspn(line, "\n");
        char copy[512], *column[9], *save = NULL;
        number++;
        if (length >= sizeof copy)
            return fail(error, capacity, list, "%s:%d: the line is too long", path, number);
        memcpy(copy, line, length);
        copy[length] = '\0';
        line += length + (line[length] == '\n');
        int columns = 0;
        for (char *word = strtok_r(copy, " \t\r", &save); word && columns < 9;
             word = strtok_r(NULL, " \t\r", &save))
            column[columns++] = word;
        if (columns == 0 || column[0][0] == '#')
            continue; /* a blank line or a comment */
        if (columns != 8)
            return fail(error, capacity, list, "%s:%d: %d columns; a contender has 8 (problem "
                        "chapter role pipe accuracy needs name symbol)", path, number, columns);
        kernel_entry entry;
        char *end;
        long chapter = strtol(column[1], &end, 10);
        int role = word_index(column[2], roles), pipe = word_index(column[3], pipes);
        if (word_index(column[0], problems) < 0)
            return fail(error, capacity, list, "%s:%d: problem \"%s\" is neither trimul nor msa",
                        path, number, column[0]);
        if (*end || chapter < 1 || chapter > KERNEL_LIST_MAX_CHAPTER)
            return fail(error, capacity, list, "%s:%d: chapter \"%s\" is not a chapter number",
                        path, number, column[1]);
        if (role < 0)
            return fail(error, capacity, list, "%s:%d: role \"%s\" is not champion, step, best, "
                        "tried or torch", path, number, column[2]);
        if (pipe < 0)
            return fail(error, capacity, list, "%s:%d: pipe \"%s\" is neither simt nor tensor",
                        path, number, column[3]);
        if (word_index(column[4], accuracies) < 0)
            return fail(error, capacity, list, "%s:%d: accuracy \"%s\" is neither fp32 nor tf32",
                        path, number, column[4]);
        const int need = word_index(column[5], needs);
        if (need < 0)
            return fail(error, capacity, list, "%s:%d: needs \"%s\" is not sm_75, sm_80 or "
                        "sm_90a", path, number, column[5]);
        if (pipe == GPU_PIPE_TENSOR && need == 0)
            return fail(error, capacity, list, "%s:%d: a tensor-core kernel needs sm_80 at "
                        "least (TF32 arrived with Ampere), not sm_75", path, number);
        const char *name = column[6];
        if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-+") != strlen(name) ||
            strstr(name, "++") || name[0] == '+' || name[strlen(name) - 1] == '+')
            return fail(error, capacity, list, "%s:%d: name \"%s\" is not a kernel name (a-z, "
                        "0-9, '-', '+' between parts)", path, number, name);
        if (copy_column(entry.problem, sizeof entry.problem, column[0]) ||
            copy_column(entry.accuracy, sizeof entry.accuracy, column[4]) ||
            copy_column(entry.name, sizeof entry.name, name) ||
            copy_column(entry.needs, sizeof entry.needs, column[5]) ||
            copy_column(entry.symbol, sizeof entry.symbol, column[7]))
            return fail(error, capacity, list, "%s:%d: a column is too long", path, number);
        if (kernel_list_find(list, entry.problem, name) >= 0 ||
            (strlen(name) > 6 && strcmp(name + strlen(name) - 6, "+graph") == 0))
            return fail(error, capacity, list, "%s:%d: %s \"%s\" is listed twice (a name and "
                        "its \"+graph\" replay are one contender)", path, number, entry.problem,
                        name);
        entry.chapter = (int)chapter;
        entry.role = (kernel_role)role;
        entry.pipe = (gpu_pipe)pipe;
        entry.needs_major = need == 0 ? 7 : need == 1 ? 8 : 9;
        entry.needs_minor = need == 0 ? 5 : 0;
        entry.needs_arch_specific = need == 2;
        kernel_entry *bigger = realloc(list->entries, (size_t)(list->count + 1) * sizeof *bigger);
        if (!bigger)
            return fail(error, capacity, list, "%s: out of memory", path);
        list->entries = bigger;
        list->entries[list->count++] = entry;
    }
    return 0;
}

int kernel_list_read(const char *path, kernel_list *list, char *error, size_t capacity)
{
    list->entries = NULL;
    list->count = 0;
    FILE *file = fopen(path, "rb");
    if (!file)
        return fail(error, capacity, list, "%s: cannot read: %s", path, strerror(errno));
    char *text = NULL;
    size_t length = 0;
    FILE *content = open_memstream(&text, &length);
    char chunk[4096];
    size_t got;
    while (content && (got = fread(chunk, 1, sizeof chunk, file)) > 0)
        fwrite(chunk, 1, got, content);
    fclose(file);
    if (!content || fclose(content) != 0)
        return fail(error, capacity, list, "%s: out of memory", path);
    int status = memchr(text, '\0', length)
                     ? fail(error, capacity, list, "%s: holds a NUL byte; not a text file", path)
                     : kernel_list_parse(path, text, list, error, capacity);
    free(text);
    return status;
}

void kernel_list_free(kernel_list *list)
{
    free(list->entries);
    list->entries = NULL;
    list->count = 0;
}

int kernel_list_find(const kernel_list *list, const char *problem, const char *kernel)
{
    size_t length = strlen(kernel);
    if (length > 6 && strcmp(kernel + length - 6, "+graph") == 0)
        length -= 6;
    for (int k = 0; k < list->count; k++) {
        const kernel_entry *entry = &list->entries[k];
        if (strcmp(entry->problem, problem) == 0 && strlen(entry->name) == length &&
            strncmp(entry->name, kernel, length) == 0)
            return k;
    }
    return -1;
}

double kernel_peak_gflops(const kernel_entry *kernel, const char *gpu)
{
    return gpu_card_peak_gflops(gpu, kernel->pipe);
}
