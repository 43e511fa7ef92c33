/* programs_mk.c - `generate programs-mk` and `generate programs`: the
 * chapter programs chapters/kernels.list implies and which chapters each
 * links, as Makefile rules (build/gen/programs.mk) or as a table (make
 * programs). CHAPTERS: the chapters that have a folder (lines of other
 * chapters are ignored); MUTANTS: "N" for each chapter with a
 * chapters/NN-slug/mutant.patch (build/chapterN-mutant, the program built
 * from the patched sources) and "N:NAME" for each mutant-NAME.patch
 * (build/chapterN-mutant-NAME). Each argument is one word of
 * blank-separated items.
 *
 * Chapter N has one program per problem it has kernels of: build/chapterN
 * (build/chapterN-PROBLEM when it has two), racing the problem's champions,
 * the best kernel of every earlier chapter and its own steps and best; and,
 * when it has tried variants, build/chapterN-tried (chapterN-PROBLEM-tried)
 * racing the champions, its best and those variants. A program links the
 * objects of every chapter one of its contenders comes from (its own
 * always), a tried program its chapter's tried/ objects too; code a chapter
 * reuses from another comes through that chapter's header (.cuh), so no
 * object stands in for another. The table has one line per program: NAME
 * PROBLEM CHAPTER KIND LINKED-CHAPTERS...; programs-mk writes the same as
 * Makefile rules.
 *
 * programs-mk also writes ARCH_SPECIFIC_FOLDERS: the chapter folders whose
 * code is built for the card's architecture-specific target (sm_90a on
 * sm_90): the chapters with a kernel the list says `needs` sm_90a, and the
 * chapters whose sources include one of their headers (chapter 13's layer
 * calls chapter 11's GEMM); and HOPPER_ONLY_FOLDERS: the chapters every
 * kernel of which needs sm_90a (on any other card their code is stubs).
 */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAPTERS GENERATE_MAX_CHAPTERS

/* A set of chapters, in the order they were added, each once. */
typedef struct {
    int chapter[MAX_CHAPTERS];
    int count;
} chapter_set;

static void add_chapter(chapter_set *set, int chapter)
{
    for (int k = 0; k < set->count; k++)
        if (set->chapter[k] == chapter)
            return;
    set->chapter[set->count++] = chapter;
}

/* " 1 2 3": each chapter with a blank before it, as the rules spell them. */
static void format_set(const chapter_set *set, int except, char *out, size_t capacity)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < set->count; k++)
        if (set->chapter[k] != except)
            used += (size_t)snprintf(out + used, capacity - used, " %d", set->chapter[k]);
}

typedef struct {
    const kernel_list *list;
    int has_folder[MAX_CHAPTERS];
    char mutant_words[64][64];                /* "6" or "6:max" */
    int mutant_count;
    int make; /* 1: programs-mk, 0: the table */
} programs;

static int is_raced(const kernel_entry *entry, const programs *p)
{
    return entry->role != KERNEL_TORCH && p->has_folder[entry->chapter];
}

/* The chapters of the problem's contenders with one of the roles (in the
 * list's order), plus own (0: none), up to most. */
static chapter_set linked(const programs *p, const char *problem, int best_too, int most, int own)
{
    chapter_set all = {{0}, 0}, out = {{0}, 0};
    for (int k = 0; k < p->list->count; k++) {
        const kernel_entry *e = &p->list->entries[k];
        if (is_raced(e, p) && strcmp(e->problem, problem) == 0 &&
            (e->role == KERNEL_CHAMPION || (best_too && e->role == KERNEL_BEST)))
            add_chapter(&all, e->chapter);
    }
    if (own)
        add_chapter(&all, own);
    for (int k = 0; k < all.count; k++)
        if (all.chapter[k] <= most)
            add_chapter(&out, all.chapter[k]);
    return out;
}

static void emit(const programs *p, const char *name, const char *problem, int chapter,
                 const char *kind, const chapter_set *chapters)
{
    char list[512], others[512];
    format_set(chapters, 0, list, sizeof list);
    format_set(chapters, chapter, others, sizeof others);
    const int is_chapter = strcmp(kind, "chapter") == 0;
    if (!p->make) {
        printf("%s %s %d %s%s\n", name, problem, chapter, kind, list);
        for (int m = 0; is_chapter && m < p->mutant_count; m++) {
            const char *colon = strchr(p->mutant_words[m], ':');
            if (chapter_number(p->mutant_words[m]) == chapter)
                printf("%s-mutant%s%s %s %d mutant%s\n", name, colon ? "-" : "",
                       colon ? colon + 1 : "", problem, chapter, list);
        }
        return;
    }
    const int tried = strcmp(kind, "tried") == 0;
    printf("%s_PROGRAMS += $(BUILD)/%s\n", tried ? "TRIED" : "CHAPTER", name);
    printf("$(BUILD)/%s: $(BUILD)/obj/gen/%s.o $(call chapter_objects,%s)", name, name, list);
    if (tried)
        printf(" $(call tried_objects,%d)", chapter);
    printf(" $(LIBRARY)\n\t$(NVCC) $(NVCCFLAGS) $^ $(NVCCLIBS) -o $@\n");
    /* The main names where each contender's code is (--list), so it follows
     * the sources; rewritten only when what it says changed. */
    printf("$(BUILD)/gen/%s.cu: chapters/kernels.list $(GENERATE) $(CHAPTER_CODE)\n", name);
    printf("\t@mkdir -p $(dir $@)\n");
    printf("\t@$(GENERATE) main $< %d %s %s %s > $@.partial && "
           "{ cmp -s $@.partial $@ && rm $@.partial || mv $@.partial $@; }\n", chapter, problem, kind,
           name);
    if (is_chapter)
        printf("PROGRAMS_OF_%d += $(BUILD)/%s\n", chapter, name);
    for (int m = 0; is_chapter && m < p->mutant_count; m++) {
        if (chapter_number(p->mutant_words[m]) != chapter)
            continue;
        const char *colon = strchr(p->mutant_words[m], ':');
        char suffix[80];
        snprintf(suffix, sizeof suffix, "%s%s", colon ? "-" : "", colon ? colon + 1 : "");
        printf("MUTANT_PROGRAMS += $(BUILD)/%s-mutant%s\n", name, suffix);
        printf("$(BUILD)/%s-mutant%s: $(BUILD)/obj/gen/%s.o $(call chapter_objects,%s) "
               "$(call mutant_objects,%d,%s) $(LIBRARY)\n", name, suffix, name, others, chapter,
               colon ? colon + 1 : "");
        printf("\t$(NVCC) $(NVCCFLAGS) $^ $(NVCCLIBS) -o $@\n");
    }
}

int programs_command(int make, const char *path, const char *chapters, const char *mutants)
{
    static programs p;
    kernel_list list;
    read_list(path, &list);
    p.list = &list;
    p.make = make;
    char words[4096], *save, *word;
    snprintf(words, sizeof words, "%s", chapters);
    for (word = strtok_r(words, " \t", &save); word; word = strtok_r(NULL, " \t", &save))
        p.has_folder[chapter_number(word)] = 1;
    snprintf(words, sizeof words, "%s", mutants);
    for (word = strtok_r(words, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
        if (p.mutant_count == 64 || strlen(word) >= sizeof p.mutant_words[0])
            die("too many mutants, or too long a name: \"%s\"", word);
        chapter_number(word);
        strcpy(p.mutant_words[p.mutant_count++], word);
    }
    for (int chapter = 1; chapter < MAX_CHAPTERS; chapter++) {
        /* the problems of the chapter, in the order the list first names them */
        const char *problem[8];
        int problems = 0;
        for (int k = 0; k < list.count; k++) {
            const kernel_entry *e = &list.entries[k];
            int seen = 0;
            if (!is_raced(e, &p) || e->chapter != chapter)
                continue;
            for (int j = 0; j < problems; j++)
                seen |= strcmp(problem[j], e->problem) == 0;
            if (!seen && problems < 8)
                problem[problems++] = e->problem;
        }
        for (int j = 0; j < problems; j++) {
            char name[96];
            snprintf(name, sizeof name, "chapter%d%s%s", chapter, problems > 1 ? "-" : "",
                     problems > 1 ? problem[j] : "");
            chapter_set own = linked(&p, problem[j], 1, chapter, chapter);
            emit(&p, name, problem[j], chapter, "chapter", &own);
            int has_tried = 0;
            for (int k = 0; k < list.count; k++) {
                const kernel_entry *e = &list.entries[k];
                has_tried |= is_raced(e, &p) && e->chapter == chapter && e->role == KERNEL_TRIED &&
                             strcmp(e->problem, problem[j]) == 0;
            }
            if (has_tried) {
                chapter_set champions = linked(&p, problem[j], 0, chapter, chapter);
                strncat(name, "-tried", sizeof name - strlen(name) - 1);
                emit(&p, name, problem[j], chapter, "tried", &champions);
            }
        }
    }
    if (make) {
        int specific[MAX_CHAPTERS + 1], count = 0;
        for (int chapter = 1; chapter < MAX_CHAPTERS; chapter++) {
            int needs = 0;
            for (int k = 0; k < list.count; k++)
                needs |= list.entries[k].chapter == chapter && list.entries[k].needs_arch_specific;
            if (needs && p.has_folder[chapter])
                specific[count++] = chapter;
        }
        specific[count] = 0;
        char folders[4096];
        folders_including(specific, folders, sizeof folders);
        printf("ARCH_SPECIFIC_FOLDERS :=%s%s\n", folders[0] ? " " : "", folders);
        /* The chapters every kernel of which needs sm_90a: built for any other
         * card, their kernels are stubs that trap, never launched there
         * (`make build-archs` may compile them for one other target). */
        int only[MAX_CHAPTERS + 1], only_count = 0;
        for (int chapter = 1; chapter < MAX_CHAPTERS; chapter++) {
            int kernels = 0, specific = 0;
            for (int k = 0; k < list.count; k++) {
                const kernel_entry *e = &list.entries[k];
                if (e->chapter == chapter && e->role != KERNEL_TORCH) {
                    kernels++;
                    specific += e->needs_arch_specific;
                }
            }
            if (kernels > 0 && specific == kernels && p.has_folder[chapter])
                only[only_count++] = chapter;
        }
        only[only_count] = 0;
        folders_of(only, folders, sizeof folders);
        printf("HOPPER_ONLY_FOLDERS :=%s%s\n", folders[0] ? " " : "", folders);
    }
    kernel_list_free(&list);
    return 0;
}

