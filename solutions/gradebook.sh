# solutions/gradebook.sh - sourced by solutions/grade.sh and grade-class.sh:
# text a submission or a folder's name may carry, made safe for a terminal,
# a table, a file name and the gradebook's CSV.

# A line of text made safe for a terminal and a table: control characters
# (\r, ESC, ...) and anything outside printable ASCII become '?', and it is
# cut at 400 characters (in bash alone: the grader cleans every line it prints).
clean() {
    local LC_ALL=C text=${1//[$'\n\t']/ }
    text=${text//[^ -~]/?}
    printf '%s' "${text:0:400}"
}

# A CSV field, quoted as RFC 4180 says; one a spreadsheet would take for a
# formula gets a '.
csv_field() {
    local text; text=$(clean "$1")
    case $text in [=+@-]*) text="'$text" ;; esac
    printf '"%s"' "${text//\"/\"\"}"
}

# A file name for NAME: letters, digits, '.', '_' and '-' kept, anything
# else '_', no leading dot; where that changed NAME or it is longer than
# 100 characters, its first 100 characters and 8 hex digits of NAME's
# SHA-256, so that alike names (`p q`, `p,q`, `p_q`) and long ones (a file
# name has at most 255 bytes) each get their own.
safe_file_name() {
    local name=$1 safe
    safe=$(printf '%s' "$name" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_')
    while [[ $safe == .* ]]; do safe=${safe#.}; done
    if [ "$safe" != "$name" ] || [ ${#safe} -gt 100 ]; then
        safe=${safe:0:100}-$(printf '%s' "$name" | sha256sum | cut -c 1-8)
    fi
    printf '%s' "$safe"
}
