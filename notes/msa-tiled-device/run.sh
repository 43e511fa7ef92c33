export WORKBOOK_COMMIT=$1
make -j16 build/chapter7 build/chapter7-mutant > $OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
DATA=$OUT timeout 150 tests/gpu_runs.sh bench 7 > $OUT/bench7.log 2>&1; echo "bench exit $?"
grep -vE "^(ok|check)" $OUT/bench7.log | tail -5
export LOGS=$OUT/logs; mkdir -p $LOGS
(. tests/lib.sh; . tests/suites/65-msa-tiled.sh; echo "$PASSED passed, $FAILED failed, $SKIPPED skipped") > $OUT/suite65.log 2>&1
tail -1 $OUT/suite65.log; grep -E "^(FAIL|SKIP)" $OUT/suite65.log
timeout 120 tests/gpu_runs.sh sanitize 7 > $OUT/sanitize7.log 2>&1; echo "sanitize exit $?"; grep -v "^ok" $OUT/sanitize7.log | tail
rm -rf $OUT/logs
