#!/usr/bin/env bash
# solutions/grade.sh - the grader behind `make grade`.
#
#   solutions/grade.sh                    grade every exercise in exercises/
#   solutions/grade.sh 02-triangle-grid   grade one (the .cu and a folder may be given too)
#   GRADE_DIR=solutions solutions/grade.sh    grade the solutions instead (or any
#                                         folder of files named like the exercises)
#
# Each exercise is graded on what it asks (checks_of below), in this order,
# stopping at the first check that fails:
#
#   1. it compiles (else FAIL, "does not compile", with the first error);
#   2. host: the checks that need no GPU. The exercise's __host__ __device__
#      functions are run on the CPU by solutions/host/NAME.cu (indices against
#      the referee's, bank conflicts counted from the exercise's own address
#      functions, an emulated cuBLAS call, a prediction's counts); ptxas says
#      whether a kernel uses local memory; the PTX (and, where cuobjdump is
#      installed, the machine code) shows the width of its loads and stores;
#   3. GPU: compute-sanitizer (memcheck, racecheck, synccheck) at a small size,
#      the values against the CPU referee at every size of the exercise (the
#      output filled with NaN first, a fresh seed per run, SEED=N fixes it),
#      the adversarial inputs (--logits 90 for a softmax, --input-scale for
#      magnitudes), Nsight Compute's counters (bank conflicts), and for a
#      "predict, then measure" exercise the measured time against the
#      prediction.
#
# Then one table: exercise, result, what ran on the host and on the GPU, and
# the reason (the property that failed, or what was checked). Without a GPU
# the host checks run for real and the GPU checks are SKIP; a tool that is
# missing (compute-sanitizer, ncu, cuobjdump) is named in the reason, never
# passed in silence.
#
# Exit status: 0 every exercise passed; 1 one failed (compile error
# included); 2 bad usage; 77 nothing failed but something could not run
# here (no GPU), so the table says SKIP.
#
# Environment: GRADE_DIR (exercises), BUILD (build), MAKE (make), SEED
# (fresh per run), GRADE_TIMEOUT (seconds per run, 120; a sanitizer, ncu or
# timed run gets four times that); COMPUTE_SANITIZER, NCU, CUOBJDUMP (the
# tools, found on the PATH or beside nvcc; "none" grades as if one were
# missing). Logs of every build and run: $BUILD/grade-logs/<folder>/.
cd "$(dirname "$0")/.." || exit 2

folder=${GRADE_DIR:-exercises}
folder=${folder%/}
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
timeout_s=${GRADE_TIMEOUT:-120}

# The sizes: TRIANGLE_GRADE, MSA_GRADE, TRIANGLE_SANITIZE and MSA_SANITIZE.
. tests/sizes.sh || exit 2

# A softmax that does not subtract its maximum overflows here: the logit of
# largest magnitude is scaled to +90, past where expf overflows (88.7), and
# with every key kept it is one the softmax weighs.
LOGITS_SIZE="B=2 S=33 N=9 D=64 H=2 mask=kept --logits 90"
# How far a prediction may be from the measured time, either way.
PREDICTION_FACTOR=2

# checks_of NAME: what exercise NAME is graded on, one check a line, fields
# separated by |. A fixture named EXERCISE--what.cu (made by
# tests/grade_fixtures.sh from tests/fixtures/grade/) is graded as EXERCISE.
#   host                        solutions/host/EXERCISE.cu, run on the CPU
#   local|KERNEL                ptxas: KERNEL has no stack frame and no spills
#   instr|KERNEL|PTX|SASS|MIN|WHAT[|ld or st]   KERNEL's PTX has at least MIN
#                               matches of the regex PTX (its machine code of
#                               SASS, where cuobjdump is installed): WHAT; with
#                               ld (st), no global load (store) of one float
#   memcheck|SIZE  racecheck|SIZE  synccheck|SIZE   compute-sanitizer
#   values|SIZE                 the referee's check at SIZE
#   logits|SIZE                 the same, large logits (SIZE carries --logits)
#   scale|X|SIZE                the same, inputs drawn in +-X
#   ncu|KERNEL|METRIC|SIZE      bank conflicts: METRIC's excess wavefronts
#                               per conflict-free one, at most 0.1
#   time|KERNEL|SIZE            measured / predicted within PREDICTION_FACTOR
triangle_values() { local size; for size in "${TRIANGLE_GRADE[@]}"; do echo "values|$size"; done; }
msa_values() { local size; for size in "${MSA_GRADE[@]}"; do echo "values|$size"; done; }
checks_of() {
    local ts=${TRIANGLE_SANITIZE[0]} ms=${MSA_SANITIZE[0]}
    local st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st
    local ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
    local v4='ld\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32' s4='st\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32'
    local v2='ld\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32' s2='st\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32'
    case ${1%%--*} in
        01-cublas-rows-packed)
            echo host; echo "memcheck|$ts"; triangle_values; echo "values|B=2 T=200 C=128 NH=2" ;;
        02-triangle-grid)
            echo host; echo "memcheck|$ts"; triangle_values ;;
        02-naive-any-length)
            echo "memcheck|B=1 T=129 C=32 NH=1"
            printf 'values|%s\n' "B=1 T=1 C=32 NH=1" "B=3 T=129 C=96 NH=3" "B=2 T=200 C=320 NH=5" \
                "B=1 T=1000 C=768 NH=12" "${TRIANGLE_GRADE[3]}" ;;
        03-registers-counts)
            echo host; echo "memcheck|$ts"; echo "values|${TRIANGLE_GRADE[0]}" ;;
        03-registers-epilogue)
            echo host; echo "local|registers_epilogue_scores"; echo "memcheck|$ts"
            triangle_values ;;
        04-vectorized-loads)
            echo host
            echo "instr|vectorized_loads_scores<4>|$v4|LDG\.E\.128|16|16-byte loads (float4)|ld"
            echo "instr|vectorized_loads_scores<2>|$v2|LDG\.E\.64|16|8-byte loads (float2)|ld"
            echo "memcheck|B=1 T=128 C=12 NH=2"; triangle_values
            echo "values|B=1 T=128 C=12 NH=2"; echo "values|B=2 T=256 C=15 NH=3" ;;
        04-vectorized-stores)
            echo host
            echo "instr|vectorized_stores_scores|$s4|STG\.E\.128|16|16-byte stores (float4)|st"
            echo "memcheck|$ts"; triangle_values ;;
        05-shared-stage-tiles)
            echo host; echo "instr|shared_stage_scores|$v4|LDG\.E\.128|1|16-byte loads (float4)|ld"
            echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values
            echo "ncu|shared_stage_scores|$st|B=1 T=256 C=64 NH=1" ;;
        05-shared-inner-loop)
            echo host; echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values
            echo "ncu|shared_inner_scores|$ld|B=1 T=256 C=64 NH=1" ;;
        05-shared-predict) # the chapter's kernel, raced unchanged
            echo host; echo "memcheck|$ts"
            echo "time|shared+rows+interleaved|B=8 T=1024 C=768 NH=12"
            echo "time|shared+rows+interleaved|B=8 T=4096 C=768 NH=12" ;;
        06-msa-softmax)
            echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE" ;;
        06-msa-layernorm)
            echo host; echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE" ;;
        06-msa-gate)
            echo host; echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE"; echo "ncu|msa_layer|$ld|${MSA_GRADE[4]}" ;;
        07-online-softmax)
            echo host; echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE" ;;
        07-tiled-predict) # the chapter's layer, raced unchanged
            echo host; echo "memcheck|$ms"
            echo "time|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept"
            echo "time|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept" ;;
        08-tensor-fragments)
            echo host; echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values
            echo "ncu|tensor_tile_scores|$ld|B=1 T=256 C=64 NH=1" ;;
        08-tensor-epilogue)
            echo host
            echo "instr|tensor_tile_scores|$s2|STG\.E\.64|16|8-byte stores (float2)|st"
            echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values ;;
        08-tensor-predict) # chapter 1's and chapter 8's kernels, raced unchanged
            echo host; echo "memcheck|$ts"
            local size; for size in "B=8 T=1024 C=768 NH=12" "B=8 T=4096 C=768 NH=12"; do
                echo "time|cublas-tf32|$size"; echo "time|tf32+rows|$size"
            done ;;
        09-tf32-split)
            echo host; echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values
            echo "scale|1e-3|${TRIANGLE_GRADE[1]}"; echo "scale|1e3|${TRIANGLE_GRADE[1]}" ;;
        06-*|07-*) msa_values ;;
        *) triangle_values ;;
    esac
}

# Which exercises: the arguments, or every NN-slug.cu of the folder.
names=()
if [ $# -eq 0 ]; then
    for source in "$folder"/[0-9][0-9]-*.cu; do
        [ -f "$source" ] && names+=("$(basename "$source" .cu)")
    done
    if [ ${#names[@]} -eq 0 ]; then
        echo "grade: no exercises (NN-slug.cu) in $folder/" >&2
        exit 2
    fi
else
    for name in "$@"; do
        name=$(basename "$name" .cu)
        if [ ! -f "$folder/$name.cu" ]; then
            echo "grade: no $folder/$name.cu; the exercises are:" \
                 $(cd "$folder" 2>/dev/null && ls [0-9][0-9]-*.cu 2>/dev/null | sed 's/\.cu$//') >&2
            exit 2
        fi
        names+=("$name")
    done
fi

logs=$BUILD/grade-logs/$folder
mkdir -p "$logs" || exit 2
new_seed() {
    if [ -n "${SEED:-}" ]; then echo "$SEED"; else od -An -N4 -tu4 /dev/urandom | tr -d ' '; fi
}
# A CUDA tool: the one the variable names (none: treat it as missing), or
# the one on the PATH, or the one beside nvcc.
tool() {
    local name=$1 chosen=$2
    if [ "$chosen" = none ]; then return 0; fi
    if [ -n "$chosen" ]; then echo "$chosen"; return 0; fi
    command -v "$name" 2>/dev/null && return 0
    local nvcc; nvcc=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
    [ -x "$(dirname "$nvcc")/$name" ] && echo "$(dirname "$nvcc")/$name"
}
sanitizer=$(tool compute-sanitizer "${COMPUTE_SANITIZER:-}")
ncu=$(tool ncu "${NCU:-}") cuobjdump=$(tool cuobjdump "${CUOBJDUMP:-}")

no_gpu=""   # why the programs could not run, once one has said so

# The reason a run of the exercise's program failed, from its exit status
# and output; "" when it passed. Sets no_gpu on status 77.
run_reason() {
    local status=$1 run_log=$2 size=$3 seed=$4 at="at $3 (seed $4)"
    case $status in
        0) return 0 ;;
        77) no_gpu=$(grep -m1 SKIPPED "$run_log" | sed 's/^SKIPPED: //'); echo skip ;;
        2) if grep -q ' refuses ' "$run_log"; then
               echo "refused size $size: $(grep -m1 ' refuses ' "$run_log" |
                                           sed 's/^.* refuses [^:]*: //')"
           else
               echo "could not run $size: $(tail -n 1 "$run_log")"
           fi ;;
        124|137) echo "timed out after ${timeout_s} s $at" ;;
        1) if grep -q 'unwritten' "$run_log"; then
               echo "NaN or unwritten output $at"
           elif grep -q ' failed: ' "$run_log"; then
               echo "CUDA error $at: $(grep -m1 ' failed: ' "$run_log" | sed 's/.* failed: //')"
           elif grep -q '^check .* FAIL' "$run_log"; then
               echo "wrong $at: $(grep -m1 -o 'rel_l2 [^ ]* (tolerance [^)]*)' "$run_log")"
           else
               echo "failed $at: $(tail -n 1 "$run_log")"
           fi ;;
        *) echo "crashed (exit $status) $at" ;;
    esac
}

# One run of the program, logged: run_program LOG TIMEOUT COMMAND...; sets status.
run_program() {
    local log=$1 limit=$2; shift 2
    timeout -k 10 "$limit" "$@" < /dev/null > "$log.run" 2>&1
    status=$?
    { echo "== $*: exit $status"; cat "$log.run"; } >> "$log"
}

# Builds a target of grade.mk, its output into the log.
build() { "$MAKE" -s --no-print-directory BUILD="$BUILD" GRADE_DIR="$folder" "$1" >> "$2" 2>&1; }

# Lines from stdin joined with SEPARATOR.
joined() {
    awk -v separator="$1" 'NR > 1 { printf "%s", separator } { printf "%s", $0 } END { print "" }'
}

# A failure: which part it belongs to (host or gpu) and what it says.
fail_with() { failed_part=$1 failure=$2; }

# The first line of a sanitizer's report that says what went wrong.
sanitizer_report() {
    grep -E '^=+ +[^ ]' "$1" |
        grep -vE 'COMPUTE-SANITIZER|ERROR SUMMARY|^=+ +(at |by |Host Frame|Device Frame|Saved )' |
        head -n 1 | sed -E 's/^=+ +//'
}

# grade NAME: grades one exercise; sets result, host_part, gpu_part, reason.
grade() {
    local name=$1 exercise=${1%%--*}
    local log=$logs/$name.log program=$BUILD/$folder/$name
    : > "$log"
    result=FAIL host_part=- gpu_part=- reason=""
    if ! build "$program" "$log"; then
        local error
        error=$(grep -m1 'error' "$log" | sed -E 's/^[^ ]*\.cu\(([0-9]+)\): /line \1: /')
        reason="does not compile: ${error:-see $log}"
        echo "  $name: does not compile"
        return
    fi
    local host_done=() gpu_done=() notes=() gpu_notes=() failure="" failed_part=""
    local gpu_skipped=0 sizes_run=0
    local check kind rest kernel size seed why
    while IFS= read -r check; do
        kind=${check%%|*} rest=${check#*|}
        case $kind in
        host)
            local source=solutions/host/$exercise.cu
            if [ ! -f "$source" ]; then fail_with host "host: $source is missing"; break; fi
            if ! build "$program.host" "$log"; then
                fail_with host "host: the host check does not compile: $(grep -m1 'error' "$log")"
                break
            fi
            run_program "$log" "$timeout_s" "$program.host"
            if [ $status -ne 0 ]; then
                why=$(grep -m1 '^FAIL' "$log.run" | sed 's/^FAIL *//')
                fail_with host "host: ${why:-the check exited $status: $(tail -n 1 "$log.run")}"
                break
            fi
            host_done+=("$(grep '^ok' "$log.run" | sed 's/^ok *//; s/:.*//' | joined ', ')") ;;
        local)
            if ! build "$program.ptxas" "$log"; then
                fail_with host "local memory: ptxas -v did not run (see $log)"; break
            fi
            # ptxas -v: "Function properties for MANGLED", then "N bytes stack frame, ..."
            local usage stack spills
            usage=$(awk -v kernel="$rest" '
                /Function properties for/ { mine = index($0, kernel) > 0; next }
                mine && /bytes stack frame/ { print; mine = 0 }' "$program.ptxas" | head -n 1)
            if [ -z "$usage" ]; then
                fail_with host "local memory: ptxas names no kernel $rest"; break
            fi
            stack=$(echo "$usage" | awk '{ print $1 }')
            spills=$(echo "$usage" | sed -E 's/.*, ([0-9]+) bytes spill stores.*/\1/')
            echo "== ptxas, $rest: $usage" >> "$log"
            if [ "$stack" != 0 ] || [ "$spills" != 0 ]; then
                fail_with host "local memory (ptxas): $rest has a $stack-byte stack frame and \
$spills bytes of spill stores; its arrays belong in registers"
                break
            fi
            host_done+=("no local memory (ptxas)") ;;
        instr)
            local ptx_regex sass_regex minimum what scalar pattern count narrow sass_count
            IFS='|' read -r kernel ptx_regex sass_regex minimum what scalar <<< "$rest"
            if ! build "$program.ptx" "$log"; then
                fail_with host "$what: the PTX could not be made (see $log)"; break
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
                END { print n + 0 }' "$program.ptx")
            echo "== PTX of $kernel: $count lines match $ptx_regex" >> "$log"
            if [ "$count" -lt "$minimum" ]; then
                fail_with host "$what (PTX): $kernel has $count such instructions, at least \
$minimum wanted"
                break
            fi
            if [ -n "$scalar" ]; then # and none of one float
                narrow=$(awk -v kernel="$pattern" -v op="$scalar" '
                    /^\.(visible |weak )?\.entry/ { mine = index($0, kernel) > 0 }
                    /^\.(visible |weak )?\.func/ { mine = 0 }
                    mine && $1 ~ ("^" op "\\.global") && $0 !~ /\.v[248]\./ { n++ }
                    END { print n + 0 }' "$program.ptx")
                if [ "$narrow" -gt 0 ]; then
                    local access=stores; [ "$scalar" = ld ] && access=loads
                    fail_with host "$what (PTX): $kernel has $narrow 4-byte global $access as \
well; every one should be wide"
                    break
                fi
            fi
            if [ -n "$cuobjdump" ]; then
                sass_count=$("$cuobjdump" -sass "$program" 2>> "$log" |
                             awk -v kernel="$pattern" -v regex="$sass_regex" '
                    /Function : / { mine = index($0, kernel) > 0 }
                    mine && $0 ~ regex { n++ }
                    END { print n + 0 }')
                echo "== SASS of $kernel: $sass_count lines match $sass_regex" >> "$log"
                if [ "$sass_count" -lt "$minimum" ]; then
                    fail_with host "$what (SASS): $kernel has $sass_count ${sass_regex//\\/}, \
at least $minimum wanted"
                    break
                fi
                host_done+=("$what: $count in PTX, $sass_count ${sass_regex//\\/}")
            else
                host_done+=("$what: $count in PTX")
                notes+=("machine code not read, no cuobjdump here")
            fi ;;
        values|logits|scale)
            local extra="" label=""
            size=$rest
            if [ "$kind" = scale ]; then
                extra="--input-scale ${rest%%|*}" size=${rest#*|} label="inputs in +-${rest%%|*}: "
            elif [ "$kind" = logits ]; then
                label="large logits: "
            fi
            seed=$(new_seed)
            # $size and $extra unquoted: they are several arguments
            run_program "$log" "$timeout_s" "$program" $size $extra --check-only --seed "$seed"
            why=$(run_reason $status "$log.run" "$size${extra:+ $extra}" "$seed")
            if [ "$why" = skip ]; then gpu_skipped=1; continue; fi
            if [ -n "$why" ]; then fail_with gpu "$label$why"; break; fi
            echo "  $name $size${extra:+ $extra} seed $seed: ok"
            case $kind in
                values) sizes_run=$((sizes_run + 1)) ;;
                logits) gpu_done+=("logits 90") ;;
                scale) gpu_done+=("inputs +-${rest%%|*}") ;;
            esac ;;
        memcheck|racecheck|synccheck)
            if [ -n "$no_gpu" ]; then gpu_skipped=1; continue; fi
            if [ -z "$sanitizer" ]; then
                gpu_notes+=("$kind not run, no compute-sanitizer here"); continue
            fi
            seed=$(new_seed)
            run_program "$log" $((4 * timeout_s)) "$sanitizer" --tool "$kind" --error-exitcode 99 \
                "$program" $rest --check-only --seed "$seed"
            if [ $status -eq 77 ]; then
                no_gpu=$(grep -m1 SKIPPED "$log.run" | sed 's/^SKIPPED: //') gpu_skipped=1; continue
            fi
            # A hazard that racecheck only warns about fails too. The values
            # are not judged here (exit 1): the next checks do that.
            # A finding reported before the program died counts as the
            # finding (an access out of bounds that then crashed the run).
            why=$(sanitizer_report "$log.run")
            if [ $status -eq 99 ] || grep -Eq 'Race reported|ERROR SUMMARY: [1-9]' "$log.run" ||
               { [ $status -ne 0 ] && [ $status -ne 1 ] && [ $status -ne 2 ] &&
                 grep -Eq '^=+ +(Invalid|Barrier error|Illegal|Out of range|Misaligned)' "$log.run"; }; then
                fail_with gpu "$kind at $rest (seed $seed): ${why:-see $log}"; break
            fi
            if [ $status -ne 0 ] && [ $status -ne 1 ]; then
                why=$(run_reason $status "$log.run" "$rest" "$seed")
                [ $status -eq 2 ] || why="$kind: $why"  # a refused size is a refused size
                fail_with gpu "$why"; break
            fi
            gpu_done+=("$kind") ;;
        ncu)
            if [ -n "$no_gpu" ]; then gpu_skipped=1; continue; fi
            if [ -z "$ncu" ]; then
                gpu_notes+=("bank conflicts not measured, no ncu here"); continue
            fi
            local metric wavefronts conflicts total excess side units
            IFS='|' read -r kernel metric size <<< "$rest"
            wavefronts=${metric/data_bank_conflicts_pipe_lsu_mem/data_pipe_lsu_wavefronts_mem}
            seed=$(new_seed)
            for units in "--print-units base" ""; do  # older ncu lacks --print-units
                run_program "$log" $((4 * timeout_s)) "$ncu" --clock-control none \
                    --kernel-name "regex:$kernel" --launch-count 1 \
                    --metrics "$metric.sum,$wavefronts.sum" --csv $units \
                    "$program" $size --check-only --seed "$seed"
                conflicts=$(awk -v metric="$metric.sum" -f solutions/ncu_metric.awk "$log.run")
                total=$(awk -v metric="$wavefronts.sum" -f solutions/ncu_metric.awk "$log.run")
                [ -n "$conflicts" ] && [ -n "$total" ] && break
            done
            if [ -z "$conflicts" ] || [ -z "$total" ]; then
                why=$(grep -m1 -E 'ERR_|==ERROR==|rror' "$log.run")
                notes+=("bank conflicts not measured, ncu gave no $metric${why:+: $why}")
                continue
            fi
            excess=$(awk -v c="$conflicts" -v t="$total" \
                'BEGIN { ideal = t - c; printf "%.2f", (ideal > 0 ? c / ideal : (c > 0 ? 99 : 0)) }')
            side=stores; case $metric in *_ld) side=loads ;; esac
            echo "== ncu $kernel: $conflicts conflicts, $total wavefronts of shared $side" >> "$log"
            if awk -v e="$excess" 'BEGIN { exit !(e > 0.1) }'; then
                fail_with gpu "bank conflicts (ncu, shared $side of $kernel at $size): \
$conflicts in $total wavefronts, $excess extra per conflict-free one (at most 0.1)"
                break
            fi
            gpu_done+=("bank conflicts $excess (ncu)") ;;
        time)
            local predicted csv measured ratio verdict
            IFS='|' read -r kernel size <<< "$rest"
            predicted=$("$program.host" predict "$kernel" $size 2>> "$log")
            predicted=${predicted#predicted_ms }
            if ! awk -v p="$predicted" 'BEGIN { exit !(p + 0 > 0 && p + 0 < 1e9) }'; then
                fail_with host "prediction: none for $kernel at $size (predicted_ms says \
'$predicted')"
                break
            fi
            echo "== predicted $predicted ms for $kernel at $size" >> "$log"
            if [ -n "$no_gpu" ]; then
                gpu_skipped=1 host_done+=("predicts $predicted ms for $kernel at ${size%% mask=*}")
                continue
            fi
            seed=$(new_seed) csv=$logs/$name.times.csv
            rm -f "$csv"
            run_program "$log" $((4 * timeout_s)) "$program" $size --kernel "$kernel" --csv "$csv" \
                --reps 20 --seed "$seed"
            why=$(run_reason $status "$log.run" "$size" "$seed")
            if [ "$why" = skip ]; then
                gpu_skipped=1 host_done+=("predicts $predicted ms for $kernel at ${size%% mask=*}")
                continue
            fi
            if [ -n "$why" ]; then fail_with gpu "prediction: the timed run failed: $why"; break; fi
            measured=$(awk -F, -v k="$kernel" 'NR > 1 && $2 == k { print $5; exit }' "$csv")
            if [ -z "$measured" ]; then
                fail_with gpu "prediction: no time measured for $kernel"; break
            fi
            ratio=$(awk -v m="$measured" -v p="$predicted" 'BEGIN { printf "%.2f", m / p }')
            verdict="measured $measured ms / predicted $predicted ms = $ratio for $kernel at $size"
            echo "  $name: $verdict"
            echo "== $verdict" >> "$log"
            if awk -v r="$ratio" -v f="$PREDICTION_FACTOR" 'BEGIN { exit !(r > f || r < 1/f) }'
            then
                fail_with gpu "prediction: $verdict, outside 1/$PREDICTION_FACTOR to \
$PREDICTION_FACTOR"
                break
            fi
            gpu_done+=("measured/predicted $ratio ($kernel, ${size%% mask=*})") ;;
        *)
            fail_with host "grader: unknown check '$check'"; break ;;
        esac
    done < <(checks_of "$name")
    rm -f "$log.run"

    [ $sizes_run -gt 0 ] && gpu_done=("values at $sizes_run sizes" "${gpu_done[@]}")
    local host_text gpu_text
    host_text=$(printf '%s\n' "${host_done[@]}" | sed '/^$/d' | joined ', ')
    gpu_text=$(printf '%s\n' "${gpu_done[@]}" | sed '/^$/d' | joined ', ')
    [ -n "$host_text" ] && host_part=PASS
    [ -n "$gpu_text" ] && gpu_part=PASS
    if [ -n "$failure" ]; then
        if [ "$failed_part" = host ]; then host_part=FAIL; else gpu_part=FAIL; fi
        result=FAIL reason=$failure
        echo "  $name: FAIL: $failure"
        return
    fi
    if [ $gpu_skipped -eq 1 ]; then
        result=SKIP gpu_part=SKIP
        if [ -n "$host_text" ]; then reason="host: $host_text; GPU: not run, no GPU here"
        else reason="compiled, sizes accepted; GPU: not run, no GPU here"; fi
    else
        result=PASS
        notes+=("${gpu_notes[@]}")   # a missing GPU tool matters only where there is a GPU
        reason="${host_text:+host: $host_text}${host_text:+${gpu_text:+; }}"
        reason="$reason${gpu_text:+GPU: $gpu_text}"
    fi
    local unchecked
    unchecked=$(printf '%s\n' "${notes[@]}" | awk 'NF && !seen[$0]++' | joined '; ')
    [ -n "$unchecked" ] && reason="$reason (unchecked: $unchecked)"
}

echo "grading $folder/: ${#names[@]} exercise(s), each on what it asks, with a fresh seed per run"
results=() reasons=() host_parts=() gpu_parts=()
for name in "${names[@]}"; do
    grade "$name"
    results+=("$result") reasons+=("$reason") host_parts+=("$host_part") gpu_parts+=("$gpu_part")
done

echo
width=28
for name in "${names[@]}"; do [ ${#name} -gt $width ] && width=${#name}; done
printf "%-${width}s %-6s %-4s %-4s %s\n" exercise result host gpu reason
passed=0 failed=0 skipped=0
for k in "${!names[@]}"; do
    printf "%-${width}s %-6s %-4s %-4s %s\n" "${names[$k]}" "${results[$k]}" "${host_parts[$k]}" \
        "${gpu_parts[$k]}" "${reasons[$k]}"
    case ${results[$k]} in
        PASS) passed=$((passed + 1)) ;;
        FAIL) failed=$((failed + 1)) ;;
        *) skipped=$((skipped + 1)) ;;
    esac
done
echo
echo "$folder/: $passed passed, $failed failed, $skipped skipped (logs in $logs/)"
[ -n "$no_gpu" ] && echo "no GPU here ($no_gpu): the host checks ran, no kernel did"
[ $failed -gt 0 ] && exit 1
[ $skipped -gt 0 ] && exit 77
exit 0
