# tools/affected_sources.awk - which of a chapter's sources a patch changes:
#   awk -v patched="FILE..." -f tools/affected_sources.awk SOURCE...
# prints each SOURCE that is one of the patched files or #includes one, at
# any depth (an #include "X" is looked for beside the file that names it,
# where the chapters' headers are). The Makefile builds a mutant's copy of
# these sources only, and links the chapter's own objects for the rest.
function normalized(path,    parts, n, k, out, kept) {
    n = split(path, parts, "/")
    kept = 0
    for (k = 1; k <= n; k++) {
        if (parts[k] == "." || parts[k] == "") continue
        if (parts[k] == ".." && kept > 0 && stack[kept] != "..") { kept--; continue }
        stack[++kept] = parts[k]
    }
    out = ""
    for (k = 1; k <= kept; k++) out = out (k > 1 ? "/" : "") stack[k]
    return out
}
function reads_a_patched_file(file,    folder, line, name, path, found) {
    if (file in is_patched) return 1
    if (file in visited) return 0
    visited[file] = 1
    folder = file
    sub(/[^\/]*$/, "", folder)
    found = 0
    while (!found && (getline line < file) > 0) {
        if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
        name = line
        sub(/^[^"]*"/, "", name)
        sub(/".*/, "", name)
        path = normalized(folder name)
        if ((getline probe < path) < 0) continue   # not beside it: a header of common/
        close(path)
        if (reads_a_patched_file(path)) found = 1
    }
    close(file)
    return found
}
BEGIN {
    n = split(patched, files, " ")
    for (k = 1; k <= n; k++) is_patched[files[k]] = 1
    for (k = 1; k < ARGC; k++) {
        split("", visited)
        if (reads_a_patched_file(ARGV[k])) print ARGV[k]
    }
    exit
}
