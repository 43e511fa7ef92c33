/* kernel_where.c - where each contender's work is, found in the chapters'
 * sources (chapters/NN-slug/ *.cu, *.cuh, tried/ *.cu) with their comments
 * and strings blanked out: what `generate where LIST` prints and what
 * `generate main` writes for --list.
 *
 * From the contender's symbol (`extern const triangle_kernel SYMBOL =
 * {refuses, launcher}`; an msa_kernel's launcher is its third field) to its
 * launcher, then breadth first through the functions the launcher calls or
 * hands on (each looked up in its caller's file, then that file's folder,
 * then anywhere), noting
 *  - the __global__ functions met: one of the symbol's own file or of its
 *    header first (slug.cu defines what slug.cuh holds), then one of a file
 *    that is no shared helper (a .cu with a .cuh of its name is one), then
 *    the first met;
 *  - the functions met that call cuBLAS (a call of cublasXxx), ranked alike.
 * The work is cuBLAS's where a function that calls it ranks as near as the
 * kernel (the champions, the unfused layer): "FILE:LINE NAME(), through
 * cuBLAS". Otherwise it is the kernel's, "FILE:LINE __global__ NAME", or,
 * where the kernel's body is one call of another function (a wrapper that
 * gives a template its parameters), that function's: "FILE:LINE BODY, the
 * body of __global__ WRAPPER". A launcher that reaches neither:
 * "FILE:LINE LAUNCHER()". Where several contenders' work is the same
 * function, each says so: " (one body with NAME, NAME)".
 */
#include "generate.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char path[256];
    char *raw;  /* as read */
    char *text; /* comments and strings blanked, newlines kept */
} source_file;

/* A function with a body (NAME(...) {...}), or a __global__ function. */
typedef struct {
    const char *name; /* in its source's text */
    size_t length;
    int source, line;
    const char *body; /* its '{'; NULL for a __global__ entry */
} definition;

static source_file *sources;
static int source_count;
static definition *functions, *kernels;
static int function_count, kernel_count;

static int is_word(int c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

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

static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    return line;
}

static const char *skip_blanks(const char *c)
{
    while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
        c++;
    return c;
}

/* The character after the group that opens at *open ('(', '<' or '{'). */
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

static void add(definition **into, int *count, const char *name, size_t length, int source,
                const char *at, const char *body)
{
    if (*count % 256 == 0 && !(*into = realloc(*into, (size_t)(*count + 256) * sizeof **into)))
        die("out of memory");
    (*into)[(*count)++] = (definition){name, length, source, line_of(sources[source].text, at), body};
}

static int is_statement_word(const char *word, size_t length)
{
    static const char *const words[] = {"if", "for", "while", "switch", "return", "sizeof",
                                        "catch", NULL};
    for (int k = 0; words[k]; k++)
        if (strlen(words[k]) == length && strncmp(words[k], word, length) == 0)
            return 1;
    return 0;
}

/* Every NAME(...) { of a source, and every __global__ function's name. */
static void index_source(int s)
{
    const char *text = sources[s].text;
    for (const char *c = text; *c; c++) {
        if (!is_word((unsigned char)*c) || (c > text && is_word((unsigned char)c[-1])))
            continue;
        const char *word = c;
        while (is_word((unsigned char)*c))
            c++;
        const size_t length = (size_t)(c - word);
        if (length == 10 && strncmp(word, "__global__", 10) == 0) {
            for (const char *w = c;;) { /* words up to the one that opens its parameters */
                w = skip_blanks(w);
                const char *name = w;
                while (is_word((unsigned char)*w))
                    w++;
                if (w == name)
                    break;
                const char *next = skip_blanks(w);
                if (*next != '(')
                    continue;
                if (strncmp(name, "__launch_bounds__", 17) != 0 &&
                    strncmp(name, "__cluster_dims__", 16) != 0) {
                    add(&kernels, &kernel_count, name, (size_t)(w - name), s, word, NULL);
                    break;
                }
                w = after_group(next);
            }
        }
        const char *open = skip_blanks(c);
        if (*open != '(' || is_statement_word(word, length))
            continue;
        const char *body = skip_blanks(after_group(open));
        if (*body == '{')
            add(&functions, &function_count, word, length, s, word, body);
        c--;
    }
}

static int by_name(const void *a, const void *b)
{
    const definition *x = a, *y = b;
    const size_t n = x->length < y->length ? x->length : y->length;
    const int order = strncmp(x->name, y->name, n);
    if (order || x->length != y->length)
        return order ? order : x->length < y->length ? -1 : 1;
    return x->source != y->source ? x->source - y->source : x->line - y->line;
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
            char *raw = NULL;
            size_t length = 0;
            FILE *into = open_memstream(&raw, &length);
            char chunk[4096];
            size_t got;
            while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
                fwrite(chunk, 1, got, into);
            fclose(in);
            fclose(into);
            sources = realloc(sources, (size_t)(source_count + 1) * sizeof *sources);
            char *text = strdup(raw);
            if (!sources || !text)
                die("out of memory");
            blank_comments(text);
            snprintf(sources[source_count].path, sizeof sources[0].path, "%s", found.gl_pathv[k]);
            sources[source_count].raw = raw;
            sources[source_count++].text = text;
        }
        globfree(&found);
    }
    for (int s = 0; s < source_count; s++)
        index_source(s);
    qsort(functions, (size_t)function_count, sizeof *functions, by_name);
    qsort(kernels, (size_t)kernel_count, sizeof *kernels, by_name);
}

/* The first of the sorted definitions named word (length n), or NULL. */
static const definition *first_named(const definition *all, int count, const char *word, size_t n)
{
    int low = 0, high = count;
    const definition key = {word, n, -1, -1, NULL};
    while (low < high) {
        const int middle = (low + high) / 2;
        if (by_name(&all[middle], &key) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return low < count && all[low].length == n && strncmp(all[low].name, word, n) == 0 ? &all[low]
                                                                                        : NULL;
}

/* How near a source is to another: 0 the same file, 1 the same folder, 2 any. */
static int nearness(int a, int b)
{
    if (a == b)
        return 0;
    const char *pa = sources[a].path, *pb = sources[b].path;
    const char *slash_a = strrchr(pa, '/'), *slash_b = strrchr(pb, '/');
    return slash_a && slash_b && slash_a - pa == slash_b - pb &&
                   strncmp(pa, pb, (size_t)(slash_a - pa)) == 0
               ? 1
               : 2;
}

/* The function named word with a body, in the source prefer if it is
 * there, else in a file of its folder, else in any source. */
static const definition *find_function(const char *word, size_t n, int prefer)
{
    const definition *first = first_named(functions, function_count, word, n), *best = NULL;
    for (const definition *d = first; d && d < functions + function_count && d->length == n &&
                                      strncmp(d->name, word, n) == 0;
         d++)
        if (!best || nearness(d->source, prefer) < nearness(best->source, prefer))
            best = d;
    return best;
}

static int source_named(const char *path)
{
    for (int s = 0; s < source_count; s++)
        if (strcmp(sources[s].path, path) == 0)
            return s;
    return -1;
}

/* How near a source is to the one that defines a symbol: 0 the same file or
 * its header, 1 a file that is no shared helper, 2 a .cu with a .cuh of its
 * name (the library's). */
static int rank_of(int source, int own)
{
    char header[300];
    snprintf(header, sizeof header, "%sh", sources[own].path);
    if (source == own || strcmp(sources[source].path, header) == 0)
        return 0;
    snprintf(header, sizeof header, "%sh", sources[source].path);
    return source_named(header) < 0 ? 1 : 2;
}

/* The function a __global__ function's body is one call of ("NAME<...>(...);"), or NULL. */
static const definition *wrapped(const definition *kernel)
{
    const definition *self = find_function(kernel->name, kernel->length, kernel->source);
    if (!self || self->source != kernel->source)
        return NULL;
    const char *c = skip_blanks(self->body + 1), *name = c;
    while (is_word((unsigned char)*c))
        c++;
    const size_t n = (size_t)(c - name);
    if (n == 0)
        return NULL;
    c = skip_blanks(c);
    if (*c == '<')
        c = skip_blanks(after_group(c));
    if (*c != '(')
        return NULL;
    c = skip_blanks(after_group(c));
    if (*c != ';' || *skip_blanks(c + 1) != '}')
        return NULL;
    if (first_named(kernels, kernel_count, name, n))
        return NULL;
    return find_function(name, n, kernel->source);
}

/* Where entry e's work is, as the file's header says, into out; *key_length
 * is how much of it names the place (FILE:LINE). 0, or -1 when no chapter
 * source defines e's symbol. */
static int locate(const kernel_entry *e, char *out, size_t capacity, size_t *key_length)
{
    const int msa = strcmp(e->problem, "msa") == 0;
    char type[32];
    snprintf(type, sizeof type, "%s_kernel", msa ? "msa" : "triangle");
    const size_t symbol_length = strlen(e->symbol);
    for (int s = 0; s < source_count; s++) {
        const char *text = sources[s].text;
        for (const char *at = strstr(text, e->symbol); at; at = strstr(at + 1, e->symbol)) {
            if ((at > text && is_word((unsigned char)at[-1])) || is_word((unsigned char)at[symbol_length]))
                continue;
            const char *c = at;
            while (c > text && (c[-1] == ' ' || c[-1] == '\t'))
                c--;
            if (c - text < (long)strlen(type) || strncmp(c - strlen(type), type, strlen(type)) != 0)
                continue;
            const char *equals = skip_blanks(at + symbol_length);
            if (*equals != '=' || *skip_blanks(equals + 1) != '{')
                continue;
            /* the launcher: the second field (triangle_kernel) or the third (msa_kernel) */
            const char *field = skip_blanks(equals + 1) + 1;
            for (int k = 0; k < (msa ? 2 : 1); k++)
                field = strchr(field, ',') ? strchr(field, ',') + 1 : field;
            field = skip_blanks(field);
            size_t length = 0;
            while (is_word((unsigned char)field[length]))
                length++;
            /* breadth first through the functions the launcher calls */
            enum { MOST = 256 };
            const definition *queue[MOST];
            int tail = 0, kernel_rank = 3, cublas_rank = 3;
            const definition *kernel = NULL, *cublas = NULL;
            const definition *launcher = find_function(field, length, s);
            if (launcher)
                queue[tail++] = launcher;
            for (int head = 0; head < tail; head++) {
                const definition *f = queue[head];
                const char *body = f->body, *end = after_group(body);
                const int rank = rank_of(f->source, s);
                for (const char *w = body; w < end;) {
                    if (!is_word((unsigned char)*w) || (w > body && is_word((unsigned char)w[-1]))) {
                        w++;
                        continue;
                    }
                    const char *word = w;
                    while (is_word((unsigned char)*w))
                        w++;
                    const size_t n = (size_t)(w - word);
                    if (n > 7 && strncmp(word, "cublas", 6) == 0 && word[6] >= 'A' && word[6] <= 'Z' &&
                        *skip_blanks(w) == '(') {
                        if (rank < cublas_rank) {
                            cublas = f;
                            cublas_rank = rank;
                        }
                        continue;
                    }
                    const definition *global = first_named(kernels, kernel_count, word, n);
                    if (global) {
                        const int global_rank = rank_of(global->source, s);
                        if (global_rank < kernel_rank) {
                            kernel = global;
                            kernel_rank = global_rank;
                        }
                        continue;
                    }
                    /* a function it calls or hands on (launch_fp32_for<true>) */
                    const definition *callee = find_function(word, n, f->source);
                    int seen = !callee;
                    for (int q = 0; q < tail && !seen; q++)
                        seen = queue[q] == callee;
                    if (!seen && tail < MOST)
                        queue[tail++] = callee;
                }
            }
            const definition *work = NULL;
            if (cublas && cublas_rank <= kernel_rank)
                snprintf(out, capacity, "%s:%d %.*s(), through cuBLAS", sources[cublas->source].path,
                         cublas->line, (int)cublas->length, cublas->name);
            else if (kernel && (work = wrapped(kernel)))
                snprintf(out, capacity, "%s:%d %.*s, the body of __global__ %.*s",
                         sources[work->source].path, work->line, (int)work->length, work->name,
                         (int)kernel->length, kernel->name);
            else if (kernel)
                snprintf(out, capacity, "%s:%d __global__ %.*s", sources[kernel->source].path,
                         kernel->line, (int)kernel->length, kernel->name);
            else if (launcher)
                snprintf(out, capacity, "%s:%d %.*s()", sources[launcher->source].path,
                         launcher->line, (int)launcher->length, launcher->name);
            else
                snprintf(out, capacity, "%s:%d", sources[s].path, line_of(text, at));
            *key_length = strcspn(out, " ");
            return 0;
        }
    }
    return -1;
}

void where_of(const kernel_list *list, int index, char *out, size_t capacity, int strict)
{
    static const kernel_list *located_list;
    static char (*located)[512];
    static size_t *key;
    if (!sources)
        load_sources();
    if (located_list != list) {
        free(located);
        free(key);
        located = calloc((size_t)list->count + 1, sizeof *located);
        key = calloc((size_t)list->count + 1, sizeof *key);
        if (!located || !key)
            die("out of memory");
        for (int k = 0; k < list->count; k++)
            if (list->entries[k].role != KERNEL_TORCH &&
                locate(&list->entries[k], located[k], sizeof located[k], &key[k]) != 0)
                located[k][0] = '\0';
        located_list = list;
    }
    const kernel_entry *e = &list->entries[index];
    if (!located[index][0]) {
        if (strict)
            die("%s's symbol %s is defined in no chapter source (extern const %s_kernel %s = {...})",
                e->name, e->symbol, strcmp(e->problem, "msa") == 0 ? "msa" : "triangle", e->symbol);
        out[0] = '\0';
        return;
    }
    size_t used = (size_t)snprintf(out, capacity, "%s", located[index]);
    int others = 0;
    for (int k = 0; k < list->count && used < capacity; k++)
        if (k != index && located[k][0] && key[k] == key[index] &&
            strncmp(located[k], located[index], key[k]) == 0)
            used += (size_t)snprintf(out + used, capacity - used, "%s%s", others++ ? ", " : " (one body with ",
                                     list->entries[k].name);
    if (others && used < capacity)
        snprintf(out + used, capacity - used, ")");
}

/* Every raced contender of the list: PROBLEM NAME WHERE. */
int where_command(const char *path)
{
    kernel_list list;
    read_list(path, &list);
    for (int k = 0; k < list.count; k++) {
        char where[1024];
        if (list.entries[k].role == KERNEL_TORCH)
            continue;
        where_of(&list, k, where, sizeof where, 1);
        printf("%s %s %s\n", list.entries[k].problem, list.entries[k].name, where);
    }
    kernel_list_free(&list);
    return 0;
}

/* The chapter of a source's folder (chapters/NN-slug/...), its folder name NN-slug into folder. */
static int chapter_of(const char *path, char folder[64])
{
    const char *start = path + strlen("chapters/"), *slash = strchr(start, '/');
    snprintf(folder, 64, "%.*s", slash ? (int)(slash - start) : 0, start);
    return atoi(start);
}

void folders_including(const int *chapters, char *out, size_t capacity)
{
    if (!sources)
        load_sources();
    int chosen[GENERATE_MAX_CHAPTERS] = {0};
    for (const int *c = chapters; *c; c++)
        chosen[*c] = 1;
    for (int changed = 1; changed;) { /* till no more: a header may include another's */
        changed = 0;
        for (int s = 0; s < source_count; s++) {
            char folder[64];
            const int chapter = chapter_of(sources[s].path, folder);
            if (chosen[chapter])
                continue;
            for (const char *line = sources[s].raw; line && *line && !chosen[chapter];
                 line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                const char *c = skip_blanks(line);
                if (strncmp(c, "#include", 8) != 0 || *(c = skip_blanks(c + 8)) != '"')
                    continue;
                c++;
                while (strncmp(c, "../", 3) == 0)
                    c += 3;
                if (strncmp(c, "chapters/", 9) == 0)
                    c += 9;
                if (c[0] >= '0' && c[0] <= '9' && c[1] >= '0' && c[1] <= '9' && c[2] == '-' &&
                    chosen[atoi(c)])
                    chosen[chapter] = changed = 1;
            }
        }
    }
    int list[GENERATE_MAX_CHAPTERS + 1], count = 0;
    for (int chapter = 1; chapter < GENERATE_MAX_CHAPTERS; chapter++)
        if (chosen[chapter])
            list[count++] = chapter;
    list[count] = 0;
    folders_of(list, out, capacity);
}

void folders_of(const int *chapters, char *out, size_t capacity)
{
    if (!sources)
        load_sources();
    size_t used = 0;
    out[0] = '\0';
    for (const int *c = chapters; *c; c++) {
        const int chapter = *c;
        for (int s = 0; s < source_count; s++) {
            char folder[64];
            if (chapter_of(sources[s].path, folder) == chapter && used < capacity) {
                used += (size_t)snprintf(out + used, capacity - used, "%s%s", used ? " " : "", folder);
                break;
            }
        }
    }
}
