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
        # 2 is a size the chapter does not support (listed, not a failure),
        # unless it is the destination of the results that was refused.
        2) if grep -q -- ': --csv: \|: --save: ' "$log"; then
               echo "FAILED   $label: $(tail -n 1 "$log")"; failed=1
           else
               echo "refused  $label: $(tail -n 1 "$log")"
           fi ;;
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
    bench_flags=--only-new
    # A chapter may set its own sizes (and bench flags) in tests/sizes-chapterN.sh.
    if [ -f "tests/sizes-chapter$chapter.sh" ]; then
        VERIFY_SIZES=("${verify_sizes[@]}"); BENCH_SIZES=("${bench_sizes[@]}")
        SANITIZE_SIZE=$small; SANITIZE_MORE=(); BENCH_FLAGS=$bench_flags
        . "tests/sizes-chapter$chapter.sh"
        verify_sizes=("${VERIFY_SIZES[@]}"); bench_sizes=("${BENCH_SIZES[@]}")
        small=$SANITIZE_SIZE; bench_flags=$BENCH_FLAGS
        sanitize_more=("${SANITIZE_MORE[@]}")
    else
        sanitize_more=()
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
            run $program $size $bench_flags --reps "${BENCH_REPS:-30}" --csv "$DATA/$(problem_of "$chapter").csv"
            [ $? -eq 77 ] && break
        done ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; exit 1; }
        # The small size, then any a chapter adds (flags and size, one string each).
        for arguments in "$small" "${sanitize_more[@]}"; do
            for tool in memcheck racecheck; do
                label="chapter$chapter $tool $arguments"
                run compute-sanitizer --tool $tool --error-exitcode 1 $program $arguments --check-only
                [ $? -eq 77 ] && break 2
            done
        done ;;
    profile)
        # Nsight Compute over the kernels chapter N introduces (the program's
        # --only-new; KERNEL=NAME picks one kernel of the program instead),
        # one launch each (--check-only), at the program's default size
        # unless PROFILE_SIZE="B=.. T=.." says otherwise. The clocks are left
        # as the card runs them (--clock-control none). Prints one line per
        # kernel: time, executed FLOP/s, how busy the FMA pipe and the SM were,
        # DRAM and L2 traffic, occupancy, registers, shared-memory bank
        # conflicts. The full report is kept in build/profile-chapterN.ncu-rep.
        command -v ncu >/dev/null || { echo "ncu (Nsight Compute) not found"; exit 1; }
        case $chapter in # the chapter's kernel functions, for ncu's own filter
            2) pattern=naive ;; 3) pattern=registers ;; 4) pattern=vectorized ;; 5) pattern=shared ;;
            *) pattern= ;;
        esac
        if [ -n "${KERNEL:-}" ]; then select=(--kernel "$KERNEL"); else select=(--only-new); fi
        report=build/profile-chapter$chapter
        mkdir -p build
        metrics=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
        metrics+=,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
        metrics+=,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
        metrics+=,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
        metrics+=,dram__bytes_read.sum,dram__bytes_write.sum
        metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum
        metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
        metrics+=,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread
        metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
        metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
        optional=sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
        profile_with() {
            ncu --clock-control none ${pattern:+--kernel-name "regex:^$pattern"} --metrics "$1" \
                -f -o "$report" $program $PROFILE_SIZE "${select[@]}" --check-only
        }
        label="chapter$chapter ncu"; failed_before=$failed
        run profile_with "$metrics,$optional"
        status=$?
        if [ $status -ne 0 ] && [ $status -ne 77 ] && [ $status -ne 2 ] && grep -qi metric "$log"; then
            label="chapter$chapter ncu (without $optional)"; failed=$failed_before
            run profile_with "$metrics"; status=$?
        fi
        [ $status -ne 0 ] && continue
        ncu -i "$report.ncu-rep" --csv --page raw --print-units base > "$report.csv" 2>/dev/null ||
            ncu -i "$report.ncu-rep" --csv --page raw > "$report.csv" || { failed=1; continue; }
        if ! command -v python3 >/dev/null; then cat "$report.csv"; continue; fi
        python3 - "$report.csv" <<'EOF' || failed=1
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
start = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
header, units = rows[start], rows[start + 1]
scale = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "ns": 1e-9,
         "us": 1e-6, "ms": 1e-3, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6,
         "Gbyte": 1e9, "Tbyte": 1e12, "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9}
def value(row, name, default=float("nan")):
    if name not in header:
        return default
    i = header.index(name)
    try:
        return float(row[i].replace(",", "")) * scale.get(units[i], 1.0)
    except ValueError:
        return default
print("%-24s %8s %9s %6s %6s %8s %6s %7s %11s %5s %13s" % (
    "kernel", "time ms", "GFLOP/s", "FMA %", "SM %", "DRAM GB/s", "DRAM %", "L2 GB",
    "occupancy %", "regs", "bank confl."))
for row in rows[start + 1:]:
    if len(row) != len(header) or not row[header.index("ID")].strip().isdigit():
        continue
    name = row[header.index("Kernel Name")].split("(")[0].replace("void ", "").strip()
    seconds = value(row, "gpu__time_duration.sum")
    flops = (2 * value(row, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 0)
             + value(row, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0)
             + value(row, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0))
    dram = value(row, "dram__bytes_read.sum", 0) + value(row, "dram__bytes_write.sum", 0)
    print("%-24s %8.4f %9.0f %6.1f %6.1f %8.0f %6.1f %7.3f %5.1f / %3.0f %5.0f %6.0f/%-6.0f" % (
        name[:24], seconds * 1e3, flops / seconds / 1e9,
        value(row, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
        value(row, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        dram / seconds / 1e9, value(row, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        value(row, "lts__t_bytes.sum") / 1e9,
        value(row, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        value(row, "sm__maximum_warps_per_active_cycle_pct"),
        value(row, "launch__registers_per_thread"),
        value(row, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        value(row, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")))
print("GFLOP/s: executed FP32 operations (FFMA counted twice) over the kernel's time;")
print("occupancy: achieved / theoretical warps per SM; bank confl.: extra wavefronts, loads/stores.")
EOF
        ;;
    *) echo "usage: $0 verify|bench|sanitize|profile CHAPTER..."; exit 2 ;;
    esac
done
[ $failed -ne 0 ] && exit 1
[ $skipped -ne 0 ] && exit 77
exit 0
