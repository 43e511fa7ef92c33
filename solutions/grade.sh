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
# Each exercise is graded on what it asks (checks_of below), in this order,
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
#      drawn afresh, within the exercise's own tolerance (tolerance_of), the
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
#                   processes (256 MiB, 512: sandbox.sh)
#   COMPUTE_SANITIZER, NCU, CUOBJDUMP   the tools, found on the PATH or beside
#                   nvcc; "none" grades as if one were missing
#   GRADE_JOBS      exercises graded at a time (the number of CPUs)
#   GRADE_KEEP      1: keep the scratch folder (BUILD/grade/runs/grade.*) to look into
#   BUILD (build), MAKE (make), ARCH, NVCC   as for make
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

# The sizes: TRIANGLE_GRADE, MSA_GRADE, TRIANGLE_SANITIZE and MSA_SANITIZE.
. tests/sizes.sh || exit 2

# A softmax that does not subtract its maximum overflows here: the logit of
# largest magnitude is scaled to +90, past where expf overflows (88.7), and
# with every key kept it is one the softmax weighs.
LOGITS_SIZE="B=2 S=33 N=9 D=64 H=2 mask=kept --logits 90"
# How far a prediction may be from the measured time, either way.
PREDICTION_FACTOR=2

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

# ---------------------------------------------------------------- draws

# The grading's seed, and each exercise's own stream of draws from it (a
# linear congruential generator in shell arithmetic: the same draws on every
# machine), so that SEED=N EX=NAME repeats what a whole grading drew for NAME.
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
case $seed in ''|*[!0-9]*) echo "grade: SEED='$(clean "$seed")' is not a whole number" >&2; exit 2 ;; esac
case $jobs in ''|0|*[!0-9]*) echo "grade: GRADE_JOBS='$(clean "$jobs")' is not a number of jobs" >&2; exit 2 ;; esac
draw_state=0
start_draws() { draw_state=$(printf '%s %s' "$seed" "$1" | cksum | cut -d ' ' -f 1); }
# draw LOW HIGH: a whole number in [LOW, HIGH], in REPLY.
draw() {
    draw_state=$(( (draw_state * 1103515245 + 12345) % 2147483648 ))
    REPLY=$(( $1 + (draw_state >> 8) % ($2 - $1 + 1) ))
}
# A triangle size of what an exercise promises: T a multiple of TSTEP up to
# 512 (any T to 600 for TSTEP 1), HS a multiple of HSTEP up to HSMAX.
drawn_triangle() {
    local tstep=$1 hstep=$2 hsmax=$3 B NH HS T
    draw 1 3; B=$REPLY; draw 1 4; NH=$REPLY
    draw 1 $((hsmax / hstep)); HS=$((REPLY * hstep))
    if [ "$tstep" -eq 1 ]; then draw 1 600; T=$REPLY; else draw 1 $((512 / tstep)); T=$((REPLY * tstep)); fi
    echo "B=$B T=$T C=$((NH * HS)) NH=$NH"
}
# An MSA size the chapter 6 layer holds: S <= 64, D <= 128 a multiple of H.
drawn_msa() {
    local B S N D H
    draw 1 3; B=$REPLY; draw 1 64; S=$REPLY; draw 1 40; N=$REPLY
    draw 1 8; H=$REPLY; draw 1 $((128 / H)); D=$((REPLY * H))
    echo "B=$B S=$S N=$N D=$D H=$H"
}
new_seed() { draw 0 2147483647; echo "$REPLY"; }

# ---------------------------------------------------------------- what is checked

# checks_of NAME: what exercise NAME is graded on, one check a line, fields
# separated by |. A fixture named EXERCISE--what.cu (made by
# tests/grade_fixtures.sh from tests/fixtures/grade/) is graded as EXERCISE.
#   host                        solutions/host/EXERCISE.cu, run on the CPU
#   local|KERNEL                ptxas: KERNEL has no stack frame and no spills
#   instr|KERNEL|PTX|SASS|MIN|WHAT[|ld or st]   KERNEL's PTX has at least MIN
#                               matches of the regex PTX (its machine code of
#                               SASS, where cuobjdump is installed): WHAT; with
#                               ld (st), no global load (store) of one float
#   memcheck|SIZE  racecheck|SIZE  synccheck|SIZE   compute-sanitizer
#   values|SIZE                 the referee's check at SIZE
#   drawn|triangle TSTEP HSTEP HSMAX   the same at a size drawn from the seed
#   drawn|msa                   (two of each: what the exercise promises)
#   logits|SIZE                 the same, large logits (SIZE carries --logits)
#   scale|X|SIZE                the same, inputs drawn in +-X
#   unwritten|SIZE              the host check's own GPU run: the masked scores
#                               the exercise says it leaves stay unwritten
#   ncu|KERNEL|METRIC|SIZE      bank conflicts: METRIC's excess wavefronts
#                               per conflict-free one, at most 0.1
#   time|KERNEL|SIZE            measured / predicted within PREDICTION_FACTOR
triangle_values() {
    local size; for size in "${TRIANGLE_GRADE[@]}"; do echo "values|$size"; done
    echo "drawn|triangle $1"; echo "drawn|triangle $1"
}
msa_values() {
    local size; for size in "${MSA_GRADE[@]}"; do echo "values|$size"; done
    echo "drawn|msa"; echo "drawn|msa"
}
checks_of() {
    local ts=${TRIANGLE_SANITIZE[0]} ms=${MSA_SANITIZE[0]}
    local st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st
    local ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
    local v4='ld\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32' s4='st\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32'
    local v2='ld\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32' s2='st\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32'
    case ${1%%--*} in
        01-cublas-rows-packed)
            echo host; echo "memcheck|$ts"; triangle_values "1 1 128"
            echo "values|B=2 T=200 C=128 NH=2" ;;
        02-triangle-grid)
            echo host; echo "memcheck|$ts"; triangle_values "128 1 128" ;;
        02-naive-any-length)
            echo "memcheck|B=1 T=129 C=32 NH=1"
            printf 'values|%s\n' "B=1 T=1 C=32 NH=1" "B=3 T=129 C=96 NH=3" "B=2 T=200 C=320 NH=5" \
                "B=1 T=1000 C=768 NH=12" "${TRIANGLE_GRADE[3]}"
            echo "drawn|triangle 1 1 128"; echo "drawn|triangle 1 1 128" ;;
        03-registers-counts)
            echo host; echo "memcheck|$ts"; echo "values|${TRIANGLE_GRADE[0]}"
            echo "drawn|triangle 128 1 128" ;;
        03-registers-epilogue)
            echo host; echo "local|registers_epilogue_scores"; echo "memcheck|$ts"
            triangle_values "128 1 128" ;;
        04-vectorized-loads)
            echo host
            echo "instr|vectorized_loads_scores<4>|$v4|LDG\.E\.128|16|16-byte loads (float4)|ld"
            echo "instr|vectorized_loads_scores<2>|$v2|LDG\.E\.64|16|8-byte loads (float2)|ld"
            echo "memcheck|B=1 T=128 C=12 NH=2"; triangle_values "128 1 128"
            echo "values|B=1 T=128 C=12 NH=2"; echo "values|B=2 T=256 C=15 NH=3" ;;
        04-vectorized-stores)
            echo host
            echo "instr|vectorized_stores_scores|$s4|STG\.E\.128|16|16-byte stores (float4)|st"
            echo "memcheck|$ts"; triangle_values "128 4 128"
            echo "unwritten|B=2 T=384 C=64 NH=2" ;;
        05-shared-stage-tiles)
            echo host; echo "instr|shared_stage_scores|$v4|LDG\.E\.128|1|16-byte loads (float4)|ld"
            echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values "128 16 128"
            echo "ncu|shared_stage_scores|$st|B=1 T=256 C=64 NH=1" ;;
        05-shared-inner-loop)
            echo host; echo "local|shared_inner_scores"; echo "memcheck|$ts"
            echo "racecheck|$ts"; triangle_values "128 16 128"
            echo "ncu|shared_inner_scores|$ld|B=1 T=256 C=64 NH=1" ;;
        05-shared-predict) # the chapter's kernel, raced unchanged
            echo host; echo "memcheck|$ts"
            echo "time|shared+rows+interleaved|B=8 T=1024 C=768 NH=12"
            echo "time|shared+rows+interleaved|B=8 T=4096 C=768 NH=12" ;;
        06-msa-softmax)
            echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE" ;;
        06-msa-layernorm|06-msa-gate|07-online-softmax)
            echo host; echo "memcheck|$ms"; echo "racecheck|$ms"; echo "synccheck|$ms"; msa_values
            echo "logits|$LOGITS_SIZE"
            [ "${1%%--*}" = 06-msa-gate ] && echo "ncu|msa_layer|$ld|${MSA_GRADE[4]}" ;;
        07-tiled-predict) # the chapter's layer, raced unchanged
            echo host; echo "memcheck|$ms"
            echo "time|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept"
            echo "time|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept" ;;
        08-tensor-fragments)
            echo host; echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values "128 8 128"
            echo "ncu|tensor_tile_scores|$ld|B=1 T=256 C=64 NH=1" ;;
        08-tensor-epilogue)
            echo host
            echo "instr|tensor_tile_scores|$s2|STG\.E\.64|16|8-byte stores (float2)|st"
            echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values "128 8 128" ;;
        08-tensor-predict) # chapter 1's and chapter 8's kernels, raced unchanged
            echo host; echo "memcheck|$ts"
            local size; for size in "B=8 T=1024 C=768 NH=12" "B=8 T=4096 C=768 NH=12"; do
                echo "time|cublas-tf32|$size"; echo "time|tf32+rows|$size"
            done ;;
        09-tf32-split)
            echo host; echo "memcheck|$ts"; echo "racecheck|$ts"; triangle_values "128 8 128"
            echo "scale|1e-3|${TRIANGLE_GRADE[1]}"; echo "scale|1e3|${TRIANGLE_GRADE[1]}" ;;
        10-hopper-ring|11-layer-value-pairs) # host only: a ring simulated, a layout checked
            echo host ;;
        06-*|07-*) msa_values ;;
        *) triangle_values "128 1 128" ;;
    esac
}

# The largest relative L2 error the values of exercise NAME may have. The
# library's tolerance (1e-5 for FP32, 2e-3 for TF32) is the chapters'; an
# exercise whose own error is far under it is held to about ten times its
# error as measured on the H200 (plots/data/accuracy/: FP32 triangle kernels
# at most 2.1e-7, the FP32 MSA layers 1e-7, and 7e-7 at logits 90, 3xTF32
# 9.2e-7, TF32 2.7e-4), so that an answer whose error hides under the
# chapters' tolerance fails.
tolerance_of() {
    case ${1%%--*} in
        08-*) echo 1e-3 ;;
        09-*) echo 4e-6 ;;
        *) echo 2e-6 ;;
    esac
}

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

# ---------------------------------------------------------------- the handout

# The files of the handout a build in the sandbox needs (make handout's
# files, less the book, the notes, the tests and the grader's own scripts):
# in a git checkout those git would commit, else every file there; only
# files that exist (git lists a moved file until the move is committed).
handout_files() {
    local roots=(Makefile common chapters tools exercises solutions/grade.mk solutions/host)
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- "${roots[@]}"
    else
        find "${roots[@]}" -type f 2>/dev/null
    fi | grep -v -E '^solutions/[0-9][0-9]-[^/]*\.cuh?$' |
        while IFS= read -r file; do if [ -f "$file" ]; then printf '%s\n' "$file"; fi; done
    # (a file git still lists but that was moved or deleted is not there)
}

# The handout's copy and its library, made once per content: base holds
# tree/ (the files, read-only in the sandbox, with empty build/, submission/
# and run/ for the scratch folders), build/ (the library, built in the
# sandbox) and cache/ (the builds of submissions, below). Its name is the
# hash of every file, nvcc's version and ARCH.
#
# The files keep their dates, so that the library can be seeded from the
# instructor's own build (BUILD, when it is build/ as in the sandbox): its
# objects, their .d files, build/gen and build/tools, copied with their
# dates. make in the sandbox then decides as it would in the instructor's
# tree: nothing to do where that build is up to date for these files, a
# rebuild of what is stale or missing (everything, without a build).
prepare_base() {
    local files key
    mkdir -p "$work" || return 2
    files=$(handout_files) || return 2
    key=$( { printf '%s\n' "$files" | tr '\n' '\0' | xargs -0 sha256sum
             "${NVCC:-nvcc}" --version 2>/dev/null; echo "${ARCH:-} $(id -u)"; } |
           sha256sum | cut -c 1-16)
    base=$PWD/$work/base-$key tree=$base/tree base_key=$key cache=$base/cache
    exec 9> "$work/base.lock" && flock 9
    if [ ! -f "$base/ready" ]; then
        rm -rf "$base" && mkdir -p "$tree" "$base/build" "$cache" || return 2
        printf '%s\n' "$files" | tr '\n' '\0' |
            xargs -0 cp --parents --preserve=timestamps -t "$tree" || return 2
        # (copying a file into a folder dates the folder: the folders' dates
        # too, which make reads where a rule depends on a folder)
        (cd "$tree" && find . -mindepth 1 -type d -print0) |
            while IFS= read -r -d '' dir; do
                [ -d "$dir" ] && touch -c -r "$dir" "$tree/$dir"
            done
        mkdir -p "$tree/build" "$tree/submission" "$tree/run"
        chmod -R a+rX "$tree"
        seed_library "$base/build"
        [ "$EUID" -eq 0 ] && chown -R "$sandbox_user" "$base/build"
        echo "grading: building the handout's library (once for this handout)" >&2
        if ! timeout -k 10 "$compile_timeout_s" "$sandbox" --ro "$tree" "$tree" \
                --rw "$base/build" "$tree/build" --cd "$tree" -- \
                make -s -j"$(nproc)" --no-print-directory BUILD=build ${ARCH:+ARCH="$ARCH"} \
                ${NVCC:+NVCC="$NVCC"} build/libworkbook.a build/libchapters.a build/gen/programs.mk \
                build/obj/grade/main_program.o build/obj/grade/main_check.o \
                > "$base/build.log" 2>&1; then
            echo "grade: the handout's library does not build (see $base/build.log)" >&2
            flock -u 9; return 2
        fi
        # The symbols a submission may not define: the library's own.
        nm -g --defined-only "$base/build/libworkbook.a" 2>/dev/null |
            awk 'NF == 3 && $2 ~ /^[TDBRG]$/ { print $3 }' | sort -u > "$base/harness-symbols"
        touch "$base/ready"
    fi
    # This grading uses the base until it ends: a shared lock on its users
    # file, which a grading that made another base (another handout, another
    # ARCH: make grade passes the one make detected) takes alone before it
    # removes an old one. A base still in use stays, for a later one to remove.
    exec 8> "$base.users" && flock -s 8
    local old
    for old in "$work"/base-*/; do
        old=${old%/}
        [ "$old" = "$work/base-$key" ] && continue
        ( exec 7> "$old.users" && flock -xn 7 && rm -rf "$old" "$old.users" )
    done
    flock -u 9
}

# seed_library DIR: the instructor's build of the library copied into DIR
# with its dates (objects and .d files of common/, the chapters and the
# grader's two mains, the archives, build/gen's list of programs and ARCH
# stamp, build/tools), where
# BUILD is build/ (the .d files name their targets build/...) and holds
# the archives. What is stale there make rebuilds in the sandbox.
seed_library() {
    local into=$1
    [ "$BUILD" = build ] || [ "$BUILD" = build/ ] || return 0
    [ -f build/libworkbook.a ] && [ -f build/libchapters.a ] && [ -f build/gen/programs.mk ] &&
        [ -f build/gen/arch ] && [ -f build/gen/mutant_sources.mk ] && [ -d build/obj/common ] && [ -d build/obj/chapters ] || return 0
    local grade_mains=(); [ -d build/obj/grade ] && grade_mains=(obj/grade)
    (cd build && find obj/common obj/chapters "${grade_mains[@]}" -path '*/tried' -prune -o -type f \
         \( -name '*.o' -o -name '*.d' \) -print0 |
         xargs -0 -r cp -a --parents -t "$into" &&
     cp -a --parents -t "$into" libworkbook.a libchapters.a gen/programs.mk gen/mutant_sources.mk gen/arch \
         tools) ||
        { rm -rf "$into" && mkdir -p "$into"; return 0; }   # then built in the sandbox
    echo "grading: the handout's library seeded from the instructor's build/" >&2
}

# ---------------------------------------------------------------- the cache

# One build per submission file: each target built for a file (its program
# with the object, PTX and ptxas report its compile leaves; its host check)
# is kept in the base's cache/, under the hash of the handout's key, the
# file's bytes, its name and the target. The same file graded again (in
# another folder, by another student, once more) gets its outputs from
# there instead of a compile. Only the grader writes the cache, after a
# build in the sandbox succeeded (a failed one is never kept); the sandbox
# never sees it. It goes with its base (a new handout, a new cache);
# removing BUILD/grade clears it.
cache_key() { # NAME TARGET
    { printf '%s\0%s\0%s\0' "$base_key" "$1" "$2"; cat "$scratch/submission/$1.cu"; } |
        sha256sum | cut -c 1-32
}
# The files a target leaves in build/submission/, NAME being the exercise's.
target_files() { # NAME TARGET
    case $2 in
        program) printf '%s\n' "$1.o" "$1" "$1.ptx" "$1.ptxas" ;;
        host) printf '%s\n' "$1.host" ;;
        ptx) printf '%s\n' "$1.ptx" ;;
        ptxas) printf '%s\n' "$1.ptxas" ;;
    esac
}

# build_target NAME TARGET: build/submission/NAME's TARGET (program, host,
# ptx, ptxas) in the scratch folder: already there (made with the program),
# from the cache, or built in the sandbox and then kept. Its status is the
# build's (sandboxed_build's; 0 from the cache).
build_target() {
    local name=$1 target=$2 file key entry new files
    local program=build/submission/$name suffix=.$2
    [ "$target" = program ] && suffix=""
    mapfile -t files < <(target_files "$name" "$target")
    if [ -s "$scratch/$program$suffix" ] && [ "$target" != program ] && [ "$target" != host ]; then
        return 0   # the program's compile left it
    fi
    key=$(cache_key "$name" "$target") entry=$cache/$key
    if [ -f "$entry/ready" ]; then
        for file in "${files[@]}"; do
            # (dated now, not as kept: newer than the submission's fresh
            # copy, so that make links the host check from the program's
            # object instead of compiling it again)
            [ -e "$entry/$file" ] && cp "$entry/$file" "$scratch/build/submission/$file"
        done
        echo "== $program$suffix: the build of the same file from the cache ($key)" >> "$log"
        return 0
    fi
    sandboxed_build "$log" "$program$suffix" || return
    new=$(mktemp -d "$cache/.new.XXXXXX") || return 0
    for file in "${files[@]}"; do
        [ -e "$scratch/build/submission/$file" ] && cp -p "$scratch/build/submission/$file" "$new/"
    done
    touch "$new/ready"
    # Another grading may have kept the same build meanwhile: the first stays.
    mv -T "$new" "$entry" 2>/dev/null || rm -rf "$new"
    return 0
}

# ---------------------------------------------------------------- the sandbox

# make TARGET... in the sandbox: the handout read-only, the submission
# read-only, the scratch build folder writable; its output appended to LOG.
sandboxed_build() {
    local log=$1; shift
    timeout -k 10 "$compile_timeout_s" "$sandbox" --memory "$memory_mb" --ro "$tree" "$tree" \
        --ro "$scratch/submission" "$tree/submission" --rw "$scratch/build" "$tree/build" \
        --cd "$tree" -- make -s --no-print-directory BUILD=build GRADE_DIR=submission \
        ${ARCH:+ARCH="$ARCH"} ${NVCC:+NVCC="$NVCC"} "$@" < /dev/null >> "$log" 2>&1 3<&- 8>&- 9>&-
}

# One run of a built program in the sandbox: everything read-only but its
# own run folder (results, HOME), under a time limit, its output in
# LOG.run and appended to LOG. run_program LOG LIMIT LOCK ENV... -- COMMAND...;
# LOCK is none, shared (a GPU run) or alone (a timing or ncu run); sets status.
run_program() {
    local log=$1 limit=$2 mode=$3 environment=(); shift 3
    while [ "$1" != -- ]; do environment+=(--env "$1"); shift; done
    shift
    local memory=(); [ "$mode" = none ] && memory=(--memory "$memory_mb")   # (not a GPU run)
    local command=(timeout -k 10 "$limit" "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
                   --ro "$scratch/submission" "$tree/submission" --ro "$scratch/build" "$tree/build"
                   --rw "$run" "$tree/run" --cd "$tree" --env HOME="$tree/run"
                   "${environment[@]}" -- "$@")
    # (the grader's own descriptors stay out of the sandbox: the list of
    # checks the loop reads, 3, which a run could read away; the locks, 8
    # and 9, which it could release for another grading)
    case $mode in
        shared) flock -s "$lock" "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
        alone) flock -x "$lock" "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
        *) "${command[@]}" < /dev/null > "$log.run" 2>&1 3<&- 8>&- 9>&- ;;
    esac
    status=$?
    keep_output "$log" "$log.run" "$* : exit $status"
}

# What a run printed (FILE), appended to LOG up to 1 MiB after a line
# saying which run (the sandbox's file-size limit bounds the rest).
keep_output() { # LOG FILE WHAT
    local size; size=$(stat -c %s "$2" 2>/dev/null || echo 0)
    { echo "== $3"; head -c 1048576 "$2"
      [ "$size" -gt 1048576 ] && echo "== (its output was $size bytes: the log keeps the first MiB)"
    } >> "$1"
}

# ---------------------------------------------------------------- the referee

# The exercise as handed out, built like a submission in a scratch folder
# of its own (pristine/: the handout's exercise under its own name and a
# copy of the library), never beside a student's file: the referee of a
# check (run_judged) is this build, with no student code in it. Its builds
# go through the cache like a submission's (the untouched exercise graded
# as a submission is the same file, name and target).
# referee_build EXERCISE TARGET (program or host): status the build's.
referee_build() {
    local exercise=$1 target=$2
    (
        exec 6> "$pristine.lock" && flock 6 || exit 2
        if [ ! -f "$pristine/ready" ]; then
            rm -rf "$pristine" && mkdir -p "$pristine/submission" "$pristine/build" \
                "$pristine/run" && cp -a "$base/build/." "$pristine/build/" &&
                mkdir -p "$pristine/build/submission" || exit 2
            [ "$EUID" -eq 0 ] && chown -R "$sandbox_user" "$pristine/build" "$pristine/run"
            touch "$pristine/ready"
        fi
        # one build of an exercise at a time; other exercises' side by side
        exec 6> "$pristine/$exercise.lock" && flock 6 || exit 2
        if [ ! -f "$pristine/submission/$exercise.cu" ]; then
            cp "$tree/exercises/$exercise.cu" "$pristine/submission/$exercise.cu" &&
                chmod a+r "$pristine/submission/$exercise.cu" || exit 2
        fi
        scratch=$pristine
        build_target "$exercise" "$target" 6>&-
    )
}

# One check in two processes (solutions/host/probed_call.h, and race.h's
# --emit-output and --judge-output): the probe, the submission's program,
# in the sandbox as run_program runs it, its descriptor 3 a pipe into the
# referee, the exercise's own build (referee_build), in a sandbox of its
# own that sees neither the submission nor the probe's folder and runs
# none of the student's code. Only the referee's output gives a verdict.
# run_judged LOG LIMIT LOCK ENV... -- PROBE... -- REFEREE...; sets status
# (the probe's) and judged (the referee's); their outputs in LOG.run and
# LOG.judge, both kept in LOG; the referee's run folder is $judge_run.
run_judged() {
    local log=$1 limit=$2 mode=$3 environment=() probe=(); shift 3
    while [ "$1" != -- ]; do environment+=(--env "$1"); shift; done
    shift
    while [ "$1" != -- ]; do probe+=("$1"); shift; done
    shift
    local memory=(); [ "$mode" = none ] && memory=(--memory "$memory_mb")   # (not a GPU run)
    judge_run=$pristine/run/$(basename "$run")
    rm -rf "$judge_run" && mkdir -p "$judge_run" && [ "$EUID" -eq 0 ] && chown "$sandbox_user" "$judge_run"
    local probe_command=(timeout -k 10 "$limit" "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
        --ro "$scratch/submission" "$tree/submission" --ro "$scratch/build" "$tree/build"
        --rw "$run" "$tree/run" --cd "$tree" --env HOME="$tree/run" "${environment[@]}"
        -- "${probe[@]}")
    # (the referee waits on the probe: its limit is the probe's and then some)
    local referee_command=(timeout -k 10 $((limit + 60)) "$sandbox" "${memory[@]}" --ro "$tree" "$tree"
        --ro "$pristine/submission" "$tree/submission" --ro "$pristine/build" "$tree/build"
        --rw "$judge_run" "$tree/run" --cd "$tree" --env HOME="$tree/run" "${environment[@]}"
        -- "$@")
    # The GPU's lock is held by this shell (descriptor 7) around both
    # processes, and kept from them: the referee's time starts when the
    # probe's does. The probe's descriptor 3 is the pipe (the loop's list
    # of checks stays out of both).
    (
        case $mode in
            shared) flock -s 7 ;;
            alone) flock -x 7 ;;
        esac
        "${probe_command[@]}" 3>&1 > "$log.run" 2>&1 < /dev/null 7>&- 8>&- 9>&- |
            "${referee_command[@]}" > "$log.judge" 2>&1 3<&- 7>&- 8>&- 9>&-
        echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}" > "$log.statuses"
    ) 7>> "$lock"
    read -r status judged < "$log.statuses" || { status=1 judged=1; }
    keep_output "$log" "$log.run" "the probe, ${probe[*]}: exit $status"
    keep_output "$log" "$log.judge" "the referee, $*: exit $judged"
}

# How a sandboxed run ended that did not exit 0, in words: timed out (the
# grader's limit, LIMIT seconds: timeout's 124, or 137 where it had to kill),
# crashed (a signal: bwrap exits 128 + N), or its exit status.
ended() { # ended STATUS LIMIT
    case $1 in
        124) echo "timed out after $2 s" ;;
        137) echo "killed (signal 9, SIGKILL): past the time limit of $2 s, or out of memory" ;;
        153) echo "stopped (signal 25, SIGXFSZ): it wrote past the sandbox's file-size limit of \
${GRADE_FILE_MB:-256} MiB" ;;
        129|13[0-9]|1[4-5][0-9]) echo "crashed (signal $(( $1 - 128 ))$(kill -l $(( $1 - 128 )) 2>/dev/null |
                                  sed 's/^/, SIG/'))" ;;
        *) echo "exited $1" ;;
    esac
}

# The first line of LOG.run matching a pattern, cleaned.
first_line() { clean "$(grep -m1 -E -- "$1" "$2" | sed "${3:-}")"; }

# The reason a run of the exercise's program failed, from its exit status,
# its output and the harness's accuracy rows (RESULTS, the file the grader
# named); "" when it passed. Exit 77 is a failure: the grader ran it only
# because nvidia-smi lists a card.
run_reason() {
    local status=$1 run_log=$2 size=$3 seed=$4 results=$5 tolerance=$6 at="at $3 (seed $4)"
    case $status in
        0) results_reason "$results" "$tolerance" "$at" ;;
        77) echo "exit 77 (no GPU, says the program) $at, but nvidia-smi lists the $card here" ;;
        2) if grep -q ' refuses ' "$run_log"; then
               echo "refused size $size: $(first_line ' refuses ' "$run_log" 's/^.* refuses [^:]*: //')"
           else
               echo "could not run $size: $(clean "$(tail -n 1 "$run_log")")"
           fi ;;
        124|137) echo "timed out after ${timeout_s} s $at" ;;
        1) if grep -q 'unwritten' "$run_log"; then
               echo "NaN or unwritten output $at"
           elif grep -q ' failed: ' "$run_log"; then
               echo "CUDA error $at: $(first_line ' failed: ' "$run_log" 's/.* failed: //')"
           elif grep -q '^check .* FAIL' "$run_log"; then
               echo "wrong $at: $(first_line 'rel_l2 [^ ]* \(tolerance [^)]*\)' "$run_log" \
                                 's/.*\(rel_l2 [^ ]* (tolerance [^)]*)\).*/\1/')"
           else
               echo "failed $at: $(clean "$(tail -n 1 "$run_log")")"
           fi ;;
        *) echo "$(ended "$status" "$timeout_s") $at" ;;
    esac
}

# The submission's program at a size, its output judged by the exercise's
# own (run_judged): judge_values LIMIT SEED [-w WRAPPER...] -- SIZE...; the
# probe runs WRAPPER (a sanitizer, ncu) around the program, under the
# GPU's lock (alone for ncu). The referee writes its accuracy rows to
# $judge_run/errors.csv.
judge_values() {
    local limit=$1 seed=$2 wrapper=() mode=shared; shift 2
    if [ "$1" = -w ]; then
        shift; while [ "$1" != -- ]; do wrapper+=("$1"); shift; done
    fi
    shift
    [ -n "$ncu" ] && [ "${wrapper[0]:-}" = "$ncu" ] && mode=alone
    run_judged "$log" "$limit" "$mode" -- "${wrapper[@]}" "$program" "$@" --seed "$seed" \
        --emit-output -- "build/submission/${name%%--*}" "$@" --seed "$seed" --judge-output \
        --errors run/errors.csv
}

# The reason a judged run (judge_values) failed: the probe's own failures
# first (no GPU, a refused size, a crash, a time out, a CUDA error), then
# the referee's verdict on its output and its accuracy rows against the
# exercise's tolerance; "" when it passed. judged_reason SIZE SEED TOLERANCE
judged_reason() {
    local size=$1 seed=$2 tolerance=$3 at="at $1 (seed $2)"
    case $status in
        0) ;;
        77) echo "exit 77 (no GPU, says the program) $at, but nvidia-smi lists the $card here"
            return ;;
        2) if grep -q ' refuses ' "$log.run"; then
               echo "refused size $size: $(first_line ' refuses ' "$log.run" 's/^.* refuses [^:]*: //')"
           else
               echo "could not run $size: $(clean "$(tail -n 1 "$log.run")")"
           fi
           return ;;
        1) if grep -q ' failed: ' "$log.run"; then
               echo "CUDA error $at: $(first_line ' failed: ' "$log.run" 's/.* failed: //')"
           else
               echo "failed $at: $(clean "$(tail -n 1 "$log.run")")"
           fi
           return ;;
        *) echo "$(ended "$status" "$timeout_s") $at"; return ;;
    esac
    if [ "$judged" -ne 0 ]; then
        if grep -q 'unwritten' "$log.judge"; then
            echo "NaN or unwritten output $at"
        elif grep -q '^check .* FAIL: ' "$log.judge"; then
            echo "$(first_line '^check .* FAIL: ' "$log.judge" 's/^check *[^ ]* *FAIL: //') $at"
        elif grep -q '^check .* FAIL' "$log.judge"; then
            echo "wrong $at: $(first_line 'rel_l2 [^ ]* \(tolerance [^)]*\)' "$log.judge" \
                              's/.*\(rel_l2 [^ ]* (tolerance [^)]*)\).*/\1/')"
        else
            echo "the judge of its output $(ended "$judged" "$timeout_s") $at"
        fi
        return
    fi
    results_reason "$judge_run/errors.csv" "$tolerance" "$at"
}

# The harness's accuracy rows (--errors FILE): one or more, each error a
# number within the exercise's tolerance. "" when they are.
results_reason() {
    local results=$1 tolerance=$2 at=$3
    if [ ! -s "$results" ]; then
        echo "no result from the harness $at: the program ended with status 0 before its own check"
        return
    fi
    awk -F, -v tolerance="$tolerance" -v at="$at" '
        NR == 1 { next }
        { rows++ }
        $7 !~ /^[0-9.]+(e[-+]?[0-9]+)?$/ || $7 + 0 > tolerance + 0 {
            printf "wrong %s: rel_l2 %s (the exercise'"'"'s tolerance %s)\n", at, $7, tolerance
            exit }
        END { if (!rows) printf "no result from the harness %s: no accuracy row\n", at }' "$results" |
        head -n 1
}

# ---------------------------------------------------------------- one exercise

# A failure: which part it belongs to (host or gpu) and what it says.
fail_with() { failed_part=$1 failure=$(clean "$2"); }

# The first line of a sanitizer's report that says what went wrong.
sanitizer_report() {
    grep -E '^=+ +[^ ]' "$1" |
        grep -vE 'COMPUTE-SANITIZER|ERROR SUMMARY|^=+ +(at |by |Host Frame|Device Frame|Saved )' |
        head -n 1 | sed -E 's/^=+ +//'
}

# The submission's file against its exercise (tokens.awk): "" when it is
# the exercise with its TODOs filled.
compare_reason() {
    local name=$1 exercise=${1%%--*}
    [ "$compare" = no ] && return 0
    if [ ! -f "$tree/exercises/$exercise.cu" ]; then
        echo "not an exercise of the handout: there is no exercises/$exercise.cu to compare it with"
        return
    fi
    local why
    why=$(awk -v exercise="$tree/exercises/$exercise.cu" -v submission="$scratch/submission/$name.cu" \
              -f solutions/tokens.awk 2>&1) || echo "refused: $why"
}

# Whether the object defines a symbol of the library: "" when it does not.
symbols_reason() {
    local object=$1 defined
    # (a tool over the built object, not the submission's code: the limit of a build)
    run_program "$log" "$compile_timeout_s" none -- nm -g --defined-only "$object"
    if [ $status -ne 0 ]; then echo "its object could not be read (nm: exit $status)"; return; fi
    defined=$(awk 'NF == 3 && $2 ~ /^[TDBRG]$/ { print $3 }' "$log.run" | sort -u |
              comm -12 - "$base/harness-symbols" | head -n 3 | joined ', ')
    [ -n "$defined" ] && echo "defines the library's own $defined: a submission may not replace \
the harness (common/)"
}

# The reason a judged host check failed (run_judged's outputs and statuses),
# "" when the referee passed it: its first FAIL line, and how the probe
# ended where it left a call unanswered.
host_reason() {
    local why
    if [ "$judged" -eq 0 ] &&
       tail -n 1 "$log.judge" | grep -Eqx 'host checks done: [1-9][0-9]* passed, 0 failed'; then
        return 0
    fi
    why=$(first_line '^FAIL' "$log.judge" 's/^FAIL *//')
    case $why in
        "the program's answers: the record of the calls ended"*)
            why=${why%%): it ended early*} why=${why#*ended (call }
            why="the record of the program's answers ended at call ${why/, / (}): the program \
$(ended "$status" "$timeout_s")" ;;
        "") why="the check $(ended "$judged" "$timeout_s") without its verdict" ;;
    esac
    echo "$why"
}

# grade NAME: grades one exercise; sets result, host_part, gpu_part, reason.
grade() {
    local name=$1 exercise=${1%%--*}
    local program=build/submission/$name
    log=$logs/$name.log run=$scratch/run/$name
    : > "$log"
    mkdir -p "$run" && [ "$EUID" -eq 0 ] && chown "$sandbox_user" "$run"
    result=FAIL host_part=- gpu_part=- reason=""
    start_draws "$name"
    card=$(card_here)   # the grader's own look, each exercise afresh
    local why
    why=$(compare_reason "$name")
    if [ -n "$why" ]; then
        reason=$(clean "$why"); say "  $name: $reason"; return
    fi
    build_target "$name" program
    local built=$?
    if [ $built -ne 0 ]; then
        local error
        error=$(grep -m1 'error' "$log" | sed -E 's/^[^ ]*\.cu\(([0-9]+)\): /line \1: /')
        case $built in 124|137) error="the build took over $compile_timeout_s s" ;; esac
        reason=$(clean "does not compile: ${error:-see $log}")
        say "  $name: does not compile"
        return
    fi
    why=$(symbols_reason "$program.o")
    if [ -n "$why" ]; then reason=$(clean "$why"); say "  $name: $reason"; return; fi

    local host_done=() gpu_done=() notes=() gpu_notes=() failure="" failed_part=""
    local gpu_skipped=0 sizes_run=0 tolerance; tolerance=$(tolerance_of "$name")
    local check kind rest kernel size seed results judge_run
    # The checks come in on descriptor 3: what runs in the loop reads only
    # /dev/null on its standard input, never this list.
    while IFS= read -r check <&3; do
        kind=${check%%|*} rest=${check#*|}
        case $kind in
        host)
            local source=solutions/host/$exercise.cu
            if [ ! -f "$tree/$source" ]; then fail_with host "host: $source is missing"; break; fi
            if ! build_target "$name" host; then
                fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
                break
            fi
            if ! referee_build "$exercise" host; then
                fail_with host "grader: the exercise's own host check does not build (see $log)"
                break
            fi
            seed=$(new_seed)
            run_judged "$log" "$timeout_s" none GRADE_SEED="$seed" -- "$program.host" --probe \
                -- "build/submission/$exercise.host" --referee
            why=$(host_reason)
            if [ -n "$why" ]; then fail_with host "host: $why"; break; fi
            host_done+=("$(grep '^ok' "$log.judge" | sed 's/^ok *//; s/:.*//' | joined ', ')") ;;
        local)
            if ! build_target "$name" ptxas; then
                fail_with host "local memory: ptxas -v did not run (see $log)"; break
            fi
            # ptxas -v: "Function properties for MANGLED", then "N bytes stack frame, ..."
            local usage stack spills
            usage=$(awk -v kernel="$rest" '
                /Function properties for/ { mine = index($0, kernel) > 0; next }
                mine && /bytes stack frame/ { print; mine = 0 }' "$scratch/$program.ptxas" |
                head -n 1)
            if [ -z "$usage" ]; then
                fail_with host "local memory: ptxas names no kernel $rest"; break
            fi
            stack=$(echo "$usage" | awk '{ print $1 }')
            spills=$(echo "$usage" | sed -E 's/.*, ([0-9]+) bytes spill stores.*/\1/')
            echo "== ptxas, $rest: $usage" >> "$log"
            if [ "$stack" != 0 ] || [ "$spills" != 0 ]; then
                fail_with host "local memory (ptxas): $rest has a $stack-byte stack frame and \
$spills bytes of spill stores; its arrays belong in registers"
                break
            fi
            host_done+=("no local memory (ptxas)") ;;
        instr)
            local ptx_regex sass_regex minimum what scalar pattern count narrow sass_count
            IFS='|' read -r kernel ptx_regex sass_regex minimum what scalar <<< "$rest"
            if ! build_target "$name" ptx; then
                fail_with host "$what: the PTX could not be made (see $log)"; break
            fi
            # A template's entry is mangled: vectorized_loads_scores<4> is
            # _Z23vectorized_loads_scoresILi4EE...; a plain kernel's is _Z<n>NAME...
            pattern=$kernel
            case $kernel in
                *\<*\>) pattern="${kernel%%<*}ILi${kernel#*<}" pattern="${pattern%>}EE" ;;
            esac
            count=$(awk -v kernel="$pattern" -v regex="$ptx_regex" '
                /^\.(visible |weak )?\.entry/ { mine = index($0, kernel) > 0 }
                /^\.(visible |weak )?\.func/ { mine = 0 }
                mine && $0 ~ regex { n++ }
                END { print n + 0 }' "$scratch/$program.ptx")
            echo "== PTX of $kernel: $count lines match $ptx_regex" >> "$log"
            if [ "$count" -lt "$minimum" ]; then
                fail_with host "$what (PTX): $kernel has $count such instructions, at least \
$minimum wanted"
                break
            fi
            if [ -n "$scalar" ]; then # and none of one float
                narrow=$(awk -v kernel="$pattern" -v op="$scalar" '
                    /^\.(visible |weak )?\.entry/ { mine = index($0, kernel) > 0 }
                    /^\.(visible |weak )?\.func/ { mine = 0 }
                    mine && $1 ~ ("^" op "\\.global") && $0 !~ /\.v[248]\./ { n++ }
                    END { print n + 0 }' "$scratch/$program.ptx")
                if [ "$narrow" -gt 0 ]; then
                    local access=stores; [ "$scalar" = ld ] && access=loads
                    fail_with host "$what (PTX): $kernel has $narrow 4-byte global $access as \
well; every one should be wide"
                    break
                fi
            fi
            if [ -n "$cuobjdump" ]; then
                run_program "$log" "$compile_timeout_s" none -- "$cuobjdump" -sass "$program"
                sass_count=$(awk -v kernel="$pattern" -v regex="$sass_regex" '
                    /Function : / { mine = index($0, kernel) > 0 }
                    mine && $0 ~ regex { n++ }
                    END { print n + 0 }' "$log.run")
                echo "== SASS of $kernel: $sass_count lines match $sass_regex" >> "$log"
                if [ "$sass_count" -lt "$minimum" ]; then
                    fail_with host "$what (SASS): $kernel has $sass_count ${sass_regex//\\/}, \
at least $minimum wanted"
                    break
                fi
                host_done+=("$what: $count in PTX, $sass_count ${sass_regex//\\/}")
            else
                host_done+=("$what: $count in PTX")
                notes+=("machine code not read, no cuobjdump here")
            fi ;;
        values|drawn|logits|scale)
            local extra="" label=""
            size=$rest
            if [ "$kind" = scale ]; then
                extra="--input-scale ${rest%%|*}" size=${rest#*|} label="inputs in +-${rest%%|*}: "
            elif [ "$kind" = logits ]; then
                label="large logits: "
            elif [ "$kind" = drawn ]; then
                case $rest in
                    triangle*) size=$(drawn_triangle ${rest#triangle }) ;;
                    msa) size=$(drawn_msa) ;;
                esac
                label="drawn size: "
            fi
            seed=$(new_seed)
            [ -n "$card" ] || { gpu_skipped=1; continue; }
            if ! referee_build "$exercise" program; then
                fail_with gpu "grader: the exercise's own program does not build (see $log)"
                break
            fi
            # $size and $extra unquoted: they are several arguments
            judge_values "$timeout_s" "$seed" -- $size $extra
            why=$(judged_reason "$size${extra:+ $extra}" "$seed" "$tolerance")
            if [ -n "$why" ]; then fail_with gpu "$label$why"; break; fi
            say "  $name $size${extra:+ $extra} seed $seed: ok"
            case $kind in
                values|drawn) sizes_run=$((sizes_run + 1)) ;;
                logits) gpu_done+=("logits 90") ;;
                scale) gpu_done+=("inputs +-${rest%%|*}") ;;
            esac ;;
        unwritten)
            [ -n "$card" ] || { gpu_skipped=1; continue; }
            if ! build_target "$name" host; then
                fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
                break
            fi
            if ! referee_build "$exercise" host; then
                fail_with gpu "grader: the exercise's own host check does not build (see $log)"
                break
            fi
            run_judged "$log" "$timeout_s" shared -- "$program.host" --probe unwritten $rest \
                -- "build/submission/$exercise.host" --referee unwritten $rest
            why=$(host_reason)
            if [ -n "$why" ]; then fail_with gpu "$why"; break; fi
            gpu_done+=("masked runs unwritten") ;;
        memcheck|racecheck|synccheck)
            [ -n "$card" ] || { gpu_skipped=1; continue; }
            if [ -z "$sanitizer" ]; then
                gpu_notes+=("$kind not run, no compute-sanitizer here"); continue
            fi
            seed=$(new_seed)
            if ! referee_build "$exercise" program; then
                fail_with gpu "grader: the exercise's own program does not build (see $log)"
                break
            fi
            judge_values $((4 * timeout_s)) "$seed" -w "$sanitizer" --tool "$kind" \
                --error-exitcode 99 -- $rest
            # A hazard that racecheck only warns about fails too. The values
            # are not judged here (the next checks do that), only that the
            # program's output reached the referee.
            # A finding reported before the program died counts as the
            # finding (an access out of bounds that then crashed the run).
            why=$(sanitizer_report "$log.run")
            if [ $status -eq 99 ] || grep -Eq 'Race reported|ERROR SUMMARY: [1-9]' "$log.run" ||
               { [ $status -ne 0 ] && [ $status -ne 1 ] && [ $status -ne 2 ] &&
                 grep -Eq '^=+ +(Invalid|Barrier error|Illegal|Out of range|Misaligned)' "$log.run"; }; then
                fail_with gpu "$kind at $rest (seed $seed): ${why:-see $log}"; break
            fi
            if [ $status -ne 0 ]; then
                why=$(judged_reason "$rest" "$seed" "$tolerance")
                [ $status -eq 2 ] || why="$kind: $why"  # a refused size is a refused size
                fail_with gpu "$why"; break
            fi
            if grep -Eq '^check .* FAIL: (no output|the program)' "$log.judge"; then
                fail_with gpu "$kind: $(first_line '^check .* FAIL: ' "$log.judge" \
                    's/^check *[^ ]* *FAIL: //') at $rest (seed $seed)"
                break
            fi
            gpu_done+=("$kind") ;;
        ncu)
            [ -n "$card" ] || { gpu_skipped=1; continue; }
            if [ -z "$ncu" ]; then
                gpu_notes+=("bank conflicts not measured, no ncu here"); continue
            fi
            local metric wavefronts conflicts total excess side units
            IFS='|' read -r kernel metric size <<< "$rest"
            wavefronts=${metric/data_bank_conflicts_pipe_lsu_mem/data_pipe_lsu_wavefronts_mem}
            seed=$(new_seed)
            if ! referee_build "$exercise" program; then
                fail_with gpu "grader: the exercise's own program does not build (see $log)"
                break
            fi
            for units in "--print-units base" ""; do  # older ncu lacks --print-units
                judge_values $((4 * timeout_s)) "$seed" -w "$ncu" --clock-control none \
                    --kernel-name "regex:$kernel" --launch-count 1 \
                    --metrics "$metric.sum,$wavefronts.sum" --csv $units -- $size
                conflicts=$(awk -v metric="$metric.sum" -f solutions/ncu_metric.awk "$log.run")
                total=$(awk -v metric="$wavefronts.sum" -f solutions/ncu_metric.awk "$log.run")
                [ -n "$conflicts" ] && [ -n "$total" ] && break
            done
            if [ -z "$conflicts" ] || [ -z "$total" ]; then
                why=$(first_line 'ERR_|==ERROR==|rror' "$log.run")
                case $why in
                    *ERR_NVGPUCTRPERM*) why="this driver lets only administrators read the \
counters (NVreg_RestrictProfilingToAdminUsers), and the sandbox's user is none" ;;
                esac
                notes+=("bank conflicts not measured, ncu gave no $metric${why:+: $why}")
                continue
            fi
            if [ $status -ne 0 ] || grep -Eq '^check .* FAIL: (no output|the program)' "$log.judge"
            then
                fail_with gpu "bank conflicts: the program's output under ncu at $size did not \
reach the referee ($(ended "$status" "$((4 * timeout_s))"))"
                break
            fi
            excess=$(awk -v c="$conflicts" -v t="$total" \
                'BEGIN { ideal = t - c; printf "%.2f", (ideal > 0 ? c / ideal : (c > 0 ? 99 : 0)) }')
            side=stores; case $metric in *_ld) side=loads ;; esac
            echo "== ncu $kernel: $conflicts conflicts, $total wavefronts of shared $side" >> "$log"
            if awk -v e="$excess" 'BEGIN { exit !(e > 0.1) }'; then
                fail_with gpu "bank conflicts (ncu, shared $side of $kernel at $size): \
$conflicts in $total wavefronts, $excess extra per conflict-free one (at most 0.1)"
                break
            fi
            gpu_done+=("bank conflicts $excess (ncu)") ;;
        time)
            local predicted csv_file measured ratio verdict on=(--card "NVIDIA H200")
            IFS='|' read -r kernel size <<< "$rest"
            [ -n "$card" ] && on=(--card live)
            if ! build_target "$name" host; then
                fail_with host "host: the host check does not build: $(grep -m1 'error' "$log")"
                break
            fi
            if ! referee_build "$exercise" host; then
                fail_with host "grader: the exercise's own host check does not build (see $log)"
                break
            fi
            run_judged "$log" "$timeout_s" "$([ -n "$card" ] && echo shared || echo none)" -- \
                "$program.host" --probe predict "$kernel" $size "${on[@]}" \
                -- "build/submission/$exercise.host" --referee predict "$kernel" $size "${on[@]}"
            predicted=""
            [ "$judged" -eq 0 ] && predicted=$(awk '$1 == "predicted_ms" { print $2; exit }' "$log.judge")
            if ! awk -v p="$predicted" 'BEGIN { exit !(p ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ &&
                                                       p + 0 > 0 && p + 0 < 1e9) }'; then
                fail_with host "prediction: none for $kernel at $size (predicted_ms says \
'$(clean "$predicted")')"
                break
            fi
            echo "== predicted $predicted ms for $kernel at $size" >> "$log"
            if [ -z "$card" ]; then
                gpu_skipped=1
                host_done+=("predicts $predicted ms for $kernel at ${size%% mask=*} on the H200")
                continue
            fi
            # The kernel raced is the chapter's, not the student's: the
            # exercise's own program times it, no student code in the run.
            if ! referee_build "$exercise" program; then
                fail_with gpu "grader: the exercise's own program does not build (see $log)"
                break
            fi
            seed=$(new_seed)
            local timed_run=$pristine/run/$(basename "$run").time
            rm -rf "$timed_run" && mkdir -p "$timed_run" &&
                { [ "$EUID" -ne 0 ] || chown "$sandbox_user" "$timed_run"; }
            csv_file=$timed_run/times.csv results=$timed_run/errors.csv
            ( scratch=$pristine run=$timed_run
              run_program "$log" $((4 * timeout_s)) alone -- "build/submission/$exercise" $size \
                  --kernel "$kernel" --csv run/times.csv --errors run/errors.csv --reps 20 \
                  --seed "$seed"
              echo "$status" > "$log.status" )
            status=$(cat "$log.status")
            why=$(run_reason $status "$log.run" "$size" "$seed" "$results" 1)
            if [ -n "$why" ]; then fail_with gpu "prediction: the timed run failed: $why"; break; fi
            measured=$(awk -F, -v k="$kernel" 'NR > 1 && $2 == k { print $5; exit }' "$csv_file" \
                       2>/dev/null)
            if ! awk -v m="$measured" 'BEGIN { exit !(m ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && m > 0) }'; then
                fail_with gpu "prediction: no time measured for $kernel (the harness wrote no \
row)"
                break
            fi
            ratio=$(awk -v m="$measured" -v p="$predicted" 'BEGIN { printf "%.2f", m / p }')
            verdict="measured $measured ms / predicted $predicted ms = $ratio for $kernel at $size \
on the $card"
            say "  $name: $verdict"
            echo "== $verdict" >> "$log"
            if awk -v r="$ratio" -v f="$PREDICTION_FACTOR" 'BEGIN { exit !(r > f || r < 1/f) }'
            then
                fail_with gpu "prediction: $verdict, outside 1/$PREDICTION_FACTOR to \
$PREDICTION_FACTOR"
                break
            fi
            gpu_done+=("measured/predicted $ratio ($kernel, ${size%% mask=*})") ;;
        *)
            fail_with host "grader: unknown check '$check'"; break ;;
        esac
    done 3< <(checks_of "$name")
    rm -f "$log.run"

    [ $sizes_run -gt 0 ] && gpu_done=("values at $sizes_run sizes (rel_l2 under $tolerance)" \
                                      "${gpu_done[@]}")
    local host_text gpu_text
    host_text=$(printf '%s\n' "${host_done[@]}" | sed '/^$/d' | joined ', ')
    gpu_text=$(printf '%s\n' "${gpu_done[@]}" | sed '/^$/d' | joined ', ')
    [ -n "$host_text" ] && host_part=PASS
    [ -n "$gpu_text" ] && gpu_part=PASS
    if [ -n "$failure" ]; then
        if [ "$failed_part" = host ]; then host_part=FAIL; else gpu_part=FAIL; fi
        result=FAIL reason=$failure
        say "  $name: FAIL: $failure"
        return
    fi
    if [ $gpu_skipped -eq 1 ]; then
        result=SKIP gpu_part=SKIP
        if [ -n "$host_text" ]; then reason="host: $host_text; GPU: not run, no GPU here"
        else reason="compiled, compared with its exercise; GPU: not run, no GPU here"; fi
    else
        result=PASS
        notes+=("${gpu_notes[@]}")   # a missing GPU tool matters only where there is a GPU
        reason="${host_text:+host: $host_text}${host_text:+${gpu_text:+; }}"
        reason="$reason${gpu_text:+GPU: $gpu_text}"
    fi
    local unchecked
    unchecked=$(printf '%s\n' "${notes[@]}" | awk 'NF && !seen[$0]++' | joined '; ')
    [ -n "$unchecked" ] && reason="$reason (unchecked: $unchecked)"
    reason=$(clean "$reason")
}

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
summary="$folder/: $passed passed, $failed failed, $skipped skipped"
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
