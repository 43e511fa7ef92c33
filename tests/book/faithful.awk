# tests/book/faithful.awk - is a woven chapter faithful to its source?
#
#   awk -f tests/book/faithful.awk chapters/02-naive/naive.cuh woven.md
#
# Written apart from book/weave.c, so that a bug in the weaver cannot hide
# itself. From the source it keeps the code a reader must see: every line
# outside the /*md ... */ prose blocks, outside the // book:hide ...
# // book:show regions, outside the file's opening comment (its first lines
# while they are // comments, or a /* comment on line 1 through its */, but
# not /*md) and outside its first run of #include lines (blank lines
# between them included), which the book hides without a marker. From the woven Markdown it takes every fenced code
# block that names this source (source="...") and puts each of its lines back
# at the line number the block starts from (startFrom="N"). The two must be
# the same file, line for line; the only freedom the weaver has is to leave
# out blank lines. The blocks must also come in the order of the source.
# Prints each difference and exits 1, or prints one line and exits 0.

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }

FNR == 1 { file++ }

file == 1 {
    bare = trim($0)
    source_lines = FNR
    if (FNR == 1 && bare ~ /^\/\// && bare !~ /book:/) header = "//"
    if (FNR == 1 && bare ~ /^\/\*/ && bare != "/*md") header = "/*"
    if (header == "//" && bare ~ /^\/\// && bare !~ /book:/) { expected[FNR] = ""; next }
    if (header == "/*") { if (index($0, "*/")) header = "done"; expected[FNR] = ""; next }
    header = "done"
    if (state == "" && !included && (bare ~ /^#include/ || bare == "#pragma once")) included = "open"
    if (included == "open" && (bare ~ /^#include/ || bare == "#pragma once" || bare == "")) { expected[FNR] = ""; next }
    if (included == "open") included = "done"
    if (state == "" && bare == "/*md") { state = "prose"; expected[FNR] = ""; next }
    if (state == "prose") { if (bare == "*/") state = ""; expected[FNR] = ""; next }
    if (state == "" && bare ~ /^\/\/ book:changes /) { expected[FNR] = ""; next }
    if (state == "" && bare == "// book:hide") { state = "hidden"; expected[FNR] = ""; next }
    if (state == "hidden") { if (bare == "// book:show") state = ""; expected[FNR] = ""; next }
    expected[FNR] = $0
    next
}

# A change (book:changes): a diff block or a note of unchanged lines names
# the new lines first..last it stands for; the diff's kept and added lines
# go back where its hunk headers say (a marked change's, from its
# startFrom on), its removed lines are the old file's.
# Lines of that range it leaves out are the unchanged ones (suite 71 applies
# each diff to the old function and compares).
file == 2 && fence == "" && /[{ ]\.change[ }]/ && index($0, "source=\"" source "\"") {
    if (!match($0, /first="[0-9]+"/)) { problem("line " FNR ": a change without first"); next }
    from = substr($0, RSTART + 7, RLENGTH - 8) + 0
    if (!match($0, /last="[0-9]+"/)) { problem("line " FNR ": a change without last"); next }
    to = substr($0, RSTART + 6, RLENGTH - 7) + 0
    for (n = from; n <= to; n++) changed[n] = 1
    if (from <= last_block_start) problem("line " FNR ": a change out of source order")
    last_block_start = from
    if (match($0, /^```+/)) { fence = substr($0, 1, RLENGTH); diff = 1; blocks++ }
    # a marked change (the new function whole): its lines from startFrom on
    if (match($0, /startFrom="[0-9]+"/)) at = substr($0, RSTART + 11, RLENGTH - 12) + 0
    next
}

file == 2 && diff && fence != "" {
    if ($0 == fence) { fence = ""; diff = 0; next }
    if (match($0, /^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@$/)) {
        split($0, hunk, /[ ,+]+/)
        at = hunk[4] + 0
        next
    }
    if ($0 ~ /^-/) next
    if ($0 !~ /^[ +]/) { problem("woven line " FNR ": a diff line that is not ' ', '-' or '+'"); next }
    if (at in got) problem("woven line " FNR ": source line " at " shown twice")
    got[at++] = substr($0, 2)
    next
}

file == 2 && fence == "" {
    if (match($0, /^```+/) && index($0, "source=\"" source "\"")) {
        fence = substr($0, 1, RLENGTH)
        if (!match($0, /startFrom="[0-9]+"/)) { problem("line " FNR ": a code block without startFrom"); next }
        at = substr($0, RSTART + 11, RLENGTH - 12) + 0
        if (at <= last_block_start) problem("line " FNR ": a code block out of source order")
        last_block_start = at
        blocks++
    }
    next
}

file == 2 {
    if ($0 == fence) { fence = ""; next }
    if (at > source_lines) problem("woven line " FNR ": past the end of the source")
    else if (at in got) problem("woven line " FNR ": source line " at " shown twice")
    got[at] = $0
    at++
}

function problem(text) { problems++; if (problems <= 20) print source ": " text }

BEGIN { source = ARGV[1] }

END {
    if (fence != "") problem("the woven file ends inside a code block")
    for (n = 1; n <= source_lines; n++) {
        want = expected[n]
        have = (n in got) ? got[n] : ""
        if (want == have) continue
        if (!(n in got) && (trim(want) == "" || n in changed)) continue
        if (want == "") problem("line " n ": the book shows \"" have "\", which is prose or hidden code in the source")
        else if (!(n in got)) problem("line " n ": missing from the book: \"" want "\"")
        else problem("line " n ": the book shows \"" have "\", the source has \"" want "\"")
    }
    if (problems) { print source ": " problems " differences"; exit 1 }
    print source ": faithful (" blocks " code blocks, " source_lines " source lines)"
}
