# tests/suites/15-device-helpers.sh - the device helpers of common/ (async
# copies, warp reductions, TF32 operands and mma.sync, the shared-memory
# opt-in, the copy engine) on the GPU, one check each (tests/test_device.cu);
# skipped without a GPU, the copy engine's without Hopper. Then the layout of
# the repository the build relies on.

device_log=$(log_of "device helpers")
build/tests/test_device > "$device_log" 2>&1
device_status=$?
if [ $device_status -eq 77 ]; then
    skip "device helpers of common/ on the GPU" "$(grep -m1 SKIPPED "$device_log" | sed 's/^SKIPPED: //')"
else
    while IFS= read -r line; do
        case $line in
            "ok "*" # SKIP "*) name=${line#ok * - }; skip "device: ${name%% # SKIP *}" "${line##* # SKIP }" ;;
            "ok "*) pass "device: ${line#ok * - }" ;;
            "not ok "*) fail "device: ${line#not ok * - }" "" "$device_log" ;;
        esac
    done < "$device_log"
    [ $device_status -eq 0 ] || grep -q "^not ok" "$device_log" ||
        fail "device helpers ran completely" "exit $device_status" "$device_log"
fi

# The chapters hold no mutant and no main(): mutants are patches, mains are
# generated from chapters/kernels.list.
expect_status "no WORKBOOK_MUTANT under chapters/" 1 grep -rq WORKBOOK_MUTANT chapters
expect_status "no main() in a chapter file" 1 grep -rqE '^int main\(' chapters
expect_status "no build guard in a chapter file" 1 grep -rq 'WORKBOOK_CHAPTER' chapters
for patch in chapters/*/mutant.patch; do
    chapter=$(basename "$(dirname "$patch")")
    expect_status "the mutant of $chapter applies cleanly to a copy" 0 sh -c \
        "rm -rf build/mutant-check && mkdir -p build/mutant-check/chapters/$chapter &&
         cp chapters/$chapter/*.cu build/mutant-check/chapters/$chapter/ &&
         patch --dry-run --forward --batch -F0 -p1 -d build/mutant-check < $patch"
done
# every symbol of the list is a contender some program links (the link would
# fail otherwise); every chapter's line count stays within a chapter's length
for file in $(ls chapters/*/*.cu chapters/*/tried/*.cu 2>/dev/null); do
    lines=$(wc -l < "$file")
    if [ "$lines" -le 800 ]; then pass "$file is at most 800 lines ($lines)"
    else fail "$file is at most 800 lines" "$lines lines"; fi
done
