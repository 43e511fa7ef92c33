/* generate.c - the command line of build/tools/generate: everything the
 * build derives from chapters/kernels.list, through the one reader of that
 * list (tools/kernel_list.c, unit-tested by tests/test_kernel_list.c). Each
 * command lives in a file of its own (tools/generate.h says which):
 *
 *   generate programs-mk LIST CHAPTERS MUTANTS   > build/gen/programs.mk  (programs_mk.c)
 *   generate programs    LIST CHAPTERS MUTANTS   make programs: the table  (programs_mk.c)
 *   generate main LIST CHAPTER PROBLEM KIND PROGRAM  > build/gen/PROGRAM.cu  (program_main.c)
 *   generate facts LIST      > build/gen/kernel_facts.h: every kernel's facts  (kernel_facts.c)
 *   generate where LIST      where each contender's work is  (kernel_where.c)
 *   generate frontier LIST DATA DIR/ UPTO   chapter 9's precision frontier  (frontier.c)
 *   generate renumber LIST CSV    CSV with its chapter column set from the list  (renumber.c)
 *   generate chapter LIST NAME    the chapter that introduces kernel NAME  (here)
 *
 * Exit status 0, or 1 with a message on stderr ("chapters/kernels.list:40:
 * ..." for a malformed line), 2 for a wrong command line.
 */
#include "generate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("generate: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

void read_list(const char *path, kernel_list *list)
{
    char error[512];
    if (kernel_list_read(path, list, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        exit(1);
    }
}

int chapter_number(const char *word)
{
    char *end;
    long n = strtol(word, &end, 10);
    if (end == word || (*end && *end != ':') || n < 1 || n >= GENERATE_MAX_CHAPTERS)
        die("\"%s\" is not a chapter number", word);
    return (int)n;
}

/* The chapter that introduces kernel NAME (of either problem; a replay,
 * NAME+graph, is its kernel's): what tests/book/chapter_bound.sh asks of
 * each kernel a chapter's plot shows. Exit 1 when the list has no NAME. */
static int chapter_command(const char *path, const char *name)
{
    kernel_list list;
    read_list(path, &list);
    const size_t length = strlen(name);
    const size_t base = length > 6 && strcmp(name + length - 6, "+graph") == 0 ? length - 6 : length;
    int chapter = 0;
    for (int k = 0; k < list.count && !chapter; k++)
        if (strlen(list.entries[k].name) == base && strncmp(list.entries[k].name, name, base) == 0)
            chapter = list.entries[k].chapter;
    kernel_list_free(&list);
    if (!chapter) {
        fprintf(stderr, "generate chapter: %s lists no kernel \"%s\"\n", path, name);
        return 1;
    }
    printf("%d\n", chapter);
    return 0;
}


int main(int argc, char **argv)
{
    const char *command = argc > 1 ? argv[1] : "";
    if ((strcmp(command, "programs-mk") == 0 || strcmp(command, "programs") == 0) && argc == 5)
        return programs_command(strcmp(command, "programs-mk") == 0, argv[2], argv[3], argv[4]);
    if (strcmp(command, "main") == 0 && argc == 7)
        return main_command(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if (strcmp(command, "facts") == 0 && argc == 3)
        return facts_command(argv[2]);
    if (strcmp(command, "where") == 0 && argc == 3)
        return where_command(argv[2]);
    if (strcmp(command, "chapter") == 0 && argc == 4)
        return chapter_command(argv[2], argv[3]);
    if (strcmp(command, "renumber") == 0 && argc == 4)
        return renumber_command(argv[2], argv[3]);
    if (strcmp(command, "frontier") == 0 && argc == 6) {
        char *end;
        const long upto = strtol(argv[5], &end, 10);
        if (*end || end == argv[5] || upto < 1 || upto > KERNEL_LIST_MAX_CHAPTER)
            die("frontier: UPTO \"%s\" is not a chapter number", argv[5]);
        return frontier_command(argv[2], argv[3], argv[4], (int)upto);
    }
    fprintf(stderr, "usage: generate programs-mk|programs LIST CHAPTERS MUTANTS\n"
                    "       generate main LIST CHAPTER PROBLEM KIND PROGRAM\n"
                    "       generate frontier LIST DATA DIR UPTO\n"
                    "       generate facts LIST\n"
                    "       generate where LIST\n"
                    "       generate chapter LIST NAME\n"
                    "       generate renumber LIST CSV\n"
                    "(tools/generate.h says where each is written)\n");
    return 2;
}
