#!/usr/bin/env bash
# notes/triangle-device/smem-probe.sh - is chapter 5's step 5 held back by the
# shared-memory data path? Nsight Compute sections and counters of step 5
# and of shared+wide (16 x 8 scores a thread) at the default size.
cd "$(dirname "$0")/../.." || exit 2
make -j16 build/chapter5 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
for kernel in shared+rows+interleaved shared+wide; do
    echo "======== $kernel"
    timeout 90 ncu --clock-control none -k regex:"shared_(rows_interleaved|wide)" \
        --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section InstructionStats \
        build/chapter5 --kernel $kernel --check-only 2>&1 | grep -vE "^==PROF==|^check|^ *$|----" | sed -n '1,200p'
    timeout 60 ncu --clock-control none -k regex:"shared_(rows_interleaved|wide)" \
        --metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_uniform.sum,smsp__inst_executed_pipe_adu.sum,smsp__inst_executed_pipe_cbu.sum \
        build/chapter5 --kernel $kernel --check-only 2>&1 | grep -E "^    [a-z]"
done
