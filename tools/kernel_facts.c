/* kernel_facts.c - a contender's facts as C, from chapters/kernels.list:
 * the initializer of a contender_facts (common/harness/contender.h) that
 * every generated main prints for each of its contenders, and `generate
 * facts LIST`, build/gen/kernel_facts.h: one macro a kernel,
 *
 *     #define KERNEL_FACTS_tf32_rows_kernel {"tf32+rows", 8, CONTENDER_BEST, ...}
 *
 * and CONTENDER_OF(symbol), the whole contender, for a program that races a
 * chapter's kernel outside the chapter programs (the predict exercises): it
 * takes the kernel's facts from the list as the chapter programs do.
 */
#include "generate.h"

#include <stdio.h>
#include <string.h>

static const char *const role_word[] = {"CHAMPION", "STEP", "BEST", "TRIED", "TORCH"};

void print_contender_facts(const kernel_list *list, int index)
{
    const kernel_entry *e = &list->entries[index];
    char where[1024], literal[2100];
    where_of(list, index, where, sizeof where, 0);
    size_t n = 0; /* as a C string: a path holds no quote or backslash, but be sure */
    for (const char *c = where; *c && n + 3 < sizeof literal; c++) {
        if (*c == '"' || *c == '\\')
            literal[n++] = '\\';
        literal[n++] = *c;
    }
    literal[n] = '\0';
    printf("{\"%s\", %d, CONTENDER_%s, %s, %s, %d, %d, %d, \"%s\"}", e->name, e->chapter,
           role_word[e->role], e->pipe == GPU_PIPE_TENSOR ? "GPU_PIPE_TENSOR" : "GPU_PIPE_SIMT",
           strcmp(e->accuracy, "tf32") == 0 ? "TOLERANCE_TF32" : "TOLERANCE_FP32",
           e->needs_major, e->needs_minor, e->needs_arch_specific, literal);
}

int facts_command(const char *path)
{
    kernel_list list;
    read_list(path, &list);
    printf("/* kernel_facts.h - generated from chapters/kernels.list by tools/generate\n"
           " * (facts); edits here are overwritten. Every kernel's facts, for a\n"
           " * program that races a chapter's kernel outside the chapter programs. */\n"
           "#ifndef WORKBOOK_KERNEL_FACTS_H\n#define WORKBOOK_KERNEL_FACTS_H\n\n"
           "#include \"harness/contender.h\"\n\n"
           "/* {KERNEL_FACTS_symbol, &symbol}: the contender of the kernel whose\n"
           " * triangle_kernel or msa_kernel is `symbol`. */\n"
           "#define CONTENDER_OF(symbol) {KERNEL_FACTS_##symbol, &symbol}\n\n");
    for (int k = 0; k < list.count; k++) {
        if (list.entries[k].role == KERNEL_TORCH)
            continue; /* no symbol: measured by PyTorch */
        printf("#define KERNEL_FACTS_%s ", list.entries[k].symbol);
        print_contender_facts(&list, k);
        printf("\n");
    }
    printf("\n#endif\n");
    kernel_list_free(&list);
    return 0;
}
