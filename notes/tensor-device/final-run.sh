#!/usr/bin/env bash
# notes/tensor-device/final-run.sh COMMIT - the closing device call of the
# session that wrote chapter 8: make test with every GPU check for real,
# memcheck and racecheck of chapter 8, and chapter 8's bench (rows to $OUT).
export COMMIT=${1:-unknown} WORKBOOK_COMMIT=${1:-unknown}
cd "$(dirname "$0")/../.." || exit 2
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
for deb in .debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
make -j16 all > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
say built
timeout 330 make test > "$OUT/test.log" 2>&1
say "make test exit $?"
grep -E "^FAIL|^SKIP|passed, .* failed" "$OUT/test.log"
timeout 60 tests/gpu_runs.sh sanitize 8 > "$OUT/sanitize8.log" 2>&1
say "sanitize 8 exit $?"
cat "$OUT/sanitize8.log"
DATA=$OUT timeout 150 tests/gpu_runs.sh bench 8 > "$OUT/bench8.log" 2>&1
say "bench 8 exit $?"
grep -vE "^(ok|check)" "$OUT/bench8.log" | tail -30
