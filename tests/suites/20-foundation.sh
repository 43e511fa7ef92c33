# tests/suites/20-foundation.sh - chapters 1 and 2: the command line's
# refusals (no GPU needed), the GPU checks, and the mutant the check rejects.
# test-runner: about 60 s

expect_status "chapter2 --help exits 0" 0 build/chapter2 --help
expect_status "chapter2 --list exits 0" 0 build/chapter2 --list
expect_status "chapter2 rejects an unknown option" 2 build/chapter2 --fast
expect_status "chapter2 rejects an unknown size key" 2 build/chapter2 X=3
expect_status "chapter2 rejects a malformed size" 2 build/chapter2 T=12x
expect_status "chapter2 rejects a zero size" 2 build/chapter2 B=0
expect_status "chapter2 rejects C not a multiple of NH" 2 build/chapter2 C=100 NH=12
expect_status "chapter2 rejects an unknown kernel name" 2 build/chapter2 --kernel fastest
expect_status "chapter2 rejects an unknown kernel number" 2 build/chapter2 --kernel 9
expect_status "chapter2 rejects --reps under 20" 2 build/chapter2 --reps 5
expect_status "naive refuses T not a multiple of 128" 2 build/chapter2 --kernel naive T=200
expect_output "the refusal names the reason" "multiple of 128" build/chapter2 --kernel naive T=200
expect_output "README's exit statuses: 2 is bad arguments, sizes or files" \
    "2 bad arguments, sizes or files" cat README.md
expect_output "--help gives the same exit statuses" "2 bad arguments, sizes or files" \
    build/chapter2 --help

# cuBLAS is loaded at its first call (common/device/cublas_loader.cpp), so
# that --help, a refusal or a machine without a GPU never pay for loading
# it: no program needs libcublas at its start. A program that calls a
# cuBLAS function the loader does not define still links, against libcublas.
foundation_scratch=build/foundation
rm -rf "$foundation_scratch" && mkdir -p "$foundation_scratch"
expect_no_output "no chapter program loads cuBLAS at its start" "NEEDED.*libcublas" \
    sh -c 'for program in build/chapter[0-9] build/chapter[0-9][0-9]; do readelf -d "$program"; done'
printf '#include <cublas_v2.h>\nint main(void) { return cublasSscal(0, 0, 0, 0, 1) != 0; }\n' \
    > "$foundation_scratch/other_cublas.cpp"
expect_output "a program calling another cuBLAS function links against libcublas" \
    "NEEDED.*libcublas" sh -c "$(make -s --no-print-directory print-nvcc) \
        '$foundation_scratch/other_cublas.cpp' build/libworkbook.a \
        $(make -s --no-print-directory --eval 'nvcclibs: ; @echo $(NVCCLIBS)' nvcclibs) \
        -o '$foundation_scratch/other_cublas' && readelf -d '$foundation_scratch/other_cublas'"

# Sizes are int in every kernel, and their products are computed without
# wrapping: B*T*3*C below wraps a 64-bit long to 0, which would pass every
# limit. The input is indexed with int (chapter 4's row stride, cuBLAS's
# leading dimension 3*C); a run that cannot fit in any host's memory is
# refused before the GPU is looked for.
wrapping="B=2097152 T=2097152 C=4194304 NH=2"
expect_status "chapter2 refuses sizes whose products wrap 64 bits" 2 build/chapter2 $wrapping
expect_output "the wrapped product is named with the int limit" \
    "B\*T\*3\*C = 2\^64 or more input floats is more than the 2147483647" build/chapter2 $wrapping
expect_output "a size past int names the limit" "T=99999999999 is larger than 2147483647" \
    build/chapter2 T=99999999999
expect_status "chapter2 refuses a size given twice" 2 build/chapter2 B=2 B=3
expect_output "the size given twice is named" "B is given twice \(B=2, then B=3\)" build/chapter2 B=2 B=3
expect_status "chapter2 refuses a run no host memory holds (12 TB)" 2 build/chapter2 B=16 T=65536 C=16 NH=16
expect_output "the refusal names host memory" "of host memory" build/chapter2 B=16 T=65536 C=16 NH=16

# One spelling of whole numbers (decimal digits, no sign, no blank, no
# leading zero), every option given once, and --list checks the options it
# comes with: each of these is refused (exit 2) before any GPU is looked for.
expect_status "chapter2 refuses --seed ' -1' (strtoull would wrap it to 2^64-1)" 2 build/chapter2 --seed ' -1'
expect_output "... saying what a seed is" "--seed ' -1' must be a whole number from 0 to 18446744073709551615" \
    build/chapter2 --seed ' -1'
expect_status "chapter2 refuses T=+128" 2 build/chapter2 T=+128
expect_status "chapter2 refuses T=0128" 2 build/chapter2 T=0128
expect_status "chapter2 refuses --kernel 01" 2 build/chapter2 --kernel 01
expect_status "chapter2 refuses --reps ' 20'" 2 build/chapter2 --reps ' 20'
expect_status "chapter2 refuses --input-scale 0x1p-3" 2 build/chapter2 --input-scale 0x1p-3
expect_status "chapter2 refuses a repeated --reps, as it does a repeated size" 2 \
    build/chapter2 --reps 20 --reps 30
expect_output "... naming it" "--reps is given twice; give it once" build/chapter2 --reps 20 --reps 30
expect_status "chapter2 refuses a repeated --check-only" 2 build/chapter2 --check-only --check-only
expect_status "chapter2 --list --kernel bogus exits 2" 2 build/chapter2 --list --kernel bogus
expect_status "chapter2 --list --csv /nonexistent/x.csv exits 2" 2 build/chapter2 --list --csv /nonexistent/x.csv
expect_output "... naming the directory" "--csv: /nonexistent/x.csv: .*/nonexistent does not exist" \
    build/chapter2 --list --csv /nonexistent/x.csv
expect_output "chapter2 --list --kernel naive lists that kernel alone" "^1$" \
    sh -c "build/chapter2 --list --kernel naive | grep -c ' naive (chapter 2)  '"
# --list says where each contender's code is, and that line holds its kernel
naive_where=$(build/chapter2 --list --kernel naive | sed -n 's/.*(chapter 2)  \([^ ]*\) __global__ naive_scores$/\1/p')
expect_output "chapter2 --list: naive's kernel, file:line" "^chapters/02-naive/naive\.cuh:[0-9]+$" \
    echo "$naive_where"
expect_output "... where its __global__ is" "__global__ void naive_scores\(" \
    sed -n "${naive_where#*:}p" "${naive_where%%:*}"

# --csv FILE is checked before any GPU work: a destination that cannot be
# written is exit 2 up front, not exit 1 after a whole run; a good one
# reaches the GPU check (77 here) and the check leaves no file behind.
csv_dir=$LOGS/csv-destinations
rm -rf "$csv_dir" && mkdir -p "$csv_dir"
printf 'not a directory\n' > "$csv_dir/regular"
printf 'name,value\nx,1\n' > "$csv_dir/foreign.csv"
expect_status "--csv in a directory that does not exist exits 2" 2 \
    build/chapter2 --csv /nonexistent-dir/x.csv
expect_output "the --csv refusal names the directory" \
    "--csv: /nonexistent-dir/x.csv: .*/nonexistent-dir does not exist" \
    build/chapter2 --csv /nonexistent-dir/x.csv
expect_status "--csv under a regular file exits 2" 2 build/chapter2 --csv "$csv_dir/regular/x.csv"
expect_status "--csv naming a directory exits 2" 2 build/chapter2 --csv "$csv_dir"
expect_status "--csv naming a file of another header exits 2" 2 build/chapter2 --csv "$csv_dir/foreign.csv"
expect_output "the foreign file's refusal says why" "does not start with the header" \
    build/chapter2 --csv "$csv_dir/foreign.csv"
gpu_expect "--csv naming a new file in a writable directory is accepted" 0 \
    build/chapter2 B=1 T=128 C=64 NH=1 --check-only --csv "$csv_dir/new.csv"
expect_status "checking --csv creates no file (--check-only times nothing, writes no row)" 1 \
    test -e "$csv_dir/new.csv"
# make bench appends to plots/data/: a CSV it cannot write is a failure of
# the bench (exit 1), not a size the chapter refuses.
expect_status "make bench's runs fail on a CSV they cannot write" 1 \
    env DATA="$csv_dir/no-such-dir" bench/gpu_runs.sh bench 2

# make profile takes CH as a chapter number, never as shell text.
profile_marker=build/profile-ran-this
expect_refused_running_nothing "make profile CH='1;touch FILE' is refused and runs nothing" \
    "$profile_marker" ${MAKE:-make} -s --no-print-directory profile CH="1;touch $profile_marker"
expect_refused_running_nothing "make profile CH='\$(shell touch FILE)' runs nothing" \
    "$profile_marker" ${MAKE:-make} -s --no-print-directory profile CH="\$(shell touch $profile_marker)"
expect_refused_running_nothing "make profile CH=99 (no such chapter) is refused" \
    "$profile_marker" ${MAKE:-make} -s --no-print-directory profile CH=99
expect_output "the profile refusal names the chapters" "CH=99 is not a chapter; the chapters are 1 2 3" \
    ${MAKE:-make} -s --no-print-directory profile CH=99

gpu_expect "chapter1 cuBLAS champions pass at B=2 T=256" 0 build/chapter1 B=2 T=256 --check-only
gpu_expect "chapter1 cuBLAS champions pass at odd T=200 NH=3" 0 build/chapter1 B=1 T=200 C=192 NH=3 --check-only
gpu_expect "chapter2 naive passes at the default size" 0 build/chapter2 --check-only
gpu_expect "chapter2 naive passes at B=1 T=128 C=64 NH=1" 0 build/chapter2 B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter2 mutant is rejected by the check" 1 build/chapter2-mutant --kernel naive B=2 T=256 --check-only

# The accuracy options: --input-scale draws the triangle's inputs in +-X,
# --errors appends each check's error to a file with its own header.
gpu_expect "chapter2 takes --input-scale (and passes)" 0 build/chapter2 B=1 T=128 C=64 NH=1 --input-scale 1e-3 --check-only
expect_status "chapter2 refuses --input-scale 0" 2 build/chapter2 --input-scale 0
expect_status "chapter2 refuses --input-scale abc" 2 build/chapter2 --input-scale abc
expect_status "chapter2 refuses --logits (an MSA option)" 2 build/chapter2 --logits 90
expect_status "chapter2 refuses mask= (an MSA choice)" 2 build/chapter2 mask=kept
errors_dir=$LOGS/errors
rm -rf "$errors_dir" && mkdir -p "$errors_dir"
printf 'chapter,kernel\n' > "$errors_dir/foreign.csv"
expect_status "chapter2 refuses --errors into a file with another header" 2 \
    build/chapter2 --errors "$errors_dir/foreign.csv" --check-only
expect_status "chapter2 refuses --errors into a missing folder" 2 \
    build/chapter2 --errors "$errors_dir/none/e.csv" --check-only
gpu_expect "chapter2 --errors writes the accuracy rows" 0 \
    build/chapter2 B=1 T=128 C=64 NH=1 --check-only --errors "$errors_dir/trimul.csv"
if [ -s "$errors_dir/trimul.csv" ]; then
    expect_output "... under the accuracy header" \
        "^chapter,kernel,problem,shape,input_scale,largest_logit,rel_l2,max_abs,gpu,cuda,commit,date$" \
        head -n 1 "$errors_dir/trimul.csv"
    expect_output "... one row per checked kernel" "^2,naive,trimul,B=1 T=128 C=64 NH=1,1,0," \
        cat "$errors_dir/trimul.csv"
fi

# make test SUITES=...: a word that starts no suite's name, or is not a name
# at all, is refused before any suite runs (never "0 failed" by a typo).
expect_status "make test SUITES=99-no-such-suite is refused" 2 \
    env SUITES=99-no-such-suite tests/run_tests.sh
expect_status "make test SUITES='10;x' is refused" 2 env "SUITES=10;x" tests/run_tests.sh
expect_status "make test TEST_JOBS=0 is refused" 2 env SUITES=10 TEST_JOBS=0 tests/run_tests.sh
expect_output "make DEVICE_CODE=bogus is refused and says what it takes" "DEVICE_CODE='bogus': it is full or fast" \
    make -s --no-print-directory help DEVICE_CODE=bogus
expect_status "... with make's error status" 2 make -s --no-print-directory help DEVICE_CODE=bogus
# A plain `make` builds everything: its goal is `all`, not the first rule of the file.
expect_output "a plain make's goal is all" "^\.DEFAULT_GOAL := all\$" \
    sh -c 'make -s --no-print-directory -n -p 2>/dev/null | grep "^\.DEFAULT_GOAL"'
# A suite with a syntax error fails as a whole: sourced, bash would run it
# up to the error, go on, and count what passed before it.
runner_scratch=$LOGS/runner
rm -rf "$runner_scratch" && mkdir -p "$runner_scratch/suites"
printf 'pass "before the error"\nif true; then\n    pass "inside"\nfi fi\n' \
    > "$runner_scratch/suites/90-unparsable.sh"
expect_output "a suite that does not parse fails, what passed before it uncounted" \
    "FAIL  suite 90-unparsable ran to its end" \
    env SUITES= SUITES_DIR="$runner_scratch/suites" LOGS="$runner_scratch/logs" TEST_JOBS=1 tests/run_tests.sh
expect_status "... and the runner's status says so" 1 \
    env SUITES= SUITES_DIR="$runner_scratch/suites" LOGS="$runner_scratch/logs" TEST_JOBS=1 tests/run_tests.sh
# make check: the host tests, and the suites that run the changed chapters.
expect_output "make check runs the host tests and the suites of a changed chapter" "^10 15 30$" \
    env CHECK_FILES=chapters/05-shared/shared.cuh tests/check.sh --list
expect_output "make check: chapters 7 and 11 changed, the suites that run them" "^10 15 38 65$" \
    env CHECK_FILES="$(printf 'chapters/07-tiled/tiled.cuh\nchapters/11-copy-engine/store.cuh\n')" \
    tests/check.sh --list
expect_output "make check names what it does not run" "70 72 \(the book" \
    env CHECK_FILES="$(printf 'book/weave.c\nchapters/02-naive/naive.cuh\n')" tests/check.sh --list

# chapters/kernels.list has one reader (tools/kernel_list.c) and one generator
# over it (tools/generate.c, build/tools/generate): a malformed line stops it
# with FILE:LINE, and `generate where` leads from a contender to its kernel.
bad_list=$(mktemp)
printf '# header\ntrimul 2 best simt fp32 sm_75 naive\n' > "$bad_list"
expect_status "generate refuses a line with a missing column" 1 \
    build/tools/generate main "$bad_list" 2 trimul chapter chapter2
expect_output "... naming the file and line" "^$bad_list:2: 7 columns" \
    build/tools/generate main "$bad_list" 2 trimul chapter chapter2
printf 'trimul 2 best simt fp32 sm_75 naive n\ntrimul 3 best simt fp32 sm_75 naive m\n' > "$bad_list"
expect_output "generate refuses a kernel listed twice, naming the line" \
    "^$bad_list:2: trimul \"naive\" is listed twice" build/tools/generate programs "$bad_list" "2 3" ""
rm -f "$bad_list"
# `generate renumber` moves the rows of a kernel that changed chapters:
# tf32x3+wgmma's rows tagged chapter 9, as before chapter 10 existed, come
# back as chapter 10, every other byte unchanged.
old_rows=$(mktemp)
sed 's/^10,tf32x3+wgmma,/9,tf32x3+wgmma,/' plots/data/trimul.csv > "$old_rows"
expect_status "the old rows differ from the data (the test's premise)" 1 cmp -s "$old_rows" plots/data/trimul.csv
expect_status "generate renumber gives the old rows the list's chapter, nothing else" 0 \
    sh -c 'build/tools/generate renumber chapters/kernels.list "$1" | cmp - plots/data/trimul.csv' sh "$old_rows"
expect_output "generate chapter names a kernel's chapter" "^10$" \
    build/tools/generate chapter chapters/kernels.list tf32x3+wgmma
expect_status "generate chapter refuses a kernel the list lacks" 1 \
    build/tools/generate chapter chapters/kernels.list no-such-kernel
rm -f "$old_rows"
# `generate where` leads to the function that does a contender's work: the
# body a one-line __global__ wrapper calls, naming the contenders that share
# it; cuBLAS's champions to the function that calls cuBLAS.
where_list=$(mktemp)
build/tools/generate where chapters/kernels.list > "$where_list"
shared_where=$(awk '$1 == "trimul" && $2 == "shared+rows+interleaved" { print $3 }' "$where_list")
expect_output "generate where: shared+rows+interleaved's work is shared_rows_body, in shared.cuh" \
    "^trimul shared\+rows\+interleaved chapters/05-shared/shared\.cuh:[0-9]+ shared_rows_body, the body of __global__ shared_rows_interleaved_scores \(one body with shared\+rows\)$" \
    cat "$where_list"
expect_output "... and that line defines shared_rows_body" "shared_rows_body\(" \
    sed -n "${shared_where#*:}p" "${shared_where%%:*}"
expect_output "generate where: the five fused-tiled kernels say they share one body" \
    "^msa fused-tiled chapters/07-tiled/tiled\.cuh:[0-9]+ __global__ tiled_attention_fp32 \(one body with fused-tiled\+dense, fused-tiled\+eager, fused-tiled\+unsplit, fused-tiled\+four-rows\)$" \
    cat "$where_list"
expect_output "generate where: the unfused layer's work is its launcher, through cuBLAS" \
    "^msa unfused chapters/06-fused/unfused\.cu:[0-9]+ unfused_launch\(\), through cuBLAS$" cat "$where_list"
# fused+nocluster (chapter 6's tried/) launches through the functions of
# fused.cuh: a function it calls is looked up in its caller's file, then its
# folder, before any other (a namesake elsewhere is not it)
expect_output "generate where: a tried variant's kernel is its chapter's, not a namesake's" \
    "^msa fused\+nocluster chapters/06-fused/fused\.cuh:[0-9]+ __global__ fused_msa_attention \(one body with fused\)$" \
    cat "$where_list"
rm -f "$where_list"

# make same-kernels: the tree against its own commit is the same kernel for
# kernel; a clone with one constant of chapter 2's kernel changed is not.
# The smallest folder, to keep it short.
if ! command -v "${NVCC:-nvcc}" >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    skip "make same-kernels" "no nvcc here"
elif ! git rev-parse --verify --quiet HEAD >/dev/null || [ -n "$(git status --porcelain chapters)" ]; then
    skip "make same-kernels" "not a clean git checkout of chapters/"
else
    expect_output "make same-kernels BEFORE=HEAD: every kernel the same" \
        "^same +chapters/02-naive/naive\.cu \([0-9]+ kernels?\)$" \
        make --no-print-directory same-kernels BEFORE=HEAD FOLDER=chapters/02-naive
    # A changed kernel, in a scratch clone of HEAD: chapter 2's scale with
    # another constant. One comparison (each compiles the folder's PTX
    # twice), judged twice: tools/same_kernels.sh exits 1, which make
    # reports as its recipe's "Error 1", and it names the object.
    changed_clone=build/same-kernels-changed
    rm -rf "$changed_clone" && git clone --quiet . "$changed_clone" &&
        sed -i 's|const float scale = 1.0f / sqrtf((float)HS);|const float scale = 2.0f / sqrtf((float)HS);|' \
            "$changed_clone/chapters/02-naive/naive.cuh"
    changed_log=$(log_of "same-kernels on a changed kernel")
    (cd "$changed_clone" && make --no-print-directory same-kernels BEFORE=HEAD FOLDER=chapters/02-naive) \
        > "$changed_log" 2>&1
    expect_output "same-kernels finds a changed kernel (exit 1)" "same-kernels\] Error 1$" \
        cat "$changed_log"
    expect_output "... and names its object" "^DIFFERENT +chapters/02-naive/naive\.cu" \
        cat "$changed_log"
    rm -rf "$changed_clone"
fi
