# solutions/grade-runs.sh - the grader's runs in the sandbox (solutions/grade.sh
# sources it): one run of a built program, one check run as a probe judged
# by a referee, and the reasons a run failed, in words.

# One run of a built program in the sandbox: everything read-only but its
# own run folder (results, HOME), under a time limit, its output in
# LOG.run and appended to LOG. run_program LOG LIMIT LOCK ENV... -- COMMAND...;
# LOCK is none, shared (a GPU run) or alone (a timing or ncu run); sets status.
run_program() {
    local log=$1 limit=$2 mode=$3 environment=(); shift 3
    while [ "$1" != -- ]; do environment+=(--env "$1"); shift; done
    shift
    local memory=(); [ "$mode" = none ] && memory=(--memory "$memory_mb")   # (not a GPU run)
    local command=(timeout -k 10 "$limit" "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
                   --ro "$scratch/submission" "$tree/submission" --ro "$scratch/build" "$tree/build"
                   --rw "$run" "$tree/run" --cd "$tree" --env HOME="$tree/run"
                   "${environment[@]}" -- "$@")
    # (the grader's own descriptors stay out of the sandbox: the list of
    # checks the loop reads, 3, which a run could read away; the locks, 8
    # and 9, which it could release for another grading)
    case $mode in
        shared) flock -s "$lock" "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
        alone) flock -x "$lock" "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
        *) "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
    esac
    status=$?
    keep_output "$log" "$log.run" "$* : exit $status"
}

# What a run printed (FILE), appended to LOG up to 1 MiB after a line
# saying which run (the sandbox's file-size limit bounds the rest).
keep_output() { # LOG FILE WHAT
    local size; size=$(stat -c %s "$2" 2>/dev/null || echo 0)
    { echo "== $3"; head -c 1048576 "$2"
      [ "$size" -gt 1048576 ] && echo "== (its output was $size bytes: the log keeps the first MiB)"
    } >> "$1"
}

# One check in two processes (solutions/host/probed_call.h, and race.h's
# --emit-output and --judge-output): the probe, the submission's program,
# in the sandbox as run_program runs it, its descriptor 3 a pipe into the
# referee, the exercise's own build (referee_build), in a sandbox of its
# own that sees neither the submission nor the probe's folder and runs
# none of the student's code. Only the referee's output gives a verdict.
# run_judged LOG LIMIT LOCK ENV... -- PROBE... -- REFEREE...; sets status
# (the probe's) and judged (the referee's); their outputs in LOG.run and
# LOG.judge, both kept in LOG; the referee's run folder is $judge_run.
run_judged() {
    local log=$1 limit=$2 mode=$3 environment=() probe=(); shift 3
    while [ "$1" != -- ]; do environment+=(--env "$1"); shift; done
    shift
    while [ "$1" != -- ]; do probe+=("$1"); shift; done
    shift
    local memory=(); [ "$mode" = none ] && memory=(--memory "$memory_mb")   # (not a GPU run)
    judge_run=$pristine/run/$(basename "$run")
    rm -rf "$judge_run" && mkdir -p "$judge_run" && [ "$EUID" -eq 0 ] && chown "$sandbox_user" "$judge_run"
    # (the probe's run folder is memory of its own, gone after it: the
    # grader reads nothing the probe writes but its pipe)
    local probe_command=(timeout -k 10 "$limit" "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
        --ro "$scratch/submission" "$tree/submission" --ro "$scratch/build" "$tree/build"
        --scratch "$tree/run" "${GRADE_RUN_MB:-256}" --cd "$tree" --env HOME="$tree/run"
        "${environment[@]}" -- "${probe[@]}")
    # (the referee waits on the probe: its limit is the probe's and then some)
    local referee_command=(timeout -k 10 $((limit + 60)) "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
        --ro "$pristine/submission" "$tree/submission" --ro "$pristine/build" "$tree/build"
        --rw "$judge_run" "$tree/run" --cd "$tree" --env HOME="$tree/run" "${environment[@]}"
        -- "$@")
    # The GPU's lock is held by this shell (descriptor 7) around both
    # processes, and kept from them: the referee's time starts when the
    # probe's does. The probe's descriptor 3 is the pipe (the loop's list
    # of checks stays out of both).
    (
        case $mode in
            shared) flock -s 7 ;;
            alone) flock -x 7 ;;
        esac
        "${probe_command[@]}" 3>&1 > "$log.run" 2>&1 < /dev/null 7>&- 8>&- 9>&- |
            "${referee_command[@]}" > "$log.judge" 2>&1 3<&- 7>&- 8>&- 9>&-
        echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}" > "$log.statuses"
    ) 7>> "$lock"
    read -r status judged < "$log.statuses" || { status=1 judged=1; }
    keep_output "$log" "$log.run" "the probe, ${probe[*]}: exit $status"
    keep_output "$log" "$log.judge" "the referee, $*: exit $judged"
}

# How a sandboxed run ended that did not exit 0, in words: timed out (the
# grader's limit, LIMIT seconds: timeout's 124, or 137 where it had to kill),
# crashed (a signal: bwrap exits 128 + N), or its exit status.
ended() { # ended STATUS LIMIT
    case $1 in
        124) echo "timed out after $2 s" ;;
        137) echo "killed (signal 9, SIGKILL): past the time limit of $2 s, or out of memory" ;;
        153) echo "stopped (signal 25, SIGXFSZ): it wrote past the sandbox's file-size limit of \
${GRADE_FILE_MB:-256} MiB" ;;
        129|13[0-9]|1[4-5][0-9]) echo "crashed (signal $(( $1 - 128 ))$(kill -l $(( $1 - 128 )) 2>/dev/null |
                                  sed 's/^/, SIG/'))" ;;
        *) echo "exited $1" ;;
    esac
}

# The first line of LOG.run matching a pattern, cleaned.
first_line() { clean "$(grep -m1 -E -- "$1" "$2" | sed "${3:-}")"; }

# The reason a run of the exercise's program failed, from its exit status,
# its output and the harness's accuracy rows (RESULTS, the file the grader
# named); "" when it passed. Exit 77 is a failure: the grader ran it only
# because nvidia-smi lists a card.
run_reason() {
    local status=$1 run_log=$2 size=$3 seed=$4 results=$5 tolerance=$6 at="at $3 (seed $4)"
    case $status in
        0) results_reason "$results" "$tolerance" "$at" ;;
        77) echo "exit 77 (no GPU, says the program) $at, but nvidia-smi lists the $card here" ;;
        2) if grep -q ' refuses ' "$run_log"; then
               echo "refused size $size: $(first_line ' refuses ' "$run_log" 's/^.* refuses [^:]*: //')"
           else
               echo "could not run $size: $(clean "$(tail -n 1 "$run_log")")"
           fi ;;
        124|137) echo "timed out after ${timeout_s} s $at" ;;
        1) if grep -q 'unwritten' "$run_log"; then
               echo "NaN or unwritten output $at"
           elif grep -q ' failed: ' "$run_log"; then
               echo "CUDA error $at: $(first_line ' failed: ' "$run_log" 's/.* failed: //')"
           elif grep -q '^check .* FAIL' "$run_log"; then
               echo "wrong $at: $(first_line 'rel_l2 [^ ]* \(tolerance [^)]*\)' "$run_log" \
                                 's/.*\(rel_l2 [^ ]* (tolerance [^)]*)\).*/\1/')"
           else
               echo "failed $at: $(clean "$(tail -n 1 "$run_log")")"
           fi ;;
        *) echo "$(ended "$status" "$timeout_s") $at" ;;
    esac
}

# The submission's program at a size, its output judged by the exercise's
# own (run_judged): judge_values LIMIT SEED [-w WRAPPER...] -- SIZE...; the
# probe runs WRAPPER (a sanitizer, ncu) around the program, under the
# GPU's lock (alone for ncu). The referee writes its accuracy rows to
# $judge_run/errors.csv.
judge_values() {
    local limit=$1 seed=$2 wrapper=() mode=shared; shift 2
    if [ "$1" = -w ]; then
        shift; while [ "$1" != -- ]; do wrapper+=("$1"); shift; done
    fi
    shift
    [ -n "$ncu" ] && [ "${wrapper[0]:-}" = "$ncu" ] && mode=alone
    run_judged "$log" "$limit" "$mode" -- "${wrapper[@]}" "$program" "$@" --seed "$seed" \
        --emit-output -- "build/submission/${name%%--*}" "$@" --seed "$seed" --judge-output \
        --errors run/errors.csv
}

# The reason a judged run (judge_values) failed: the probe's own failures
# first (no GPU, a refused size, a crash, a time out, a CUDA error), then
# the referee's verdict on its output and its accuracy rows against the
# exercise's tolerance; "" when it passed. judged_reason SIZE SEED TOLERANCE
judged_reason() {
    local size=$1 seed=$2 tolerance=$3 at="at $1 (seed $2)"
    # (a refusal is the program's, whatever status a sanitizer around it
    # turned it into: compute-sanitizer exits 255 when its target ends
    # before any CUDA call)
    if [ "$status" -ne 0 ] && grep -q ' refuses ' "$log.run"; then
        echo "refused size $size: $(first_line ' refuses ' "$log.run" 's/^.* refuses [^:]*: //')"
        return
    fi
    case $status in
        0) ;;
        77) echo "exit 77 (no GPU, says the program) $at, but nvidia-smi lists the $card here"
            return ;;
        2) if grep -q ' refuses ' "$log.run"; then
               echo "refused size $size: $(first_line ' refuses ' "$log.run" 's/^.* refuses [^:]*: //')"
           else
               echo "could not run $size: $(clean "$(tail -n 1 "$log.run")")"
           fi
           return ;;
        1) if grep -q ' failed: ' "$log.run"; then
               echo "CUDA error $at: $(first_line ' failed: ' "$log.run" 's/.* failed: //')"
           else
               echo "failed $at: $(clean "$(tail -n 1 "$log.run")")"
           fi
           return ;;
        *) echo "$(ended "$status" "$timeout_s") $at"; return ;;
    esac
    if [ "$judged" -ne 0 ]; then
        if grep -q 'unwritten' "$log.judge"; then
            echo "NaN or unwritten output $at"
        elif grep -q '^check .* FAIL: ' "$log.judge"; then
            echo "$(first_line '^check .* FAIL: ' "$log.judge" 's/^check *[^ ]* *FAIL: //') $at"
        elif grep -q '^check .* FAIL' "$log.judge"; then
            echo "wrong $at: $(first_line 'rel_l2 [^ ]* \(tolerance [^)]*\)' "$log.judge" \
                              's/.*\(rel_l2 [^ ]* (tolerance [^)]*)\).*/\1/')"
        else
            echo "the judge of its output $(ended "$judged" "$timeout_s") $at"
        fi
        return
    fi
    results_reason "$judge_run/errors.csv" "$tolerance" "$at"
}

# The harness's accuracy rows (--errors FILE): one or more, each error a
# number within the exercise's tolerance. "" when they are.
results_reason() {
    local results=$1 tolerance=$2 at=$3
    if [ ! -s "$results" ]; then
        echo "no result from the harness $at: the program ended with status 0 before its own check"
        return
    fi
    awk -F, -v tolerance="$tolerance" -v at="$at" '
        NR == 1 { next }
        { rows++ }
        $7 !~ /^[0-9.]+(e[-+]?[0-9]+)?$/ || $7 + 0 > tolerance + 0 {
            printf "wrong %s: rel_l2 %s (the exercise'"'"'s tolerance %s)\n", at, $7, tolerance
            exit }
        END { if (!rows) printf "no result from the harness %s: no accuracy row\n", at }' "$results" |
        head -n 1
}

# The first line of a sanitizer's report that says what went wrong.
sanitizer_report() {
    grep -E '^=+ +[^ ]' "$1" |
        grep -vE 'COMPUTE-SANITIZER|ERROR SUMMARY|^=+ +(at |by |Host Frame|Device Frame|Saved )' |
        head -n 1 | sed -E 's/^=+ +//'
}

# The reason a judged host check failed (run_judged's outputs and statuses),
# "" when the referee passed it: its first FAIL line, and how the probe
# ended where it left a call unanswered.
host_reason() {
    local why
    if [ "$judged" -eq 0 ] &&
       tail -n 1 "$log.judge" | grep -Eqx 'host checks done: [1-9][0-9]* passed, 0 failed'; then
        return 0
    fi
    why=$(first_line '^FAIL' "$log.judge" 's/^FAIL *//')
    case $why in
        "the program's answers: the record of the calls ended"*)
            why=${why%%): it ended early*} why=${why#*ended (call }
            why="the record of the program's answers ended at call ${why/, / (}): the program \
$(ended "$status" "$timeout_s")" ;;
        "") why="the check $(ended "$judged" "$timeout_s") without its verdict" ;;
    esac
    echo "$why"
}
