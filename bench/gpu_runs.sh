#!/usr/bin/env bash
# bench/gpu_runs.sh MODE CHAPTER... - the GPU runs behind make verify, bench,
# sanitize and profile. Each chapter program checks (and times) all the
# kernels it races; this script only chooses the programs (`make programs`:
# a chapter's own, and its tried variants' where it has some) and the sizes
# (bench/sizes.sh).
#
#   verify    every program of each chapter at its sizes, --check-only
#   bench     every program's kernels at the benchmark sizes, rows appended
#             to plots/data/<problem>.csv, the card's facts (what the book
#             derives its peaks from) to plots/data/cards/cards.csv
#   sanitize  compute-sanitizer memcheck, racecheck and synccheck at a small size
#   profile   Nsight Compute summary of one chapter's own kernels
#   nsight    the Nsight Compute readings the book quotes (plots/nsight.list),
#             rows appended to plots/data/nsight/nsight.csv (no chapters)
#   torch     PyTorch on the inputs chapter 7's program saves, at the sizes
#             of MSA_TORCH and both bench masks (bench/torch_race.py);
#             rows appended to plots/data/msa.csv; said and skipped where
#             torch does not import (no chapter arguments)
#
# Exit status: 0 all passed, 1 something failed, 77 no GPU here.
cd "$(dirname "$0")/.." || exit 2
mode=$1; shift
DATA=${DATA:-plots/data}
. bench/sizes.sh

# name problem chapter kind ... per program (tools/generate.c)
programs=$(make -s --no-print-directory programs) || { echo "gpu_runs.sh: make programs failed"; exit 2; }

failed=0 skipped=0
run() { # run LABEL COMMAND...: prints one line per run
    "$@" > "$log" 2>&1 < /dev/null
    local status=$?
    case $status in
        0) # how many kernels were checked, and why the card skipped the others
           local checked skipped_kernels
           checked=$(grep -c '^check ' "$log"); skipped_kernels=$(grep -c '^skip ' "$log")
           if [ "$skipped_kernels" -gt 0 ]; then
               echo "ok       $label ($checked checked, $skipped_kernels skipped)"
           else
               echo "ok       $label ($checked checked)"
           fi
           grep '^skip ' "$log" | sed 's/^skip  */         skipped /' ;;
        77) echo "skipped  $label: $(grep -m1 SKIPPED "$log")"; skipped=1 ;;
        # 2 is a size the chapter does not support (listed, not a failure),
        # unless it is the destination of the results that was refused.
        2) if grep -q -- ': --csv: \|: --save: \|: --card: ' "$log"; then
               echo "FAILED   $label: $(tail -n 1 "$log")"; failed=1
           else
               echo "refused  $label: $(tail -n 1 "$log")"
           fi ;;
        *) echo "FAILED   $label (exit $status)"; tail -n 20 "$log"; failed=1 ;;
    esac
    return $status
}
# After an exit of 77: whether it was for want of a GPU (then the program's
# other sizes are skipped too), not a card that runs none of its kernels.
no_gpu() { grep -q 'no usable CUDA GPU' "$log"; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if [ "$mode" = nsight ]; then
    command -v ncu >/dev/null || { echo "ncu (Nsight Compute) not found"; exit 1; }
    mkdir -p "$DATA/nsight" build
    while read -r program kernel shape; do
        case $program in ''|'#'*) continue ;; esac
        report=build/nsight-$program-${kernel//+/_}
        label="$program $kernel $shape ncu"
        run ncu --clock-control none --metrics "$(python3 bench/nsight_rows.py --metrics)" \
            -f -o "$report" ${BUILD:-build}/$program $shape --kernel "$kernel" --check-only \
            || continue
        ncu -i "$report.ncu-rep" --csv --page raw --print-units base > "$report.csv" &&
            python3 bench/nsight_rows.py "$report.csv" "$kernel" "$shape" \
                "${WORKBOOK_COMMIT:-unknown}" "$DATA/nsight/nsight.csv" ||
            { echo "FAILED   $label: its readings"; failed=1; }
    done < plots/nsight.list
    [ $failed -ne 0 ] && exit 1
    exit 0
fi

if [ "$mode" = torch ]; then
    python=${PYTHON:-python3}
    if ! "$python" -c 'import torch, numpy' >/dev/null 2>&1; then
        echo "skipped  torch: $python cannot import torch and numpy here; no PyTorch rows"
        exit 0
    fi
    saved=${TORCH_DIR:-build/torch}
    mkdir -p "$saved"
    for size in "${MSA_TORCH[@]}"; do
        dirs=()
        for mask in $MSA_BENCH_MASKS; do
            dir=$saved/$(printf '%s' "$size mask=$mask" | tr ' =' '_-')
            rm -rf "$dir"
            label="save $size mask=$mask"
            run build/chapter7 $size mask=$mask --kernel fused-tiled --check-only --save "$dir" &&
                dirs+=("$dir")
        done
        [ ${#dirs[@]} -gt 0 ] || continue
        label="torch $size"
        run "$python" bench/torch_race.py --reps "${BENCH_REPS:-30}" --csv "$DATA/msa.csv" "${dirs[@]}"
        grep -E "^torch-|^check" "$log"
    done
    [ $failed -ne 0 ] && exit 1
    exit 0
fi

for chapter in "$@"; do
  while read -r name problem program_chapter kind _; do
    [ "$program_chapter" = "$chapter" ] || continue
    [ "$kind" = chapter ] || [ "$kind" = tried ] || continue
    program=${BUILD:-build}/$name
    case $mode in
    verify)
        while IFS= read -r size; do
            label="$name $size"; run $program $size --check-only
            [ $? -eq 77 ] && no_gpu && break
        done < <(sizes_of verify "$problem" "$chapter") ;;
    bench)
        flags=$(bench_flags_of "$problem" "$chapter")
        while IFS= read -r size; do
            label="$name $size"
            [ ! -d "$DATA" ] || mkdir -p "$DATA/cards" # never the results' folder itself
            run $program $size $flags --reps "${BENCH_REPS:-30}" --csv "$DATA/$problem.csv" \
                --card "$DATA/cards/cards.csv"
            [ $? -eq 77 ] && no_gpu && break
        done < <(sizes_of bench "$problem" "$chapter") ;;
    sanitize)
        command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; exit 1; }
        while IFS= read -r arguments; do
            for tool in memcheck racecheck synccheck; do
                label="$name $tool $arguments"
                run compute-sanitizer --tool $tool --error-exitcode 1 $program $arguments --check-only
                [ $? -eq 77 ] && break 3
            done
        done < <(sizes_of sanitize "$problem" "$chapter") ;;
    profile)
        [ "$kind" = chapter ] || continue
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
        report=build/profile-$name
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
  done <<< "$programs"
done
[ $failed -ne 0 ] && exit 1
[ $skipped -ne 0 ] && exit 77
exit 0
