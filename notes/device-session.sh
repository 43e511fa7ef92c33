#!/usr/bin/env bash
# notes/device-session.sh COMMIT - one call on the lent H200 that runs what
# CI cannot: make test with the GPU checks for real, make sanitize, and the
# benchmarks of the chapters named in BENCH_CHAPTERS (default: 7). Logs and
# CSV rows land in $OUT; each step has its own time limit so that one slow
# step cannot eat the others. The H200 machine has no package registry, so
# cmocka travels as Debian packages; before the call, here:
#
#   mkdir -p .debs && (cd .debs && apt-get download libcmocka0 libcmocka-dev)
#   echo /.debs/ >> .git/info/exclude
#
# and call the device tool with carry [".debs"] and the command
#   bash notes/device-session.sh $(git rev-parse --short HEAD)
export WORKBOOK_COMMIT=${1:-unknown}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
for deb in .debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
nvidia-smi -L
make -j16 all > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
say built
timeout ${TEST_LIMIT:-300} make test > "$OUT/test.log" 2>&1
say "make test exit $?"
grep -E "^FAIL|^SKIP|passed, .* failed" "$OUT/test.log"
timeout ${SANITIZE_LIMIT:-120} make sanitize > "$OUT/sanitize.log" 2>&1
say "make sanitize exit $?"
grep -vE "^ok" "$OUT/sanitize.log" | tail -20
for chapter in ${BENCH_CHAPTERS:-7}; do
    DATA=$OUT timeout ${BENCH_LIMIT:-150} tests/gpu_runs.sh bench "$chapter" > "$OUT/bench$chapter.log" 2>&1
    say "bench $chapter exit $?"
    grep -vE "^(ok|check)" "$OUT/bench$chapter.log" | tail -20
done
