# solutions/grade-exercise.sh - the grading of one exercise (solutions/grade.sh
# sources it): the comparison with its exercise, the build, and each check
# of solutions/checks.list in order, the first that fails ending it.

# ---------------------------------------------------------------- one exercise

# A failure: which part it belongs to (host or gpu) and what it says.
fail_with() { failed_part=$1 failure=$(clean "$2"); }

# need_referee PART WHAT: the exercise's own build of WHAT (its host check,
# or its program) for the referee; where it does not build, a failure of
# PART that says so, and status 1. ($exercise and $log: the caller's.)
need_referee() {
    referee_build "$exercise" "$2" && return 0
    fail_with "$1" "grader: the exercise's own $([ "$2" = host ] && echo "host check" || echo program) does not build (see $log)"
    return 1
}

# The submission's file against its exercise (tokens.awk): "" when it is
# the exercise with its TODOs filled.
compare_reason() {
    local name=$1 exercise=${1%%--*}
    [ "$compare" = no ] && return 0
    if [ ! -f "$tree/exercises/$exercise.cu" ]; then
        echo "not an exercise of the handout: there is no exercises/$exercise.cu to compare it with"
        return
    fi
    # The comparison runs as the grader, on the student's bytes: it reads
    # none over GRADE_SOURCE_KB (an exercise's file is some 10 KB), and runs
    # under limits of its own (a minute, 1 GiB).
    local why size limit_kb=${GRADE_SOURCE_KB:-256}
    size=$(stat -c %s "$scratch/submission/$name.cu" 2>/dev/null || echo 0)
    if [ "$size" -gt $((limit_kb * 1024)) ]; then
        echo "refused: $size bytes, over the $limit_kb KiB a submission's file may have"
        return
    fi
    why=$( (ulimit -v 1048576; timeout -k 5 60 awk -v exercise="$tree/exercises/$exercise.cu" \
                -v submission="$scratch/submission/$name.cu" -f solutions/tokens.awk) 2>&1)
    case $? in
        0) ;;
        124|137) echo "refused: the comparison with its exercise took over a minute" ;;
        *) echo "refused: $why" ;;
    esac
}

# Whether the object defines a symbol of the library: "" when it does not.
symbols_reason() {
    local object=$1 defined
    # (a tool over the built object, not the submission's code: the limit of a build)
    run_program "$log" "$compile_timeout_s" none -- nm -g --defined-only "$object"
    if [ $status -ne 0 ]; then echo "its object could not be read (nm: exit $status)"; return; fi
    defined=$(awk 'NF == 3 && $2 ~ /^[TDBRG]$/ { print $3 }' "$log.run" | sort -u |
              comm -12 - "$base/harness-symbols" | head -n 3 | joined ', ')
    [ -n "$defined" ] && echo "defines the library's own $defined: a submission may not replace \
the harness (common/)"
}

# Each check of solutions/checks.list, as a function of grade() (its
# variables: name, exercise, program, log, run, card, the check's kind and
# rest, the parts done and the notes). Each returns 0 to go on to the next
# check (passed, or skipped: no GPU, a tool missing) and 1 when it failed
# (fail_with says why): the grading of the exercise ends there.

# host: the host check, probe and referee (run_judged).
check_host() {
    local source=solutions/host/$exercise.cu
    if [ ! -f "$tree/$source" ]; then fail_with host "host: $source is missing"; return 1; fi
    if ! build_target "$name" host; then
        fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
        return 1
    fi
    need_referee host host || return 1
    seed=$(new_seed)
    run_judged "$log" "$timeout_s" none GRADE_SEED="$seed" -- "$program.host" --probe \
        -- "build/submission/$exercise.host" --referee
    why=$(host_reason)
    if [ -n "$why" ]; then fail_with host "host: $why"; return 1; fi
    host_done+=("$(grep '^ok' "$log.judge" | sed 's/^ok *//; s/:.*//' | joined ', ')")
    return 0
}

# local|KERNEL: no stack frame and no spills, as ptxas -v says.
check_local() {
    if ! build_target "$name" ptxas; then
        fail_with host "local memory: ptxas -v did not run (see $log)"; return 1
    fi
    # ptxas -v: "Function properties for MANGLED", then "N bytes stack frame, ..."
    local usage stack spills
    usage=$(awk -v kernel="$rest" '
        /Function properties for/ { mine = index($0, kernel) > 0; next }
        mine && /bytes stack frame/ { print; mine = 0 }' "$scratch/$program.ptxas" |
        head -n 1)
    if [ -z "$usage" ]; then
        fail_with host "local memory: ptxas names no kernel $rest"; return 1
    fi
    stack=$(echo "$usage" | awk '{ print $1 }')
    spills=$(echo "$usage" | sed -E 's/.*, ([0-9]+) bytes spill stores.*/\1/')
    echo "== ptxas, $rest: $usage" >> "$log"
    if [ "$stack" != 0 ] || [ "$spills" != 0 ]; then
        fail_with host "local memory (ptxas): $rest has a $stack-byte stack frame and \
$spills bytes of spill stores; its arrays belong in registers"
        return 1
    fi
    host_done+=("no local memory (ptxas)")
    return 0
}

# instr|KERNEL|PTX|SASS|MIN|WHAT[|ld or st]: the width of its loads or stores.
check_instr() {
    local ptx_regex sass_regex minimum what scalar pattern count narrow sass_count
    IFS='|' read -r kernel ptx_regex sass_regex minimum what scalar <<< "$rest"
    if ! build_target "$name" ptx; then
        fail_with host "$what: the PTX could not be made (see $log)"; return 1
    fi
    # A template's entry is mangled: vectorized_loads_scores<4> is
    # _Z23vectorized_loads_scoresILi4EE...; a plain kernel's is _Z<n>NAME...
    pattern=$kernel
    case $kernel in
        *\<*\>) pattern="${kernel%%<*}ILi${kernel#*<}" pattern="${pattern%>}EE" ;;
    esac
    count=$(awk -v kernel="$pattern" -v regex="$ptx_regex" '
        /^\.(visible |weak )?\.entry/ { mine = index($0, kernel) > 0 }
        /^\.(visible |weak )?\.func/ { mine = 0 }
        mine && $0 ~ regex { n++ }
        END { print n + 0 }' "$scratch/$program.ptx")
    echo "== PTX of $kernel: $count lines match $ptx_regex" >> "$log"
    if [ "$count" -lt "$minimum" ]; then
        fail_with host "$what (PTX): $kernel has $count such instructions, at least \
$minimum wanted"
        return 1
    fi
    if [ -n "$scalar" ]; then # and none of one float
        narrow=$(awk -v kernel="$pattern" -v op="$scalar" '
            /^\.(visible |weak )?\.entry/ { mine = index($0, kernel) > 0 }
            /^\.(visible |weak )?\.func/ { mine = 0 }
            mine && $1 ~ ("^" op "\\.global") && $0 !~ /\.v[248]\./ { n++ }
            END { print n + 0 }' "$scratch/$program.ptx")
        if [ "$narrow" -gt 0 ]; then
            local access=stores; [ "$scalar" = ld ] && access=loads
            fail_with host "$what (PTX): $kernel has $narrow 4-byte global $access as \
well; every one should be wide"
            return 1
        fi
    fi
    if [ -n "$cuobjdump" ]; then
        run_program "$log" "$compile_timeout_s" none -- "$cuobjdump" -sass "$program"
        sass_count=$(awk -v kernel="$pattern" -v regex="$sass_regex" '
            /Function : / { mine = index($0, kernel) > 0 }
            mine && $0 ~ regex { n++ }
            END { print n + 0 }' "$log.run")
        echo "== SASS of $kernel: $sass_count lines match $sass_regex" >> "$log"
        if [ "$sass_count" -lt "$minimum" ]; then
            fail_with host "$what (SASS): $kernel has $sass_count ${sass_regex//\\/}, \
at least $minimum wanted"
            return 1
        fi
        host_done+=("$what: $count in PTX, $sass_count ${sass_regex//\\/}")
    else
        host_done+=("$what: $count in PTX")
        notes+=("machine code not read, no cuobjdump here")
    fi
    return 0
}

# values, drawn, logits, scale: the values at a size, judged by the referee.
check_values() {
    local extra="" label=""
    size=$rest
    if [ "$kind" = scale ]; then
        extra="--input-scale ${rest%%|*}" size=${rest#*|} label="inputs in +-${rest%%|*}: "
    elif [ "$kind" = logits ]; then
        label="large logits: "
    elif [ "$kind" = drawn ]; then
        case $rest in
            triangle*) size=$(drawn_triangle ${rest#triangle }) ;;
            msa) size=$(drawn_msa) ;;
        esac
        label="drawn size: "
    fi
    seed=$(new_seed)
    [ -n "$card" ] || { gpu_skipped=1; return 0; }
    need_referee gpu program || return 1
    # $size and $extra unquoted: they are several arguments
    judge_values "$timeout_s" "$seed" -- $size $extra
    why=$(judged_reason "$size${extra:+ $extra}" "$seed" "$tolerance")
    if [ -n "$why" ]; then fail_with gpu "$label$why"; return 1; fi
    say "  $name $size${extra:+ $extra} seed $seed: ok"
    case $kind in
        values|drawn) sizes_run=$((sizes_run + 1)) ;;
        logits) gpu_done+=("logits 90") ;;
        scale) gpu_done+=("inputs +-${rest%%|*}") ;;
    esac
    return 0
}

# unwritten|SIZE: the host check's own GPU run, probe and referee.
check_unwritten() {
    [ -n "$card" ] || { gpu_skipped=1; return 0; }
    if ! build_target "$name" host; then
        fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
        return 1
    fi
    need_referee gpu host || return 1
    run_judged "$log" "$timeout_s" shared -- "$program.host" --probe unwritten $rest \
        -- "build/submission/$exercise.host" --referee unwritten $rest
    why=$(host_reason)
    if [ -n "$why" ]; then fail_with gpu "$why"; return 1; fi
    gpu_done+=("masked runs unwritten")
    return 0
}

# memcheck, racecheck, synccheck|SIZE: compute-sanitizer around the probe.
check_sanitizer() {
    [ -n "$card" ] || { gpu_skipped=1; return 0; }
    if [ -z "$sanitizer" ]; then
        gpu_notes+=("$kind not run, no compute-sanitizer here"); return 0
    fi
    seed=$(new_seed)
    need_referee gpu program || return 1
    judge_values $((4 * timeout_s)) "$seed" -w "$sanitizer" --tool "$kind" \
        --error-exitcode 99 -- $rest
    # A hazard that racecheck only warns about fails too. The values
    # are not judged here (the next checks do that), only that the
    # program's output reached the referee.
    # A finding reported before the program died counts as the
    # finding (an access out of bounds that then crashed the run).
    why=$(sanitizer_report "$log.run")
    if [ $status -eq 99 ] || grep -Eq 'Race reported|ERROR SUMMARY: [1-9]' "$log.run" ||
       { [ $status -ne 0 ] && [ $status -ne 1 ] && [ $status -ne 2 ] &&
         grep -Eq '^=+ +(Invalid|Barrier error|Illegal|Out of range|Misaligned)' "$log.run"; }; then
        fail_with gpu "$kind at $rest (seed $seed): ${why:-see $log}"; return 1
    fi
    if [ $status -ne 0 ]; then
        why=$(judged_reason "$rest" "$seed" "$tolerance")
        case $why in refused\ size*) ;; *) why="$kind: $why" ;; esac  # a refusal is a refusal
        fail_with gpu "$why"; return 1
    fi
    if grep -Eq '^check .* FAIL: (no output|the program)' "$log.judge"; then
        fail_with gpu "$kind: $(first_line '^check .* FAIL: ' "$log.judge" \
            's/^check *[^ ]* *FAIL: //') at $rest (seed $seed)"
        return 1
    fi
    gpu_done+=("$kind")
    return 0
}

# ncu|KERNEL|METRIC|SIZE: the bank conflicts Nsight Compute counts.
check_ncu() {
    [ -n "$card" ] || { gpu_skipped=1; return 0; }
    if [ -z "$ncu" ]; then
        gpu_notes+=("bank conflicts not measured, no ncu here"); return 0
    fi
    local metric wavefronts conflicts total excess side units
    IFS='|' read -r kernel metric size <<< "$rest"
    wavefronts=${metric/data_bank_conflicts_pipe_lsu_mem/data_pipe_lsu_wavefronts_mem}
    seed=$(new_seed)
    need_referee gpu program || return 1
    for units in "--print-units base" ""; do  # older ncu lacks --print-units
        judge_values $((4 * timeout_s)) "$seed" -w "$ncu" --clock-control none \
            --kernel-name "regex:$kernel" --launch-count 1 \
            --metrics "$metric.sum,$wavefronts.sum" --csv $units -- $size
        conflicts=$(awk -v metric="$metric.sum" -f solutions/ncu_metric.awk "$log.run")
        total=$(awk -v metric="$wavefronts.sum" -f solutions/ncu_metric.awk "$log.run")
        [ -n "$conflicts" ] && [ -n "$total" ] && break
    done
    if [ -z "$conflicts" ] || [ -z "$total" ]; then
        why=$(first_line 'ERR_|==ERROR==|rror' "$log.run")
        case $why in
            *ERR_NVGPUCTRPERM*) why="this driver lets only administrators read the \
counters (NVreg_RestrictProfilingToAdminUsers), and the sandbox's user is none" ;;
        esac
        notes+=("bank conflicts not measured, ncu gave no $metric${why:+: $why}")
        return 0
    fi
    if [ $status -ne 0 ] || grep -Eq '^check .* FAIL: (no output|the program)' "$log.judge"
    then
        fail_with gpu "bank conflicts: the program's output under ncu at $size did not \
reach the referee ($(ended "$status" "$((4 * timeout_s))"))"
        return 1
    fi
    excess=$(awk -v c="$conflicts" -v t="$total" \
        'BEGIN { ideal = t - c; printf "%.2f", (ideal > 0 ? c / ideal : (c > 0 ? 99 : 0)) }')
    side=stores; case $metric in *_ld) side=loads ;; esac
    echo "== ncu $kernel: $conflicts conflicts, $total wavefronts of shared $side" >> "$log"
    if awk -v e="$excess" 'BEGIN { exit !(e > 0.1) }'; then
        fail_with gpu "bank conflicts (ncu, shared $side of $kernel at $size): \
$conflicts in $total wavefronts, $excess extra per conflict-free one (at most 0.1)"
        return 1
    fi
    gpu_done+=("bank conflicts $excess (ncu)")
    return 0
}

# time|KERNEL|SIZE: the prediction (probe and referee) against the time the
# exercise's own program measures.
check_time() {
    local predicted csv_file measured ratio verdict on=(--card "NVIDIA H200")
    IFS='|' read -r kernel size <<< "$rest"
    [ -n "$card" ] && on=(--card live)
    if ! build_target "$name" host; then
        fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
        return 1
    fi
    need_referee host host || return 1
    run_judged "$log" "$timeout_s" "$([ -n "$card" ] && echo shared || echo none)" -- \
        "$program.host" --probe predict "$kernel" $size "${on[@]}" \
        -- "build/submission/$exercise.host" --referee predict "$kernel" $size "${on[@]}"
    predicted=""
    [ "$judged" -eq 0 ] && predicted=$(awk '$1 == "predicted_ms" { print $2; exit }' "$log.judge")
    if ! awk -v p="$predicted" 'BEGIN { exit !(p ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ &&
                                               p + 0 > 0 && p + 0 < 1e9) }'; then
        fail_with host "prediction: none for $kernel at $size (predicted_ms says \
'$(clean "$predicted")')"
        return 1
    fi
    echo "== predicted $predicted ms for $kernel at $size" >> "$log"
    if [ -z "$card" ]; then
        gpu_skipped=1
        host_done+=("predicts $predicted ms for $kernel at ${size%% mask=*} on the H200")
        return 0
    fi
    # The kernel raced is the chapter's, not the student's: the
    # exercise's own program times it, no student code in the run.
    need_referee gpu program || return 1
    seed=$(new_seed)
    local timed_run=$pristine/run/$(basename "$run").time
    rm -rf "$timed_run" && mkdir -p "$timed_run" &&
        { [ "$EUID" -ne 0 ] || chown "$sandbox_user" "$timed_run"; }
    csv_file=$timed_run/times.csv results=$timed_run/errors.csv
    ( scratch=$pristine run=$timed_run
      run_program "$log" $((4 * timeout_s)) alone -- "build/submission/$exercise" $size \
          --kernel "$kernel" --csv run/times.csv --errors run/errors.csv --reps 20 \
          --seed "$seed"
      echo "$status" > "$log.status" )
    status=$(cat "$log.status")
    why=$(run_reason $status "$log.run" "$size" "$seed" "$results" 1)
    if [ -n "$why" ]; then fail_with gpu "prediction: the timed run failed: $why"; return 1; fi
    measured=$(awk -F, -v k="$kernel" 'NR > 1 && $2 == k { print $5; exit }' "$csv_file" \
               2>/dev/null)
    if ! awk -v m="$measured" 'BEGIN { exit !(m ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && m > 0) }'; then
        fail_with gpu "prediction: no time measured for $kernel (the harness wrote no \
row)"
        return 1
    fi
    ratio=$(awk -v m="$measured" -v p="$predicted" 'BEGIN { printf "%.2f", m / p }')
    verdict="measured $measured ms / predicted $predicted ms = $ratio for $kernel at $size \
on the $card"
    say "  $name: $verdict"
    echo "== $verdict" >> "$log"
    if awk -v r="$ratio" -v f="$PREDICTION_FACTOR" 'BEGIN { exit !(r > f || r < 1/f) }'
    then
        fail_with gpu "prediction: $verdict, outside 1/$PREDICTION_FACTOR to \
$PREDICTION_FACTOR"
        return 1
    fi
    gpu_done+=("measured/predicted $ratio ($kernel, ${size%% mask=*})")
    return 0
}

# grade NAME: grades one exercise; sets result, host_part, gpu_part, reason.
grade() {
    local name=$1 exercise=${1%%--*}
    local program=build/submission/$name
    log=$logs/$name.log run=$scratch/run/$name
    : > "$log"
    mkdir -p "$run" && [ "$EUID" -eq 0 ] && chown "$sandbox_user" "$run"
    result=FAIL host_part=- gpu_part=- reason=""
    start_draws "$name"
    card=$(card_here)   # the grader's own look, each exercise afresh
    local why
    why=$(compare_reason "$name")
    if [ -n "$why" ]; then
        reason=$(clean "$why"); say "  $name: $reason"; return
    fi
    build_target "$name" program
    local built=$?
    if [ $built -ne 0 ]; then
        local error
        error=$(grep -m1 'error' "$log" | sed -E 's/^[^ ]*\.cu\(([0-9]+)\): /line \1: /')
        case $built in 124|137) error="the build took over $compile_timeout_s s" ;; esac
        reason=$(clean "does not compile: ${error:-see $log}")
        say "  $name: does not compile"
        return
    fi
    why=$(symbols_reason "$program.o")
    if [ -n "$why" ]; then reason=$(clean "$why"); say "  $name: $reason"; return; fi

    local host_done=() gpu_done=() notes=() gpu_notes=() failure="" failed_part=""
    local gpu_skipped=0 sizes_run=0 tolerance; tolerance=$(tolerance_of "$name")
    local check kind rest kernel size seed results judge_run
    # The checks come in on descriptor 3: what runs in the loop reads only
    # /dev/null on its standard input, never this list.
    while IFS= read -r check <&3; do
        kind=${check%%|*} rest=${check#*|}
        case $kind in
            host) check_host ;;
            local) check_local ;;
            instr) check_instr ;;
            values|drawn|logits|scale) check_values ;;
            unwritten) check_unwritten ;;
            memcheck|racecheck|synccheck) check_sanitizer ;;
            ncu) check_ncu ;;
            time) check_time ;;
            *) fail_with host "grader: unknown check '$check'"; false ;;
        esac || break
    done 3< <(checks_of "$name")
    rm -f "$log.run"

    [ $sizes_run -gt 0 ] && gpu_done=("values at $sizes_run sizes (rel_l2 under $tolerance)" \
                                      "${gpu_done[@]}")
    local host_text gpu_text
    host_text=$(printf '%s\n' "${host_done[@]}" | sed '/^$/d' | joined ', ')
    gpu_text=$(printf '%s\n' "${gpu_done[@]}" | sed '/^$/d' | joined ', ')
    [ -n "$host_text" ] && host_part=PASS
    [ -n "$gpu_text" ] && gpu_part=PASS
    if [ -n "$failure" ]; then
        if [ "$failed_part" = host ]; then host_part=FAIL; else gpu_part=FAIL; fi
        result=FAIL reason=$failure
        say "  $name: FAIL: $failure"
        return
    fi
    if [ $gpu_skipped -eq 1 ]; then
        result=SKIP gpu_part=SKIP
        if [ -n "$host_text" ]; then reason="host: $host_text; GPU: not run, no GPU here"
        else reason="compiled, compared with its exercise; GPU: not run, no GPU here"; fi
    else
        result=PASS
        notes+=("${gpu_notes[@]}")   # a missing GPU tool matters only where there is a GPU
        reason="${host_text:+host: $host_text}${host_text:+${gpu_text:+; }}"
        reason="$reason${gpu_text:+GPU: $gpu_text}"
    fi
    local unchecked
    unchecked=$(printf '%s\n' "${notes[@]}" | awk 'NF && !seen[$0]++' | joined '; ')
    [ -n "$unchecked" ] && reason="$reason (unchecked: $unchecked)"
    reason=$(clean "$reason")
}
