/* generate.c - everything the build derives from chapters/kernels.list,
 * through the one reader of that list (tools/kernel_list.c, unit-tested by
 * tests/test_kernel_list.c). The Makefile builds it as build/tools/generate.
 *
 *   generate programs-mk LIST CHAPTERS MUTANTS   > build/gen/programs.mk
 *   generate programs    LIST CHAPTERS MUTANTS   (make programs: the table)
 *   generate main LIST CHAPTER PROBLEM KIND PROGRAM        > build/gen/PROGRAM.cu
 *   generate frontier LIST TIMES.csv ERRORS.csv DIR/ UPTO  (plots/figures.mk)
 *   generate where LIST      each contender's kernel: FILE:LINE __global__ NAME
 *   generate chapter LIST NAME    the chapter that introduces kernel NAME
 *   generate renumber LIST CSV    CSV with its chapter column set from the list
 *
 * programs-mk, programs: the chapter programs the list implies and which
 * chapters each links. CHAPTERS: the chapters that have a folder (lines of
 * other chapters are ignored); MUTANTS: "N" for each chapter with a
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
 * object stands in for another. The table has one line per program: NAME PROBLEM CHAPTER KIND
 * LINKED-CHAPTERS...; programs-mk writes the same as Makefile rules.
 *
 * main: the main() of one chapter program: the contenders it races, in the
 * list's order, with their facts. KIND chapter races the problem's
 * champions, the best kernel of every earlier chapter, and CHAPTER's own
 * steps and best; KIND tried races the champions, CHAPTER's best and its
 * tried variants.
 *
 * frontier: chapter 9's precision frontier: for each kernel of the triangle
 * of chapters 1 to UPTO (the chapter that shows it) measured at the default
 * size, its newest median time (TIMES.csv,
 * plots/data/trimul.csv) and its newest relative L2 error at input scale 1
 * (ERRORS.csv, plots/data/accuracy/trimul.csv), joined by kernel. Writes
 * DIR/precision-frontier.dat (time, error, kind, name, label level; kind 0
 * FP32 lanes, 1 TF32, 2 3xTF32; the level, 1 to 5 in order of time within a
 * kind, lifts labels apart) and DIR/precision-frontier.caption, for
 * plots/figures/precision-frontier.gp.
 *
 * Exit status 0, or 1 with a message on stderr ("chapters/kernels.list:40:
 * ..." for a malformed line), 2 for a wrong command line.
 */
#include "kernel_list.h"
#include "problems/triangle_reference.h"

#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CHAPTERS 100

static const char *role_word[] = {"champion", "step", "best", "tried", "torch"};

static int die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("generate: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

static void read_list(const char *path, kernel_list *list)
{
    char error[512];
    if (kernel_list_read(path, list, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        exit(1);
    }
}

/* A chapter number of a command-line word ("05" is 5), or die. */
static int chapter_number(const char *word)
{
    char *end;
    long n = strtol(word, &end, 10);
    if (end == word || (*end && *end != ':') || n < 1 || n >= MAX_CHAPTERS)
        die("\"%s\" is not a chapter number", word);
    return (int)n;
}

/* ---------------------------------------------------------------- programs */

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

static int programs_command(int make, const char *path, const char *chapters, const char *mutants)
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
    kernel_list_free(&list);
    return 0;
}

/* ---------------------------------------------------------------- where */

/* Where each contender's code lives, for --list: the __global__ function its
 * launcher launches (named in the launcher's body, or in the bodies of the
 * functions it calls or hands on, nearest first; one of the file that
 * defines the contender's symbol first, then one of a file that is no
 * shared helper, a .cu with a .cuh of its name), as "FILE:LINE __global__
 * NAME"; for a launcher that launches none of the chapters' kernels (cuBLAS),
 * the launcher itself, "FILE:LINE NAME()". Found in the chapters' sources
 * with their comments blanked out. */

typedef struct {
    char path[256];
    char *text; /* comments and strings blanked, newlines kept */
} source_file;

static source_file *sources;
static int source_count;

static int is_word(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

static void blank_comments(char *t)
{
    for (char *c = t; *c; c++) {
        if (c[0] == '/' && c[1] == '*') {
            char *end = strstr(c + 2, "*/");
            end = end ? end + 2 : c + strlen(c);
            for (; c < end; c++)
                if (*c != '\n')
                    *c = ' ';
            c--;
        } else if (c[0] == '/' && c[1] == '/') {
            for (; *c && *c != '\n'; c++)
                *c = ' ';
            c--;
        } else if (*c == '"' || *c == '\'') {
            const char quote = *c;
            for (c++; *c && *c != quote && *c != '\n'; c++) {
                if (*c == '\\' && c[1])
                    *c++ = ' ';
                *c = ' ';
            }
            if (!*c)
                return;
        }
    }
}

static void load_sources(void)
{
    static const char *const patterns[] = {"chapters/[0-9][0-9]-*/*.cu", "chapters/[0-9][0-9]-*/*.cuh",
                                           "chapters/[0-9][0-9]-*/tried/*.cu", NULL};
    for (int p = 0; patterns[p]; p++) {
        glob_t found;
        if (glob(patterns[p], 0, NULL, &found) != 0)
            continue;
        for (size_t k = 0; k < found.gl_pathc; k++) {
            FILE *in = fopen(found.gl_pathv[k], "rb");
            if (!in)
                die("cannot read %s", found.gl_pathv[k]);
            char *text = NULL;
            size_t length = 0;
            FILE *into = open_memstream(&text, &length);
            char chunk[4096];
            size_t got;
            while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
                fwrite(chunk, 1, got, into);
            fclose(in);
            fclose(into);
            blank_comments(text);
            sources = realloc(sources, (size_t)(source_count + 1) * sizeof *sources);
            if (!sources)
                die("out of memory");
            snprintf(sources[source_count].path, sizeof sources[0].path, "%s", found.gl_pathv[k]);
            sources[source_count++].text = text;
        }
        globfree(&found);
    }
}

static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    return line;
}

/* The next occurrence of the whole word `word` in text from `from`, or NULL. */
static const char *find_word(const char *text, const char *from, const char *word)
{
    const size_t length = strlen(word);
    for (const char *at = strstr(from, word); at; at = strstr(at + 1, word))
        if ((at == text || !is_word((unsigned char)at[-1])) && !is_word((unsigned char)at[length]))
            return at;
    return NULL;
}

static const char *skip_blanks(const char *c)
{
    while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
        c++;
    return c;
}

/* The character after the group that opens at *open ('(' or '{'). */
static const char *after_group(const char *open)
{
    const char first = *open, last = first == '(' ? ')' : first == '<' ? '>' : '}';
    int depth = 0;
    for (const char *c = open; *c; c++) {
        depth += *c == first;
        depth -= *c == last;
        if (depth == 0)
            return c + 1;
    }
    return open + strlen(open);
}

/* Whether name is a __global__ function; its file and the line of its __global__. */
static int find_global(const char *name, const source_file **file, int *line)
{
    for (int s = 0; s < source_count; s++) {
        const char *text = sources[s].text;
        for (const char *at = find_word(text, text, "__global__"); at;
             at = find_word(text, at + 1, "__global__")) {
            const char *c = at + 10;
            for (;;) { /* words up to the one that opens its parameters */
                c = skip_blanks(c);
                const char *word = c;
                while (is_word((unsigned char)*c))
                    c++;
                if (c == word)
                    break;
                const char *next = skip_blanks(c);
                if (*next != '(')
                    continue;
                if ((size_t)(c - word) == strlen(name) && strncmp(word, name, (size_t)(c - word)) == 0) {
                    *file = &sources[s];
                    *line = line_of(text, at);
                    return 1;
                }
                if (strncmp(word, "__launch_bounds__", 17) != 0 && strncmp(word, "__cluster_dims__", 16) != 0)
                    break;
                c = after_group(next);
            }
        }
    }
    return 0;
}

/* How near a source is to another: 0 the same file, 1 the same folder, 2 any. */
static int nearness(const source_file *a, const source_file *b)
{
    if (a == b)
        return 0;
    const char *slash_a = strrchr(a->path, '/'), *slash_b = strrchr(b->path, '/');
    return slash_a && slash_b && slash_a - a->path == slash_b - b->path &&
                   strncmp(a->path, b->path, (size_t)(slash_a - a->path)) == 0
               ? 1
               : 2;
}

/* The body ('{' to its '}') of the function name, defined in the file
 * `prefer` if it is there, else in a file of its folder, else in any
 * source: a name, its parameters, then '{'. */
static const char *find_body(const char *name, const source_file *prefer, const source_file **file,
                             int *line)
{
    for (int pass = 0; pass < 3; pass++)
        for (int s = 0; s < source_count; s++) {
            if (nearness(&sources[s], prefer) != pass)
                continue;
            const char *text = sources[s].text;
            for (const char *at = find_word(text, text, name); at; at = find_word(text, at + 1, name)) {
                const char *open = skip_blanks(at + strlen(name));
                if (*open != '(')
                    continue;
                const char *body = skip_blanks(after_group(open));
                if (*body == '{') {
                    *file = &sources[s];
                    *line = line_of(text, at);
                    return body;
                }
            }
        }
    return NULL;
}

/* Fills out with where e's code lives; strict: a symbol that no chapter
 * source defines stops the generator (else out is left empty). */
static void where_of(const kernel_entry *e, char *out, size_t capacity, int strict)
{
    out[0] = '\0';
    if (!sources)
        load_sources();
    const int msa = strcmp(e->problem, "msa") == 0;
    char type[32];
    snprintf(type, sizeof type, "%s_kernel", msa ? "msa" : "triangle");
    for (int s = 0; s < source_count; s++) {
        const char *text = sources[s].text;
        for (const char *at = find_word(text, text, e->symbol); at;
             at = find_word(text, at + 1, e->symbol)) {
            const char *c = at;
            while (c > text && (c[-1] == ' ' || c[-1] == '\t'))
                c--;
            if (c - text < (long)strlen(type) || strncmp(c - strlen(type), type, strlen(type)) != 0)
                continue;
            const char *equals = skip_blanks(at + strlen(e->symbol));
            if (*equals != '=' || *skip_blanks(equals + 1) != '{')
                continue;
            /* the launcher: the second field (triangle_kernel) or the third (msa_kernel) */
            const char *field = skip_blanks(equals + 1) + 1;
            for (int k = 0; k < (msa ? 2 : 1); k++)
                field = strchr(field, ',') ? strchr(field, ',') + 1 : field;
            field = skip_blanks(field);
            char launcher[128];
            size_t length = 0;
            while (is_word((unsigned char)field[length]) && length + 1 < sizeof launcher)
                length++;
            memcpy(launcher, field, length);
            launcher[length] = '\0';
            /* breadth first through the functions the launcher calls */
            static char queue[256][128];
            static const source_file *caller[256]; /* where queue[k] was named */
            int head = 0, tail = 0, found_rank = 3;
            char found[512] = "";
            caller[tail] = &sources[s];
            snprintf(queue[tail++], sizeof queue[0], "%s", launcher);
            const source_file *launcher_file = &sources[s];
            int launcher_line = line_of(text, at);
            for (; head < tail; head++) {
                const source_file *file;
                int line;
                const char *body = find_body(queue[head], caller[head], &file, &line);
                if (!body)
                    continue;
                if (head == 0) {
                    launcher_file = file;
                    launcher_line = line;
                }
                const char *end = after_group(body);
                for (const char *w = body; w < end; ) {
                    if (!is_word((unsigned char)*w) || (w > body && is_word((unsigned char)w[-1]))) {
                        w++;
                        continue;
                    }
                    char word[128];
                    size_t n = 0;
                    while (is_word((unsigned char)w[n]) && n + 1 < sizeof word)
                        n++;
                    memcpy(word, w, n);
                    word[n] = '\0';
                    w += n;
                    const source_file *global_file;
                    int global_line;
                    if (find_global(word, &global_file, &global_line)) {
                        /* the first kernel of the symbol's own file or of
                         * its header (slug.cu defines what slug.cuh holds),
                         * else of a file that is no shared helper (kernels in
                         * a .cu with a .cuh of its name: the library), else
                         * the first */
                        char header[300], own_header[300];
                        snprintf(header, sizeof header, "%sh", global_file->path);
                        snprintf(own_header, sizeof own_header, "%sh", sources[s].path);
                        const int own = global_file == &sources[s] ||
                                        strcmp(global_file->path, own_header) == 0;
                        const int rank = own ? 0 : access(header, F_OK) != 0 ? 1 : 2;
                        if (!found[0] || rank < found_rank) {
                            snprintf(found, sizeof found, "%s:%d __global__ %s", global_file->path,
                                     global_line, word);
                            found_rank = rank;
                        }
                        continue;
                    }
                    int seen = 0;
                    for (int q = 0; q < tail; q++)
                        seen |= strcmp(queue[q], word) == 0;
                    /* a function it calls or hands on (launch_fp32_for<true>) */
                    const source_file *callee_file;
                    int callee_line;
                    if (!seen && tail < 256 && find_body(word, file, &callee_file, &callee_line)) {
                        caller[tail] = file;
                        snprintf(queue[tail++], sizeof queue[0], "%s", word);
                    }
                }
                if (found[0] && found_rank == 0)
                    break;
            }
            if (found[0])
                snprintf(out, capacity, "%s", found);
            else
                snprintf(out, capacity, "%s:%d %s()", launcher_file->path, launcher_line, launcher);
            return;
        }
    }
    if (strict)
        die("%s's symbol %s is defined in no chapter source (extern const %s %s = {...})",
            e->name, e->symbol, type, e->symbol);
}

/* ---------------------------------------------------------------- main */

static int main_command(const char *path, const char *chapter_word, const char *problem,
                        const char *kind, const char *program)
{
    const int chapter = chapter_number(chapter_word);
    const int tried = strcmp(kind, "tried") == 0;
    if (!tried && strcmp(kind, "chapter") != 0)
        die("kind \"%s\" is neither chapter nor tried", kind);
    kernel_list list;
    read_list(path, &list);
    const kernel_entry **chosen = calloc((size_t)list.count + 1, sizeof *chosen);
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
            chosen[count++] = e;
    }
    if (count == 0)
        die("no %s contenders for chapter %d (%s) in %s", kind, chapter, problem, path);
    const int msa = strcmp(problem, "msa") == 0;
    const char *type = msa ? "msa" : "triangle";
    printf("/* %s main - generated from chapters/kernels.list by tools/generate.c;\n", program);
    printf(" * edits here are overwritten. */\n#include \"%s\"\n\n",
           msa ? "problems/msa.h" : "problems/triangle.h");
    for (int k = 0; k < count; k++)
        printf("extern const %s_kernel %s;\n", type, chosen[k]->symbol);
    printf("\nstatic const %s_contender contenders[] = {\n", type);
    for (int k = 0; k < count; k++) {
        const kernel_entry *e = chosen[k];
        char role[16];
        snprintf(role, sizeof role, "%s", role_word[e->role]);
        for (char *c = role; *c; c++)
            *c = (char)(*c - 'a' + 'A');
        char where[512], literal[1100];
        where_of(e, where, sizeof where, 0);
        size_t n = 0; /* as a C string: a path holds no quote or backslash, but be sure */
        for (const char *c = where; *c && n + 3 < sizeof literal; c++) {
            if (*c == '"' || *c == '\\')
                literal[n++] = '\\';
            literal[n++] = *c;
        }
        literal[n] = '\0';
        printf("    {{\"%s\", %d, CONTENDER_%s, %s, %s, %d, %d, %d,\n      \"%s\"}, &%s},\n", e->name,
               e->chapter, role, e->pipe == GPU_PIPE_TENSOR ? "GPU_PIPE_TENSOR" : "GPU_PIPE_SIMT",
               strcmp(e->accuracy, "tf32") == 0 ? "TOLERANCE_TF32" : "TOLERANCE_FP32",
               e->needs_major, e->needs_minor, e->needs_arch_specific, literal, e->symbol);
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

/* Every raced contender of the list: PROBLEM NAME FILE:LINE __global__ FUNCTION
 * (or FILE:LINE LAUNCHER() where it launches no kernel of the chapters). */
static int where_command(const char *path)
{
    kernel_list list;
    read_list(path, &list);
    for (int k = 0; k < list.count; k++) {
        char where[512];
        if (list.entries[k].role == KERNEL_TORCH)
            continue;
        where_of(&list.entries[k], where, sizeof where, 1);
        printf("%s %s %s\n", list.entries[k].problem, list.entries[k].name, where);
    }
    kernel_list_free(&list);
    return 0;
}

/* ---------------------------------------------------------------- frontier */

/* Splits line at commas into at most capacity fields (as awk -F, does). */
static int split_commas(char *line, char **field, int capacity)
{
    int count = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *at = line; count < capacity; ) {
        field[count++] = at;
        char *comma = strchr(at, ',');
        if (!comma)
            break;
        *comma = '\0';
        at = comma + 1;
    }
    return count;
}

/* awk's $5 == 1: numerically when the field is a number, else as text. */
static int equals_one(const char *text)
{
    char *end;
    double value = strtod(text, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    return end != text && !*end ? value == 1.0 : strcmp(text, "1") == 0;
}

static char *copy_of(const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        die("out of memory");
    return copy;
}

static int frontier_command(const char *path, const char *times_path, const char *errors_path,
                            const char *out, int upto)
{
    static const char shape[] = TRIANGLE_DEFAULT_SHAPE;
    kernel_list list;
    read_list(path, &list);
    const int n = list.count;
    char **time = calloc((size_t)n + 1, sizeof *time), **error = calloc((size_t)n + 1, sizeof *error);
    int *kind = calloc((size_t)n + 1, sizeof *kind);
    char *gpu = copy_of(""), *date = copy_of(""), *line = NULL;
    size_t capacity = 0;
    for (int file = 1; file <= 2; file++) {
        const char *name = file == 1 ? times_path : errors_path;
        FILE *in = fopen(name, "r");
        if (!in)
            die("cannot read %s", name);
        for (long number = 1; getline(&line, &capacity, in) >= 0; number++) {
            char *f[16];
            const int fields = split_commas(line, f, 16);
            if (number == 1 || fields < (file == 1 ? 13 : 7) || strcmp(f[3], shape) != 0)
                continue;
            int k = -1;
            for (int j = 0; j < n && k < 0; j++)
                if (strcmp(list.entries[j].problem, "trimul") == 0 &&
                    strcmp(list.entries[j].name, f[1]) == 0)
                    k = j;
            if (k < 0)
                continue;
            if (file == 1) {
                free(time[k]);
                time[k] = copy_of(f[4]);
                free(gpu);
                gpu = copy_of(f[9]);
                if (strcmp(f[12], date) > 0) {
                    free(date);
                    date = copy_of(f[12]);
                }
            } else if (equals_one(f[4])) {
                free(error[k]);
                error[k] = copy_of(f[6]);
            }
        }
        fclose(in);
    }
    free(line);
    for (int k = 0; k < n; k++) {
        const kernel_entry *e = &list.entries[k];
        kind[k] = !time[k] || !error[k] || e->role == KERNEL_TRIED || e->chapter > upto ? -1
                  : e->pipe == GPU_PIPE_SIMT                       ? 0
                  : strcmp(e->accuracy, "tf32") == 0               ? 1
                                                                   : 2;
    }
    char data_path[4096], caption_path[4096];
    snprintf(data_path, sizeof data_path, "%s/precision-frontier.dat", out);
    snprintf(caption_path, sizeof caption_path, "%s/precision-frontier.caption", out);
    FILE *data = NULL;
    for (int k = 0; k < n; k++) {
        if (kind[k] < 0)
            continue;
        int faster = 0; /* the level: how many of its kind are faster, cycling 1 to 5 */
        for (int j = 0; j < n; j++)
            faster += kind[j] == kind[k] && strtod(time[j], NULL) < strtod(time[k], NULL);
        if (!data && !(data = fopen(data_path, "w")))
            die("cannot write %s", data_path);
        fprintf(data, "%s %s %d %s %d\n", time[k], error[k], kind[k], list.entries[k].name,
                1 + faster % 5);
    }
    if (!data)
        die("no kernel of chapters 1 to %d has both a time and an error at %s", upto, shape);
    FILE *caption = fopen(caption_path, "w");
    if (fclose(data) != 0 || !caption)
        die("cannot write %s", caption ? data_path : caption_path);
    fprintf(caption, "Error against time, every kernel of the triangle at %s (median time; "
            "relative L2 error against the double referee). Measured on the %s, %s.\n", shape,
            gpu, date);
    if (fclose(caption) != 0)
        die("cannot write %s", caption_path);
    for (int k = 0; k < n; k++) {
        free(time[k]);
        free(error[k]);
    }
    free(time);
    free(error);
    free(kind);
    free(gpu);
    free(date);
    kernel_list_free(&list);
    return 0;
}

/* ---------------------------------------------------------------- chapter */

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

/* ---------------------------------------------------------------- renumber */

/* CSV (a file of plots/data/, header first, the chapter in the first field,
 * the kernel in the second, the problem in the third) to standard output,
 * with each row's chapter set to the one the list gives its kernel: when a
 * kernel moves to another chapter, its rows measured before the move follow
 * it. Nothing else of a row changes, and a row whose kernel the list does
 * not name is left as it is (the CSV reader refuses it later, with its
 * line). Those three fields hold no comma or quote (the reader checks
 * that), so the first commas find them even in a row with a quoted field
 * further on. */
static int renumber_command(const char *path, const char *csv_path)
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

int main(int argc, char **argv)
{
    const char *command = argc > 1 ? argv[1] : "";
    if ((strcmp(command, "programs-mk") == 0 || strcmp(command, "programs") == 0) && argc == 5)
        return programs_command(strcmp(command, "programs-mk") == 0, argv[2], argv[3], argv[4]);
    if (strcmp(command, "main") == 0 && argc == 7)
        return main_command(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if (strcmp(command, "where") == 0 && argc == 3)
        return where_command(argv[2]);
    if (strcmp(command, "chapter") == 0 && argc == 4)
        return chapter_command(argv[2], argv[3]);
    if (strcmp(command, "renumber") == 0 && argc == 4)
        return renumber_command(argv[2], argv[3]);
    if (strcmp(command, "frontier") == 0 && argc == 7) {
        char *end;
        const long upto = strtol(argv[6], &end, 10);
        if (*end || end == argv[6] || upto < 1 || upto > KERNEL_LIST_MAX_CHAPTER)
            die("frontier: UPTO \"%s\" is not a chapter number", argv[6]);
        return frontier_command(argv[2], argv[3], argv[4], argv[5], (int)upto);
    }
    fprintf(stderr, "usage: generate programs-mk|programs LIST CHAPTERS MUTANTS\n"
                    "       generate main LIST CHAPTER PROBLEM KIND PROGRAM\n"
                    "       generate frontier LIST TIMES.csv ERRORS.csv DIR UPTO\n"
                    "       generate where LIST\n"
                    "       generate chapter LIST NAME\n"
                    "       generate renumber LIST CSV\n"
                    "(tools/generate.c says what each writes)\n");
    return 2;
}
