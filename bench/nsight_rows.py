#!/usr/bin/env python3
"""bench/nsight_rows.py - the Nsight Compute readings the book quotes, as rows.

  nsight_rows.py --metrics
      the metrics to ask ncu for (--metrics), comma-separated
  nsight_rows.py REPORT.csv KERNEL SHAPE COMMIT OUT.csv
      reads `ncu -i REPORT --csv --page raw --print-units base`, takes the
      longest launch in it (the contender's kernel: a run with --kernel NAME
      --check-only launches that kernel once, and maybe short helpers), and
      appends one row per reading to OUT.csv (the header first if OUT.csv is
      new or empty):
        kernel,shape,function,reading,value,gpu,commit,date
      the readings: time_ms, dram_tbs (bytes read and written over the time),
      dram_pct (DRAM throughput, % of peak), issue_pct (cycles a scheduler
      issued, % of active cycles), eligible_warps (warps ready to issue per
      scheduler per active cycle), tensor_pct (mma.sync tensor pipe busy, % of
      active cycles), l1_pct (the L1 and shared-memory unit, % of peak),
      instructions_m (warp instructions executed, millions).
Exit status 2 on a report it cannot read (its reason on stderr).
"""
import csv
import datetime
import os
import sys

READINGS = [  # (reading, metric, scale)
    ("time_ms", "gpu__time_duration.sum", 1e3),  # seconds to ms
    ("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("issue_pct", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
    ("eligible_warps", "smsp__warps_eligible.avg.per_cycle_active", 1),
    ("tensor_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 1),
    ("l1_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active", 1),
    ("instructions_m", "smsp__inst_executed.sum", 1e-6),  # millions
]
BYTES = ["dram__bytes_read.sum", "dram__bytes_write.sum"]
NAME = "device__attribute_display_name"
SCALE = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "ns": 1e-9,
         "us": 1e-6, "ms": 1e-3, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6,
         "Gbyte": 1e9, "Tbyte": 1e12, "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9}
HEADER = "kernel,shape,function,reading,value,gpu,commit,date"


def fail(why):
    print("nsight_rows.py: " + why, file=sys.stderr)
    sys.exit(2)


def main(argv):
    if argv == ["--metrics"]:
        print(",".join([m for _, m, _ in READINGS] + BYTES + [NAME]))
        return
    if len(argv) != 5:
        fail("usage: nsight_rows.py --metrics | REPORT.csv KERNEL SHAPE COMMIT OUT.csv")
    report, kernel, shape, commit, out = argv
    with open(report, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if start is None or start + 2 > len(rows):
        fail(report + ": no kernel in the report")
    header, units = rows[start], rows[start + 1]
    launches = [r for r in rows[start + 2:] if len(r) == len(header)]
    for metric in [m for _, m, _ in READINGS] + BYTES + [NAME]:
        if metric not in header:
            fail("%s: no %s in the report" % (report, metric))

    def number(row, metric):
        """The value in seconds or bytes for a time or an amount of memory."""
        i = header.index(metric)
        try:
            return float(row[i].replace(",", "")) * SCALE.get(units[i].strip(), 1.0)
        except ValueError:
            fail("%s: %s is %r, not a number" % (report, metric, row[header.index(metric)]))

    if not launches:
        fail(report + ": no launch in the report")
    launch = max(launches, key=lambda r: number(r, "gpu__time_duration.sum"))
    seconds = number(launch, "gpu__time_duration.sum")
    if seconds <= 0:
        fail(report + ": a launch of no time")
    function = launch[header.index("Kernel Name")].split("(")[0].replace("void ", "").strip()
    function = function.split("<")[0]
    gpu = launch[header.index(NAME)].strip()
    if not gpu or any(c in gpu + function for c in ',"\n'):
        fail(report + ": a device or kernel name that would need quoting")
    values = [(name, number(launch, metric) * scale) for name, metric, scale in READINGS]
    values.insert(1, ("dram_tbs", sum(number(launch, m) for m in BYTES) / seconds / 1e12))
    today = datetime.date.today().isoformat()
    new = not os.path.exists(out) or os.path.getsize(out) == 0
    with open(out, "a") as f:
        if new:
            f.write(HEADER + "\n")
        for name, value in values:
            f.write("%s,%s,%s,%s,%.4g,%s,%s,%s\n" % (kernel, shape, function, name, value, gpu,
                                                     commit, today))


if __name__ == "__main__":
    main(sys.argv[1:])
