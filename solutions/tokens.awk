# solutions/tokens.awk - compares a submission with its exercise, for the
# grader (solutions/grade.sh):
#
#   awk -v exercise=exercises/NAME.cu -v submission=FILE.cu -f solutions/tokens.awk
#
# An exercise marks what a student writes with two comment lines,
#
#       // TODO: what to write
#       ... the stub, which the student replaces ...
#       // TODO end
#
# (solutions/generate.sh). Outside those regions a submission must be the
# exercise token for token: comments and blanks may differ, nothing else,
# so that a changed tolerance, refused size, #include or macro is caught.
# Inside a region the code is the student's, less what a kernel exercise
# never needs and a submission could use to fool the grader: a preprocessor
# line other than #pragma unroll, __attribute__ and asm, the names of the
# calls that end the process, start others, read the environment or open
# files (unless the region declares a variable of that name: `int signal`),
# and a `}` that closes a scope opened before the region (code outside any
# function: a static object's constructor, another function). A // TODO:
# line inside a region is the student's own note.
#
# The comparison reads tokens as this file splits them; where the
# compiler's translation would read the text otherwise, the submission is
# refused, anywhere in the file: a \ at the end of a line (a line splice,
# which carries a // comment onto the next line), trigraphs (??=, ...),
# digraphs (%:, <%, %>, <:, :>), raw string literals (R"(...)"), digit
# separators (1'000). The exercises use none of them.
#
# Prints the first problem, "line N: what is wrong" (N a line of the
# submission), and exits 1; exits 0 when the submission is an exercise
# with its regions filled; 2 when the exercise itself cannot be read.

function complain(message) {
    print message
    exit 1
}

# Appends one token of file `which` (e for the exercise, s for the submission).
function add(which, text, number) {
    count[which]++
    token[which, count[which]] = text
    line_of[which, count[which]] = number
    region_of[which, count[which]] = region
    segment_of[which, count[which]] = regions[which]
    starts_directive[which, count[which]] = 0
}

# Splits one line into tokens: names and numbers, string and character
# literals, single punctuation characters; comments dropped; "<eol>" ends a
# preprocessor directive, whose line breaks matter.
function tokenize(which, line, number,    i, n, c, j, d, first) {
    n = length(line); i = 1; first = !continued
    continued = 0
    while (i <= n) {
        if (in_comment) {
            j = index(substr(line, i), "*/")
            if (!j) return
            i += j + 1; in_comment = 0
            continue
        }
        c = substr(line, i, 1)
        if (c ~ /[ \t\r\f\v]/) { i++; continue }
        if (substr(line, i, 2) == "//") break
        if (substr(line, i, 2) == "/*") { in_comment = 1; i += 2; continue }
        if (c == "\\" && i == n) { continued = 1; break }
        if (c == "\"" || c == "'") {
            if (which == "s" && c == "'" && i > 1 && substr(line, i - 1, 1) ~ /[0-9A-Za-z_]/ &&
                token[which, count[which]] ~ /^[0-9]/)
                refuse(number, "a digit separator (" token[which, count[which]] "'...)")
            for (j = i + 1; j <= n; j++) {
                d = substr(line, j, 1)
                if (d == "\\") j++
                else if (d == c) break
            }
            add(which, substr(line, i, j - i + 1), number)
            i = j + 1; first = 0
            continue
        }
        if (c ~ /[A-Za-z0-9_.]/) {
            match(substr(line, i), /^[A-Za-z0-9_.]+/)
            if (which == "s" && substr(line, i, RLENGTH) ~ /^(u8|u|U|L)?R$/ &&
                substr(line, i + RLENGTH, 1) == "\"")
                refuse(number, "a raw string literal (" substr(line, i, RLENGTH) "\"...)")
            add(which, substr(line, i, RLENGTH), number)
            i += RLENGTH; first = 0
            continue
        }
        if (which == "s" && substr(line, i, 2) ~ /^(%:|<%|%>|<:|:>)$/)
            refuse(number, "the digraph `" substr(line, i, 2) "`")
        add(which, c, number)
        if (c == "#" && first) { in_directive = 1; starts_directive[which, count[which]] = 1 }
        i++; first = 0
    }
    if (in_directive && !continued) { add(which, "<eol>", number); in_directive = 0 }
}

# The first form the compiler would read otherwise than this file's
# tokens (see the top), kept to be said once the line is read.
function refuse(number, what) {
    if (refused == "")
        refused = "line " number ": " what " is refused: the grader compares the tokens as " \
                  "written, and the compiler would read them otherwise; write it plainly"
}

# Reads a file into tokens, each with its line and its region (0 outside
# the TODOs, k inside the k-th). Returns "" or the first problem with the
# markers.
function scan(which, path,    line, number, opened) {
    number = 0; region = 0; regions[which] = 0; in_comment = 0; in_directive = 0; continued = 0
    while ((getline line < path) > 0) {
        number++
        if (which == "s" && line ~ /\\$/)
            refuse(number, "a \\ at the end of a line (a line splice)")
        if (which == "s" && line ~ /\?\?[=\/'()!<>-]/)
            refuse(number, "a trigraph (" substr(line, match(line, /\?\?[=\/'()!<>-]/), 3) ")")
        if (refused != "") return refused
        # inside a region a // TODO: line is the student's own note, a comment
        if (!in_comment && !region && line ~ /^[ \t]*\/\/[ \t]*TODO:/) {
            region = ++regions[which]; opened = number; opened_at[which, region] = number
            continue
        }
        if (!in_comment && line ~ /^[ \t]*\/\/[ \t]*TODO end[ \t]*$/) {
            if (!region) return "line " number ": a // TODO end with no // TODO: before it"
            region = 0
            continue
        }
        tokenize(which, line, number)
        if (refused != "") return refused
    }
    close(path)
    last_line[which] = number
    if (number == 0) return "empty or unreadable"
    if (region) return "line " opened ": this // TODO: has no // TODO end after it"
    return ""
}

# Which denied names in the regions are the student's own, not the
# library's (own[k] for submission token k): a member (after . or ->), a
# variable or parameter the region declares (after a type's name, before =,
# ;, ,, [, ), { or :), and its uses while the block it was declared in is
# open, where it hides the library's name. Taking the library's function by
# name (`auto f = exit;`, `::exit`), or the name after its block closed,
# stays refused.
function mark_own_names(    k, r, depth, name, pending, p) {
    r = 0
    for (k = 1; k <= count["s"]; k++) {
        if (region_of["s", k] != r) { r = region_of["s", k]; depth = 0; pending = ""; split("", live) }
        if (!r) continue
        name = token["s", k]
        if (name == "{") {
            depth++
            if (pending != "") { live[pending, depth] = 1; pending = "" }
            continue
        }
        if (name == "}") {
            for (p in live) { split(p, part, SUBSEP); if (part[2] + 0 == depth) delete live[p] }
            depth--
            continue
        }
        if (!(name in denied)) continue
        if (token["s", k - 1] == "." || (token["s", k - 1] == ">" && token["s", k - 2] == "-")) {
            own[k] = 1
        } else if (token["s", k - 1] ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && !(token["s", k - 1] in not_a_type) &&
                   token["s", k + 1] ~ /^(=|;|,|\[|\)|\{|:)$/) {
            own[k] = 1
            if (token["s", k + 1] == ")") pending = name   # a parameter: the body's
            else live[name, depth] = 1
        } else if (!(token["s", k - 1] == ":" && token["s", k - 2] == ":")) {
            for (p = depth; p >= 0 && !((name, p) in live); p--) ;
            own[k] = p >= 0
        }
    }
}

# The first token at or after k outside the regions.
function next_outside(which, k) {
    while (k <= count[which] && region_of[which, k]) k++
    return k
}

function shown(text) {
    return text == "<eol>" ? "the end of a # line" : "`" text "`"
}

BEGIN {
    # What the student's code may not name: the process's end and other
    # processes, the environment, files and raw system calls, and the
    # compiler's doors to all of them.
    split("asm __asm __asm__ __attribute __attribute__ _Pragma exit _exit _Exit quick_exit " \
          "abort atexit at_quick_exit system popen fork vfork execl execle execlp execv " \
          "execve execvp execvpe posix_spawn posix_spawnp dlopen dlsym syscall getenv " \
          "secure_getenv setenv putenv unsetenv environ __environ fopen fopen64 freopen " \
          "fdopen open open64 openat creat write pwrite writev unlink remove rename mkdir " \
          "rmdir chmod chown link symlink kill raise signal sigaction ptrace mmap mprotect " \
          "dup dup2 ofstream ifstream fstream filebuf cudaDeviceReset longjmp setjmp", \
          denied_list, " ")
    for (k in denied_list) denied[denied_list[k]] = 1
    # words before a name that do not make it a declaration
    split("return case goto throw else do sizeof alignof new delete typedef using " \
          "co_return co_yield co_await operator", not_a_type_list, " ")
    for (k in not_a_type_list) not_a_type[not_a_type_list[k]] = 1

    if (exercise == "" || submission == "") {
        print "usage: awk -v exercise=FILE -v submission=FILE -f tokens.awk"
        exit 2
    }
    problem = scan("e", exercise)
    if (problem != "") { print "the exercise " exercise ": " problem; exit 2 }
    problem = scan("s", submission)
    if (problem != "") complain(problem)
    if (regions["s"] != regions["e"])
        complain("line 1: the exercise has " regions["e"] " TODO regions, this file " \
                 regions["s"] ": keep each // TODO: line and its // TODO end, and write " \
                 "between them")

    # The #defines an exercise's region holds (a PAD for the student to
    # choose) may stay in the submission's, with the student's value.
    for (k = 1; k <= count["e"]; k++)
        if (region_of["e", k] && starts_directive["e", k] && token["e", k + 1] == "define")
            may_define[region_of["e", k], token["e", k + 2]] = 1

    # Inside the regions: the student's code, less what it may not use.
    mark_own_names()
    for (k = 1; k <= count["s"]; k++) {
        if (!region_of["s", k]) continue
        if (starts_directive["s", k]) {
            if (token["s", k + 1] == "pragma" &&
                (token["s", k + 2] == "unroll" || token["s", k + 2] == "nounroll"))
                continue
            if (token["s", k + 1] == "define" && (region_of["s", k], token["s", k + 2]) in may_define)
                continue
            complain("line " line_of["s", k] ": #" token["s", k + 1] " inside a TODO: your " \
                     "code may use no preprocessor line but #pragma unroll (and the #define " \
                     "the exercise's TODO holds)")
        }
        if ((token["s", k] in denied) && !own[k])
            complain("line " line_of["s", k] ": `" token["s", k] "` inside a TODO: a kernel " \
                     "exercise needs no " token["s", k] ", and the grader allows none (it could " \
                     "end the program, reach files or fool the harness)")
    }

    # A region's braces: each `}` closes a `{` of the region, and none is
    # left open, so that the code stays inside the function it is in.
    current = 0; depth = 0
    for (k = 1; k <= count["s"] + 1; k++) {
        r = k <= count["s"] ? region_of["s", k] : 0
        if (r != current) {
            if (current && depth > 0)
                complain("line " opened_at["s", current] ": the TODO here leaves " depth " `{` " \
                         "open at its end: a TODO's code stays inside its function")
            current = r; depth = 0
        }
        if (!r) continue
        if (token["s", k] == "{") depth++
        else if (token["s", k] == "}" && --depth < 0)
            complain("line " line_of["s", k] ": this `}` inside a TODO closes a scope opened " \
                     "before the TODO: a TODO's code stays inside its function")
    }

    # Outside: the exercise's tokens, in order, segment by segment (the
    # code before the first TODO, between each two, after the last).
    e = next_outside("e", 1); s = next_outside("s", 1)
    for (segment = 0; segment <= regions["e"]; segment++) {
        while (e <= count["e"] && segment_of["e", e] == segment &&
               s <= count["s"] && segment_of["s", s] == segment) {
            if (token["e", e] != token["s", s])
                complain("line " line_of["s", s] ": " shown(token["s", s]) " where the exercise " \
                         "has " shown(token["e", e]) " (its line " line_of["e", e] "): outside " \
                         "the TODOs a submission must be the exercise as handed out")
            e = next_outside("e", e + 1); s = next_outside("s", s + 1)
        }
        if (e <= count["e"] && segment_of["e", e] == segment)
            complain("line " (segment < regions["s"] ? opened_at["s", segment + 1] : last_line["s"]) \
                     ": the exercise's " shown(token["e", e]) " (its line " line_of["e", e] \
                     ") is missing before here: outside the TODOs a submission must be the " \
                     "exercise as handed out")
        if (s <= count["s"] && segment_of["s", s] == segment)
            complain("line " line_of["s", s] ": " shown(token["s", s]) " is not in the " \
                     "exercise: outside the TODOs a submission must be the exercise as handed out")
    }
    exit 0
}
