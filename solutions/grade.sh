#!/usr/bin/env bash
# solutions/grade.sh - the grader behind `make grade` (solutions/README.md).
#
#   solutions/grade.sh                    grade every NN-name.cu of exercises/
#   solutions/grade.sh 02-triangle-grid   grade one (the .cu and a path may be given too)
#   GRADE_DIR=submissions/alice solutions/grade.sh    grade a student's folder
#   GRADE_DIR=solutions solutions/grade.sh            the solutions, as a student
#                                         would hand them in (generate.sh --solved)
#
# A submission is code the grader compiles and runs, so it runs in a
# sandbox (solutions/sandbox.sh): each file is copied, with a copy of the
# handout (the tracked files a student gets, no solution among them), into
# a scratch folder of its own, and built and run there with no network, no
# write access but to that folder, nothing of the instructor's tree in
# sight, as an unprivileged user where the grader is root. Nothing is
# reused from an earlier grading but the handout's own library, kept under
# a hash of the handout's content (and seeded from the instructor's own
# build where that is up to date), and the builds of a file with the same
# bytes and name graded before (the cache, below).
#
# The exercises of a folder are graded side by side, GRADE_JOBS at a time;
# what each prints is kept and printed in the folder's order, so that the
# output, the table and the exit status are those of a serial run.
#
# Each exercise is graded on what it asks (solutions/checks.list), in this order,
# stopping at the first check that fails:
#
#   1. the file is the exercise outside its TODOs, token for token, and its
#      own code uses nothing a kernel exercise never needs (tokens.awk);
#   2. it compiles (else "does not compile", with the first error), within
#      GRADE_COMPILE_TIMEOUT seconds, and defines none of the library's
#      symbols (nm: it may not replace compare_results and the like);
#   3. host: solutions/host/NAME.cu runs the exercise's __host__ __device__
#      functions on the CPU (indices against the referee's, bank conflicts
#      counted from its own address functions, an emulated cuBLAS call, a
#      prediction's counts and floors), at fixed sizes and at sizes drawn
#      from the grading's seed; ptxas says whether a kernel uses local
#      memory; the PTX (and, where cuobjdump is installed, the machine code)
#      shows the width of its loads and stores;
#   4. GPU: compute-sanitizer (memcheck, racecheck, synccheck) at a small
#      size, the values against the CPU referee at fixed sizes and at sizes
#      drawn afresh, within the exercise's own tolerance (grade-checks.sh), the
#      adversarial inputs (--logits 90, --input-scale), Nsight Compute's
#      counters (bank conflicts), masked scores left unwritten, and for a
#      "predict, then measure" exercise the measured time against the
#      prediction for the card at hand.
#
# The verdict is never the submission's. Every check that runs the
# student's code runs it twice over (run_judged): the probe, the
# submission's program, in the sandbox, only answers: its host check
# records the results of each call of a student function, its GPU run
# writes the kernel's output, both to a pipe the grader owns; the referee,
# the same check built from the exercise as handed out (no student code in
# it), in a sandbox of its own, replays those answers and judges them with
# its own code. No result path or nonce is on a student's command line or
# in its environment; an exit status alone never passes. Whether there is
# a GPU is the grader's own look (nvidia-smi, each exercise afresh); a
# program that exits 77 (no GPU) where there is one fails.
#
# Then one table: exercise, result, what ran on the host and on the GPU, and
# the reason (the property that failed, or what was checked); everything a
# submission printed is escaped before it reaches it. A tool that is missing
# (compute-sanitizer, ncu, cuobjdump) is named in the reason, never passed in
# silence.
#
# Exit status: 0 every exercise passed; 1 one failed (compile error, bad
# name and missing exercise included); 2 bad usage, or no sandbox here; 77
# nothing failed but the GPU part could not run here (no GPU).
#
# Environment:
#   GRADE_DIR       the folder graded (exercises); any name, spaces included
#   SEED            the grading's seed (fresh each time, printed: SEED=N repeats
#                   the drawn sizes and inputs of every exercise)
#   GRADE_TIMEOUT   seconds per run (120; a sanitizer, ncu or timed run gets four
#                   times that); GRADE_COMPILE_TIMEOUT seconds per build, and per
#                   run of nm or cuobjdump over what was built (600)
#   GRADE_EVERY     yes: grade every exercise of the handout, one missing from
#                   the folder failing (make grade-class sets it)
#   GRADE_GRADESCOPE, GRADE_PRAIRIELEARN  a file to write the results to as
#                   that autograder reads them (solutions/README.md)
#   GRADE_CSV       a file to append student,exercise,result,property rows to;
#                   GRADE_STUDENT the student's name in them (the folder's)
#   GRADE_COMPARE   no: skip step 1, for the instructor's fixtures that change
#                   a file outside its TODOs on purpose; never for students
#   GRADE_NVIDIA_SMI  the program asked whether there is a GPU (nvidia-smi)
#   GRADE_LOCK      the file GPU runs lock (BUILD/grade/gpu.lock): runs share
#                   the card, a timing or ncu run has it alone
#   GRADE_BWRAP, GRADE_SANDBOX_USER   the sandbox's bwrap and user (sandbox.sh)
#   GRADE_MEMORY_MB  address space of a compile or a host check (4096 MiB);
#                   GRADE_FILE_MB, GRADE_PROCESSES the sandbox's file size and
#                   processes and threads (256 MiB, 4096: sandbox.sh); GRADE_RUN_MB and
#                   GRADE_TMP_MB the run folder and /tmp a run may fill (256
#                   MiB each, in memory); GRADE_SOURCE_KB the largest file
#                   the comparison reads (256 KiB)
#   COMPUTE_SANITIZER, NCU, CUOBJDUMP   the tools, found on the PATH or beside
#                   nvcc; "none" grades as if one were missing
#   GRADE_JOBS      exercises graded at a time (the number of CPUs)
#   GRADE_KEEP      1: keep the scratch folder (BUILD/grade/runs/grade.*) to look into
#   BUILD (build), MAKE (make), ARCH, DEVICE_CODE, NVCC   as for make
# Logs of every build and run: BUILD/grade-logs/FOLDER/ (FOLDER with every
# character but letters, digits, '.', '_' and '-' written '_', and a hash of
# the exact name after it where that changed the name).
# The cache of builds: BUILD/grade/base-HASH/cache/, one folder per file,
# name and target (program with its object, PTX and ptxas report; host
# check), under the hash of the handout, the file's bytes, its name and the
# target; only successful builds, written by the grader after the build in
# the sandbox, never by the sandbox. A new handout starts a new one; `rm -rf
# BUILD/grade` clears it with the library.
set -u
cd "$(dirname "$0")/.." || exit 2
# Nothing the grader starts reads the terminal, or the list of checks the
# loop below reads: a submission's getchar() gets end-of-file.
exec < /dev/null

folder=${GRADE_DIR:-exercises}
[ "$folder" = / ] || folder=${folder%/}
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
timeout_s=${GRADE_TIMEOUT:-120}
compile_timeout_s=${GRADE_COMPILE_TIMEOUT:-600}
# The address space of a compile or a host check, in MiB (solutions/sandbox.sh
# --memory; GPU runs have none, the CUDA driver reserves terabytes).
memory_mb=${GRADE_MEMORY_MB:-4096}
compare=${GRADE_COMPARE:-yes}
every=${GRADE_EVERY:-no}
csv=${GRADE_CSV:-}
student=${GRADE_STUDENT:-$folder}
smi=${GRADE_NVIDIA_SMI:-nvidia-smi}
work=$BUILD/grade
jobs=${GRADE_JOBS:-$(nproc 2>/dev/null || echo 1)}
lock=${GRADE_LOCK:-$work/gpu.lock}
sandbox=$PWD/solutions/sandbox.sh
sandbox_user=$("$sandbox" --user)   # who owns the folders a submission writes

# ---------------------------------------------------------------- text

# clean, csv_field, safe_file_name, handout_exercises: solutions/gradebook.sh.
. "$(dirname "$0")/gradebook.sh"
say() { printf '%s\n' "$(clean "$*")"; }

# Lines from stdin joined with SEPARATOR.
joined() {
    awk -v separator="$1" 'NR > 1 { printf "%s", separator } { printf "%s", $0 } END { print "" }'
}

# A name is NN-name (a fixture NN-name--what): letters, digits, '_' and '-'.
valid_name() { [[ $1 =~ ^[0-9][0-9]-[A-Za-z0-9_-]+$ ]]; }

# ---------------------------------------------------------------- what is checked

# The grading's seed (each exercise draws from it and its name: SEED=N
# EX=NAME repeats what a whole grading drew for NAME); the table of checks,
# the draws and the tolerances (solutions/grade-checks.sh).
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
case $seed in ''|*[!0-9]*) echo "grade: SEED='$(clean "$seed")' is not a whole number" >&2; exit 2 ;; esac
case $jobs in ''|0|*[!0-9]*) echo "grade: GRADE_JOBS='$(clean "$jobs")' is not a number of jobs" >&2; exit 2 ;; esac
. "$(dirname "$0")/grade-checks.sh"

# ---------------------------------------------------------------- tools

# A CUDA tool: the one the variable names (none: treat it as missing), or
# the one on the PATH, or the one beside nvcc.
tool() {
    local name=$1 chosen=$2
    if [ "$chosen" = none ]; then return 0; fi
    if [ -n "$chosen" ]; then echo "$chosen"; return 0; fi
    command -v "$name" 2>/dev/null && return 0
    local nvcc; nvcc=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
    [ -x "$(dirname "$nvcc")/$name" ] && echo "$(dirname "$nvcc")/$name"
}
sanitizer=$(tool compute-sanitizer "${COMPUTE_SANITIZER:-}")
ncu=$(tool ncu "${NCU:-}") cuobjdump=$(tool cuobjdump "${CUOBJDUMP:-}")

# The GPU, as the grader sees it: the first card nvidia-smi lists, or "".
card_here() {
    "$smi" --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
        LC_ALL=C tr -c 'A-Za-z0-9 ._()-' ' ' | sed 's/ *$//'
}

# ---------------------------------------------------------------- the parts

# The builds (the handout, its library, the cache, the referee's), the runs
# in the sandbox, and the grading of one exercise, each a file of its own.
. "$(dirname "$0")/grade-builds.sh"
. "$(dirname "$0")/grade-runs.sh"
. "$(dirname "$0")/grade-exercise.sh"

# ---------------------------------------------------------------- the folder

if [ ! -d "$folder" ]; then
    echo "grade: GRADE_DIR='$(clean "$folder")' is not a folder" >&2
    exit 2
fi
if ! "$sandbox" --check >/dev/null; then
    exit 2   # sandbox.sh said why
fi
prepare_base || exit 2
mapfile -t handout_names < <(handout_exercises "$tree")

# Which exercises: the arguments; or every exercise of the handout
# (GRADE_EVERY); or every .cu of the folder. A name that is not NN-name is
# refused, never used.
names=() refused=()
if [ $# -gt 0 ]; then
    for argument in "$@"; do
        name=${argument##*/} name=${name%.cu}
        if ! valid_name "$name"; then
            echo "grade: '$(clean "$argument")' is not an exercise's name (NN-name); the" \
                 "exercises are: ${handout_names[*]}" >&2
            exit 2
        fi
        if [ "$every" != yes ] && [ ! -e "$folder/$name.cu" ]; then
            echo "grade: no $(clean "$folder")/$name.cu; the exercises are: ${handout_names[*]}" >&2
            exit 2
        fi
        names+=("$name")
    done
elif [ "$every" = yes ]; then
    names=("${handout_names[@]}")
else
    for source in "$folder"/*.cu; do
        [ -e "$source" ] || [ -L "$source" ] || continue
        name=$(basename "$source" .cu)
        if valid_name "$name"; then names+=("$name"); else refused+=("$(clean "$(basename "$source")")"); fi
    done
    if [ ${#names[@]} -eq 0 ] && [ ${#refused[@]} -eq 0 ]; then
        echo "grade: no exercises (NN-name.cu) in $(clean "$folder")/" >&2
        exit 2
    fi
fi

# The logs' folder: the folder's name made safe (safe_file_name: a hash of
# the exact name where that changed it or it is long), so that folders
# whose safe names are alike (`p q`, `p,q`, `p_q`, `a/b` and `a_b`, graded
# side by side in a class) never share their logs, and a 250-character
# name still makes a folder.
logs=$BUILD/grade-logs/$(safe_file_name "$folder")
mkdir -p "$logs" "$work/runs" || exit 2
scratch=$(mktemp -d "$PWD/$work/runs/grade.XXXXXX") || exit 2
[ "${GRADE_KEEP:-}" = 1 ] || trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/submission" "$scratch/build" "$scratch/run" "$scratch/grading"
pristine=$scratch/pristine   # the exercises as handed out, built there (referee_build)
# The library, copied with its dates, so that make rebuilds none of it; the
# submission's programs are built afresh (or come from the cache).
cp -a "$base/build/." "$scratch/build/"
mkdir -p "$scratch/build/submission"
[ "$EUID" -eq 0 ] && chown -R "$sandbox_user" "$scratch/build" "$scratch/run"

# Each file into the scratch folder: a regular file only (a link could
# point at a solution), a solution with its markers as a student would hand
# it in (generate.sh --solved). Right work saved by another editor is right
# work: a UTF-8 byte-order mark at the start is dropped and CRLF line
# endings become LF, before the comparison and the compiler read the file
# (both read a line the same way either way).
declare -A missing=()
for name in "${names[@]}"; do
    source=$folder/$name.cu
    if [ ! -e "$source" ] && [ ! -L "$source" ]; then
        missing[$name]="missing: no $name.cu in the folder"
    elif [ -L "$source" ] || [ ! -f "$source" ]; then
        missing[$name]="$name.cu is not a regular file (a link?): hand in the file itself"
    elif grep -Eq '// exercise:(begin|inline)' "$source"; then
        solutions/generate.sh --solved "$scratch/submission" "$source" >> "$scratch/solved.log" 2>&1 ||
            missing[$name]="a solution with malformed markers (solutions/generate.sh --solved)"
    else
        LC_ALL=C sed -e '1s/^\xef\xbb\xbf//' -e 's/\r$//' "$source" > "$scratch/submission/$name.cu"
    fi
done
chmod -R a+rX "$scratch/submission"   # the sandbox's user reads them, whatever their modes

card=$(card_here)
if [ -n "$card" ] && [ -z "${GRADE_NVIDIA_SMI:-}" ] &&
   ! "$sandbox" -- nvidia-smi -L >/dev/null 2>&1; then
    echo "grade: nvidia-smi lists the $card here, but not inside the sandbox (its /dev/nvidia*" \
         "nodes; /dev/nvidia-uvm appears after a first CUDA program as root, or" \
         "nvidia-modprobe -u -c=0)" >&2
    exit 2
fi
say "grading $folder/: ${#names[@]} exercise(s), each on what it asks; seed $seed (SEED=$seed" \
    "repeats the drawn sizes and inputs)"
if [ -n "$card" ]; then gpu_line="GPU: $card"
else gpu_line="no GPU here: the host checks run, the GPU ones are skipped"; fi
say "$("$sandbox" --check 2>&1); $gpu_line"
# The exercises side by side, GRADE_JOBS at a time, each in a process of
# its own with its own log, run folder and draws (from its name and the
# seed): what each prints is kept, then printed in the folder's order, so
# that the output, the table and the exit status are a serial run's.
running=0
for k in "${!names[@]}"; do
    name=${names[$k]}
    if [ -n "${missing[$name]:-}" ]; then
        result=FAIL host_part=- gpu_part=- reason=${missing[$name]}
        say "  $name: $reason" > "$scratch/grading/$k.out"
        printf '%s\n' "$result" "$host_part" "$gpu_part" "$reason" > "$scratch/grading/$k.result"
        continue
    fi
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
    ( grade "$name"
      printf '%s\n' "$result" "$host_part" "$gpu_part" "$reason" > "$scratch/grading/$k.result"
    ) > "$scratch/grading/$k.out" 2> "$scratch/grading/$k.err" &
    running=$((running + 1))
done
wait
results=() reasons=() host_parts=() gpu_parts=()
for k in "${!names[@]}"; do
    cat "$scratch/grading/$k.out"
    cat "$scratch/grading/$k.err" >&2
    result=FAIL host_part=- gpu_part=- reason="grader: the grading of ${names[$k]} ended without a result"
    if [ -f "$scratch/grading/$k.result" ]; then
        { IFS= read -r result; IFS= read -r host_part; IFS= read -r gpu_part; IFS= read -r reason
        } < "$scratch/grading/$k.result"
    fi
    results+=("$result") reasons+=("$reason") host_parts+=("$host_part") gpu_parts+=("$gpu_part")
done

echo
width=28
for name in "${names[@]}"; do [ ${#name} -gt $width ] && width=${#name}; done
printf "%-${width}s %-6s %-4s %-4s %s\n" exercise result host gpu reason
passed=0 failed=0 skipped=0
for k in "${!names[@]}"; do
    printf "%-${width}s %-6s %-4s %-4s %s\n" "${names[$k]}" "${results[$k]}" "${host_parts[$k]}" \
        "${gpu_parts[$k]}" "$(clean "${reasons[$k]}")"
    case ${results[$k]} in
        PASS) passed=$((passed + 1)) ;;
        FAIL) failed=$((failed + 1)) ;;
        *) skipped=$((skipped + 1)) ;;
    esac
    if [ -n "$csv" ]; then
        property=${reasons[$k]}
        [ "${results[$k]}" = PASS ] && property=""
        [ "${results[$k]}" = SKIP ] && property="GPU checks not run: no GPU here"
        printf '%s,%s,%s,%s\n' "$(csv_field "$student")" "$(csv_field "${names[$k]}")" \
            "$(csv_field "${results[$k]}")" "$(csv_field "$property")" >> "$csv"
    fi
done
for file in "${refused[@]}"; do
    printf "%-${width}s %-6s %-4s %-4s %s\n" "(refused)" FAIL - - \
        "'$file' is not named NN-name.cu: it was not graded"
    failed=$((failed + 1))
    [ -n "$csv" ] && printf '%s,%s,%s,%s\n' "$(csv_field "$student")" "$(csv_field "$file")" \
        '"FAIL"' "$(csv_field "not named NN-name.cu: not graded")" >> "$csv"
done
for file in "${refused[@]}"; do   # (in the autograders' results too)
    names+=("$file") results+=(FAIL) reasons+=("'$file' is not named NN-name.cu: it was not graded")
done
summary="$folder/: $passed passed, $failed failed, $skipped skipped, seed $seed"
[ -n "$card" ] || summary+=" (no GPU here: the GPU checks did not run)"
if [ -n "${GRADE_GRADESCOPE:-}" ]; then
    autograder_json gradescope "$GRADE_GRADESCOPE" "$summary" ||
        echo "grade: cannot write $GRADE_GRADESCOPE" >&2
fi
if [ -n "${GRADE_PRAIRIELEARN:-}" ]; then
    autograder_json prairielearn "$GRADE_PRAIRIELEARN" "$summary" ||
        echo "grade: cannot write $GRADE_PRAIRIELEARN" >&2
fi
echo
say "$folder/: $passed passed, $failed failed, $skipped skipped (logs in $logs/)"
[ $failed -gt 0 ] && exit 1
[ $skipped -gt 0 ] && exit 77
exit 0
