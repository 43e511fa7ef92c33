# solutions/gradebook.sh - sourced by solutions/grade.sh and grade-class.sh:
# text a submission or a folder's name may carry, made safe for a terminal,
# a table, a file name and the gradebook's CSV; and the handout's list of
# exercises, which both grade by default.

# handout_exercises TREE: the exercises of the handout in TREE (its
# exercises/NN-name.cu), one name a line, in name order: what a class is
# graded on when no exercise is named.
handout_exercises() {
    local source
    for source in "$1"/exercises/[0-9][0-9]-*.cu; do
        [ -f "$source" ] && source=${source##*/} && echo "${source%.cu}"
    done
}

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

# TEXT as a JSON string: cleaned first (printable ASCII only), so that a
# backslash and a double quote are all there is to escape.
json_string() {
    local text; text=$(clean "$1")
    text=${text//\\/\\\\}
    printf '"%s"' "${text//\"/\\\"}"
}

# autograder_json FORMAT FILE SUMMARY: the grading's results for a course's
# autograder, one test per exercise worth 1 point (PASS, else 0), from the
# grader's arrays names, results and reasons: FORMAT gradescope (its
# results.json: score, output, and per test name, status, score, max_score,
# output) or prairielearn (its external grader's results.json: gradable,
# score as a fraction, message, output, and per test name, points,
# max_points, message, output). Written whole or not at all.
autograder_json() {
    local format=$1 file=$2 summary=$3 k points=0 total=${#names[@]} separator="" tests=""
    local name result reason status score
    for k in "${!names[@]}"; do
        name=${names[$k]} result=${results[$k]} reason=${reasons[$k]}
        score=0 status=failed
        [ "$result" = PASS ] && score=1 status=passed
        points=$((points + score))
        [ -n "$reason" ] || reason=$result
        [ "$result" = SKIP ] && reason="not graded in full: $reason"
        # the draws of this exercise come from the grading's seed and its name
        reason="$reason (drawn from seed $seed: SEED=$seed EX=$name repeats them)"
        if [ "$format" = gradescope ]; then
            tests+="$separator{\"name\": $(json_string "$name"), \"status\": \"$status\", \"score\": $score, \"max_score\": 1, \"output\": $(json_string "$result: $reason")}"
        else
            tests+="$separator{\"name\": $(json_string "$name"), \"points\": $score, \"max_points\": 1, \"message\": $(json_string "$result"), \"output\": $(json_string "$reason")}"
        fi
        separator=", "
    done
    {
        if [ "$format" = gradescope ]; then
            printf '{"score": %d, "output": %s, "tests": [%s]}\n' "$points" "$(json_string "$summary")" "$tests"
        else
            local fraction=0
            [ "$total" -gt 0 ] && fraction=$(awk -v p="$points" -v t="$total" 'BEGIN { printf "%.6g", p / t }')
            printf '{"gradable": true, "score": %s, "message": %s, "output": %s, "tests": [%s]}\n' \
                "$fraction" "$(json_string "$summary")" "$(json_string "$summary")" "$tests"
        fi
    } > "$file.partial" && mv -f "$file.partial" "$file"
}
