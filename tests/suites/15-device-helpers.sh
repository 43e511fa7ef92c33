# tests/suites/15-device-helpers.sh - the device helpers of common/ (async
# copies, warp reductions, TF32 operands and mma.sync, the shared-memory
# opt-in, the copy engine) on the GPU, one check each (tests/test_device.cu);
# skipped without a GPU, the copy engine's without Hopper. Then the layout of
# the repository the build relies on, and every file its text names.

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
# Every mutant applies exactly where it was written: no offset, no fuzz (a
# patch that drifted could land on a line that no longer means what its
# description says).
for patch in chapters/*/mutant*.patch; do
    chapter=$(basename "$(dirname "$patch")")
    name="$chapter/$(basename "$patch")"
    # (the whole chapters/ folder: a patch may break an earlier chapter's header)
    log=$(rm -rf build/mutant-check && mkdir -p build/mutant-check &&
          cp -r chapters build/mutant-check/ &&
          patch --dry-run --forward --batch -F0 -p1 -d build/mutant-check < "$patch" 2>&1)
    status=$?
    if [ $status -ne 0 ]; then fail "$name applies to a copy" "exit $status: $log"
    elif printf '%s\n' "$log" | grep -qiE 'offset|fuzz'; then
        fail "$name applies at zero offset and no fuzz" "$log"
    else pass "$name applies at zero offset and no fuzz"; fi
done
# Every file the reader's text names is there (tests/book/paths_named.sh):
# the chapters, exercises, solutions, the book's Markdown, the README.
expect_status "every file the chapters, exercises, solutions and READMEs name is there" 0 \
    tests/book/paths_named.sh
mkdir -p "$LOGS/paths" && printf '/* read common/gpu_peaks.h and tests/sizes.sh; chapters/NN-slug/slug.cu is a pattern */\n' \
    > "$LOGS/paths/named.cu"
expect_output "... a file named that is not there is caught, with its line (patterns are not)" \
    "named.cu:1: common/gpu_peaks.h is not there" tests/book/paths_named.sh "$LOGS/paths/named.cu"
