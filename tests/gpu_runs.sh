#!/usr/bin/env bash
# tests/gpu_runs.sh MODE CHAPTER... - the GPU runs behind make verify, bench,
# sanitize and profile. Each chapter program checks (and times) all the
# kernels it races; this script only chooses the sizes.
#
#   verify    every chapter at its sizes, --check-only
#   bench     every chapter's kernels at the benchmark sizes, rows appended
#             to plots/data/<problem>.csv
#   sanitize  compute-sanitizer memcheck and racecheck at a small size
#   profile   Nsight Compute summary of one chapter's own kernels
#
# Exit status: 0 all passed, 1 something failed, 77 no GPU here.
cd "$(dirname "$0")/.." || exit 2
mode=$1; shift
DATA=${DATA:-plots/data}

# Sizes, as the programs take them (KEY=VALUE).
TRIANGLE_DEFAULT="B=8 T=1024 C=768 NH=12"
TRIANGLE_VERIFY=("$TRIANGLE_DEFAULT" "B=1 T=128 C=64 NH=1" "B=2 T=256 C=512 NH=16"
                 "B=3 T=384 C=1536 NH=12" "B=2 T=2048 C=768 NH=12")
TRIANGLE_SWEEP_T="256 512 1024 2048 4096"
TRIANGLE_SMALL="B=1 T=256 C=128 NH=2"
# Chapters 6 and 7 (problem B) set their own sizes in tests/msa_sizes.sh.
MSA_VERIFY=("B=2 S=8 N=32 D=64 H=4")
MSA_BENCH=("B=2 S=8 N=32 D=64 H=4")
MSA_SMALL="B=1 S=4 N=4 D=32 H=2"
[ -f tests/msa_sizes.sh ] && . tests/msa_sizes.sh

problem_of() { case $1 in 6|7) echo msa ;; *) echo trimul ;; esac; }
program_of() { echo "build/chapter$1"; }

failed=0 skipped=0
run() { # run LABEL COMMAND...: prints one line per run
    "$@" > "$log" 2>&1
    local status=$?
    case $status in
        0) echo "ok       $label" ;;
        77) echo "skipped  $label: $(grep -m1 SKIPPED "$log")"; skipped=1 ;;
        2) echo "refused  $label: $(tail -n 1 "$log")" ;;
        *) echo "FAILED   $label (exit $status)"; tail -n 20 "$log"; failed=1 ;;
    esac
    return $status
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for chapter in "$@"; do
    program=$(program_of "$chapter")
    if [ "$(problem_of "$chapter")" = msa ]; then
        verify_sizes=("${MSA_VERIFY[@]}"); bench_sizes=("${MSA_BENCH[@]}"); small=$MSA_SMALL
    else
        verify_sizes=("${TRIANGLE_VERIFY[@]}"); small=$TRIANGLE_SMALL
        bench_sizes=(); for T in $TRIANGLE_SWEEP_T; do bench_sizes+=("B=8 T=$T C=768 NH=12"); done
    fi
    case $mode in
    verify)
        for size in "${verify_sizes[@]}"; do
            label="chapter$chapter $size"; run $program $size --check-only
            [ $? -eq 77 ] && break
        done ;;
    bench)
        # Each kernel is timed once per size, by the chapter that introduces it.
        for size in "${bench_sizes[@]}"; do
            label="chapter$chapter $size"
            run $program $size --only-new --csv "$DATA/$(problem_of "$chapter").csv"
            [ $? -eq 77 ] && break
        done ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; exit 1; }
        for tool in memcheck racecheck; do
            label="chapter$chapter $tool $small"
            run compute-sanitizer --tool $tool --error-exitcode 1 $program $small --check-only
            [ $? -eq 77 ] && break
        done ;;
    profile)
        command -v ncu >/dev/null || { echo "ncu (Nsight Compute) not found"; exit 1; }
        ncu --clock-control none --section SpeedOfLight --section Occupancy \
            --metrics smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum \
            $program --check-only ;;
    *) echo "usage: $0 verify|bench|sanitize|profile CHAPTER..."; exit 2 ;;
    esac
done
[ $failed -ne 0 ] && exit 1
[ $skipped -ne 0 ] && exit 77
exit 0
