# tests/lib.sh - the counting every test suite shares; sourced, not run.
#
# A test either passes, fails or is skipped (a GPU check on a machine with no
# GPU: its program exited 77). Every test's output goes to build/test-logs/;
# a failure prints the end of its log.

PASSED=${PASSED:-0}
FAILED=${FAILED:-0}
SKIPPED=${SKIPPED:-0}
LOGS=${LOGS:-build/test-logs}
mkdir -p "$LOGS"

# Each result's seconds since the one before it (or since its suite
# began), with its suite and name, go to $LOGS/times.tsv: run_tests.sh
# lists the slowest. The time between two results is the later test's,
# setup included.
TIMES=${TIMES:-$LOGS/times.tsv}
SUITE_NAME=${SUITE_NAME:-}
last_result_at=${EPOCHREALTIME/[.,]/}
record_time() {
    local now=${EPOCHREALTIME/[.,]/}
    local tenths=$(( (now - last_result_at) / 100000 ))
    printf '%d.%d\t%s\t%s\n' $((tenths / 10)) $((tenths % 10)) "$SUITE_NAME" "$1" >> "$TIMES"
    last_result_at=$now
}
pass() { PASSED=$((PASSED + 1)); record_time "$1"; echo "PASS  $1"; }
skip() { SKIPPED=$((SKIPPED + 1)); record_time "$1"; echo "SKIP  $1${2:+ ($2)}"; }
fail() {
    FAILED=$((FAILED + 1)); record_time "$1"
    echo "FAIL  $1${2:+ ($2)}"
    if [ -n "${3:-}" ] && [ -f "$3" ]; then tail -n 15 "$3" | sed 's/^/      | /'; fi
}

log_of() { echo "$LOGS/$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_').log"; }

# expect_status NAME STATUS COMMAND...: passes when COMMAND exits with STATUS.
expect_status() {
    local name=$1 want=$2; shift 2
    local log; log=$(log_of "$name")
    "$@" >"$log" 2>&1
    local got=$?
    if [ "$got" -eq "$want" ]; then pass "$name"; else fail "$name" "exit $got, expected $want" "$log"; fi
}

# gpu_expect NAME STATUS COMMAND...: as expect_status, but a program that
# exits 77 (no GPU) is counted as skipped, with the reason it printed.
gpu_expect() {
    local name=$1 want=$2; shift 2
    local log; log=$(log_of "$name")
    "$@" >"$log" 2>&1
    local got=$?
    if [ "$got" -eq 77 ]; then
        skip "$name" "$(grep -m1 SKIPPED "$log" | sed 's/^SKIPPED: //')"
    elif [ "$got" -eq "$want" ]; then
        pass "$name"
    else
        fail "$name" "exit $got, expected $want" "$log"
    fi
}

# expect_failure NAME PATTERN COMMAND...: COMMAND must fail, and print a
# line matching PATTERN (the file and line of what is wrong).
expect_failure() {
    local name=$1 pattern=$2; shift 2
    local log; log=$(log_of "$name")
    "$@" >"$log" 2>&1
    local status=$?
    if [ "$status" -eq 0 ]; then fail "$name" "it succeeded" "$log"
    elif ! grep -Eq -- "$pattern" "$log"; then fail "$name" "no line matches /$pattern/" "$log"
    else pass "$name"; fi
}

# expect_output NAME PATTERN COMMAND...: passes when COMMAND exits non-zero
# or zero as it likes but prints a line matching the extended regex PATTERN.
expect_output() {
    local name=$1 pattern=$2; shift 2
    local log; log=$(log_of "$name")
    "$@" >"$log" 2>&1
    if grep -Eq -- "$pattern" "$log"; then pass "$name"; else fail "$name" "no line matches /$pattern/" "$log"; fi
}

# expect_no_output NAME PATTERN COMMAND...: passes when COMMAND exits 0 and
# no line of its output matches PATTERN.
expect_no_output() {
    local name=$1 pattern=$2; shift 2
    local log; log=$(log_of "$name")
    if ! "$@" >"$log" 2>&1; then fail "$name" "exit status not 0" "$log"
    elif grep -Eq -- "$pattern" "$log"; then fail "$name" "a line matches /$pattern/" "$log"
    else pass "$name"; fi
}

# expect_refused_running_nothing NAME MARKER COMMAND...: passes when COMMAND
# exits non-zero and MARKER (a file a command smuggled into COMMAND's
# arguments would create) does not exist afterwards.
expect_refused_running_nothing() {
    local name=$1 marker=$2; shift 2
    local log; log=$(log_of "$name")
    rm -f "$marker"
    "$@" >"$log" 2>&1
    local got=$?
    if [ -e "$marker" ]; then
        fail "$name" "$marker was created: the argument ran as a command" "$log"
        rm -f "$marker"
    elif [ "$got" -eq 0 ]; then
        fail "$name" "exit 0, expected a refusal" "$log"
    else
        pass "$name"
    fi
}

# tool_missing NAME TOOL: 0 (and NAME counted) when TOOL is absent: on CI
# a failure, elsewhere a skip with the reason; 1 when TOOL is there.
tool_missing() {
    command -v "$2" >/dev/null 2>&1 && return 1
    if [ -n "${CI:-}" ]; then fail "$1" "$2 is not installed (make deps)"; else skip "$1" "$2 is not installed"; fi
    return 0
}

have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

# msa_write_npy FILE SHAPE COUNT [DESCR [FORTRAN [FILL]]]: a version 1.0 .npy
# file of COUNT floats, its header padded to 64 bytes as NumPy pads it. FILL
# is zero (the default) or one (float32 1.0, for a mask that keeps all).
msa_write_npy() {
    local file=$1 shape=$2 count=$3 descr=${4:-<f4} fortran=${5:-False} fill=${6:-zero}
    local dict="{'descr': '$descr', 'fortran_order': $fortran, 'shape': $shape, }"
    local total=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 ))
    local header=$(( total - 10 )) pad=$(( total - 10 - ${#dict} - 1 ))
    {
        printf '\223NUMPY\001\000'
        printf "\\$(printf %03o $((header & 255)))\\$(printf %03o $((header >> 8)))"
        printf '%s' "$dict"
        printf "%${pad}s" ''
        printf '\n'
        if [ "$fill" = one ]; then
            local i
            for ((i = 0; i < count; i++)); do printf '\000\000\200\077'; done
        else
            head -c $((count * 4)) /dev/zero
        fi
    } > "$file"
}
