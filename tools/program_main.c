/* program_main.c - `generate main LIST CHAPTER PROBLEM KIND PROGRAM`: the
 * main() of one chapter program (build/gen/PROGRAM.cu): the contenders it
 * races, in the list's order, with their facts, among them where each one's
 * work is (kernel_where.c), which --list prints. KIND chapter races the
 * problem's champions, the best kernel of every earlier chapter, and
 * CHAPTER's own steps and best; KIND tried races the champions, CHAPTER's
 * best and its tried variants. It holds no device code: the host compiler
 * builds it.
 */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main_command(const char *path, const char *chapter_word, const char *problem,
                        const char *kind, const char *program)
{
    const int chapter = chapter_number(chapter_word);
    const int tried = strcmp(kind, "tried") == 0;
    if (!tried && strcmp(kind, "chapter") != 0)
        die("kind \"%s\" is neither chapter nor tried", kind);
    kernel_list list;
    read_list(path, &list);
    int *chosen = calloc((size_t)list.count + 1, sizeof *chosen);
    int count = 0;
    for (int k = 0; k < list.count; k++) {
        const kernel_entry *e = &list.entries[k];
        if (strcmp(e->problem, problem) != 0 || e->role == KERNEL_TORCH || e->chapter > chapter)
            continue;
        const int wanted = tried ? e->role == KERNEL_CHAMPION ||
                                       (e->chapter == chapter &&
                                        (e->role == KERNEL_BEST || e->role == KERNEL_TRIED))
                                 : e->role == KERNEL_CHAMPION ||
                                       (e->chapter < chapter && e->role == KERNEL_BEST) ||
                                       (e->chapter == chapter &&
                                        (e->role == KERNEL_STEP || e->role == KERNEL_BEST));
        if (wanted)
            chosen[count++] = k;
    }
    if (count == 0)
        die("no %s contenders for chapter %d (%s) in %s", kind, chapter, problem, path);
    const int msa = strcmp(problem, "msa") == 0;
    const char *type = msa ? "msa" : "triangle";
    printf("/* %s main - generated from chapters/kernels.list by tools/generate.c;\n", program);
    printf(" * edits here are overwritten. */\n#include \"%s\"\n\n",
           msa ? "problems/msa.h" : "problems/triangle.h");
    for (int k = 0; k < count; k++)
        printf("extern const %s_kernel %s;\n", type, list.entries[chosen[k]].symbol);
    printf("\nstatic const %s_contender contenders[] = {\n", type);
    for (int k = 0; k < count; k++) {
        printf("    {");
        print_contender_facts(&list, chosen[k]);
        printf(", &%s},\n", list.entries[chosen[k]].symbol);
    }
    printf("};\n\nint main(int argc, char **argv)\n{\n");
    printf("    return %s_chapter_main(argc, argv, \"%s\", %d, \"chapter %d, %s: %d kernels "
           "checked against the CPU referee and timed%s\", contenders,\n", type, program, chapter,
           chapter, msa ? "MSA column-wise gated attention" : "the causal-attention score triangle",
           count, tried ? ", the variants the chapter tried beside its result" : "");
    printf("                           (int)(sizeof contenders / sizeof contenders[0]));\n}\n");
    free(chosen);
    kernel_list_free(&list);
    return 0;
}
