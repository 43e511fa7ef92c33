# tests/suites/10-host-unit.sh - the cmocka programs (build/tests/test_*),
# one pass or fail per unit test, read from their TAP output.

for program in build/tests/test_*; do
    [ -x "$program" ] || continue
    name=$(basename "$program")
    [ -f "tests/$name.c" ] || [ -f "tests/$name.cpp" ] || continue # tests/test_*.cu: GPU tests (suite 15)
    log=$(log_of "$name")
    CMOCKA_MESSAGE_OUTPUT=TAP "$program" >"$log" 2>&1
    status=$?
    planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
    seen=0
    while IFS= read -r line; do
        case $line in
            "ok "*) pass "$name: ${line#ok * - }"; seen=$((seen + 1)) ;;
            "not ok "*) fail "$name: ${line#not ok * - }" "" "$log"; seen=$((seen + 1)) ;;
        esac
    done < "$log"
    if [ -z "$planned" ] || [ "$seen" -ne "$planned" ] || { [ "$status" -ne 0 ] && [ "$FAILED" -eq 0 ]; }; then
        fail "$name ran completely" "planned ${planned:-?}, reported $seen, exit $status" "$log"
    fi
done
