# tests/suites/13-cuda12.sh - the workbook builds with CUDA 12.4 as well as
# with CUDA 13 (DESIGN.md section 10: the toolkit of the free notebook
# services and of most clusters). NVCC_12 names a CUDA 12.4 (or later 12.x)
# nvcc: tools/fetch_cuda12.sh DIR unpacks Debian's into DIR (DIR/bin/nvcc),
# and .ci/run does so before make test. Unset, or naming no file, or where
# .ci/run could not fetch it (NVCC_12_UNAVAILABLE says why), the suite is
# skipped with the reason; a CUDA 12 that is there and does not build fails.
#
# With that nvcc, in a build folder of its own (build-cuda12), for one
# target (sm_90; chapters 10 to 13 sm_90a) and -j2, one make -k: every
# chapter's objects and the library (common/ and chapter 7's layer), one
# tried program (chapter 8's, which calls cuBLAS), one mutant program (chapter
# 2's: a mutant gets nvcc's fast compile only where nvcc has it, CUDA 12.8 and
# later), and exercise 02-triangle-grid with its solution, each target a test
# (make -q: up to date after the build, or it failed). Then `make
# build-archs` with that nvcc asks for the targets of DESIGN's cards that it
# lists (--list-gpu-code; 12.4: sm_75 to sm_90), never sm_100 or sm_120 that
# it does not know (make -n: nothing compiled). Suite 12 compiles every
# chapter for the older cards with the installed toolkit; this suite
# compiles the workbook once with the older toolkit, and prints the seconds
# of CPU its build took (about 130 on the 2-core machine of the README).
# test-runner: about 130 s (its compiles, beside another suite)

cuda12_build=build-cuda12
cuda12_name="the workbook builds with CUDA 12.4"
cuda12_version=
if [ -n "${NVCC_12_UNAVAILABLE:-}" ]; then
    skip "$cuda12_name" "$NVCC_12_UNAVAILABLE"
elif [ -z "${NVCC_12:-}" ]; then
    skip "$cuda12_name" "NVCC_12 is not set: tools/fetch_cuda12.sh DIR fetches CUDA 12.4 into DIR, then NVCC_12=DIR/bin/nvcc (.ci/run does both)"
elif [ ! -x "$NVCC_12" ]; then
    skip "$cuda12_name" "NVCC_12=$NVCC_12 is not there"
else
    cuda12_version=$("$NVCC_12" --version 2>&1 | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
    case $cuda12_version in
        12.[4-9]|12.[1-9][0-9])
            pass "NVCC_12 is CUDA 12.4 or a later 12.x ($cuda12_version: $NVCC_12)" ;;
        *)
            fail "NVCC_12 is CUDA 12.4 or a later 12.x" \
                "$NVCC_12 says it is ${cuda12_version:-no CUDA release}: $("$NVCC_12" --version 2>&1 | tail -n 1)"
            cuda12_version= ;;
    esac
fi

if [ -n "$cuda12_version" ]; then
    # The device optimizers at their lowest (cicc -O1, ptxas -O0): what 12.4
    # must prove is that its front end takes every kernel and its assembler
    # every instruction (wgmma, the copy engine's), not what it makes of them;
    # at -O3 this suite took twice the time.
    cuda12_make=(make --no-print-directory BUILD="$cuda12_build" NVCC="$NVCC_12" ARCH=sm_90
                 DEVICE_OPT_FLAGS="-Xcicc -O1 -Xptxas -O0")
    # make follows the sources, not the flags nor the compiler: the folder
    # starts afresh when the nvcc or a makefile changed since its last build.
    cuda12_stamp="$NVCC_12 $("$NVCC_12" --version | tail -n 1) $(cat Makefile plots/figures.mk solutions/grade.mk | cksum)"
    if [ "$(cat "$cuda12_build/.cuda12-stamp" 2>/dev/null)" != "$cuda12_stamp" ]; then
        rm -rf "$cuda12_build" && mkdir -p "$cuda12_build" && echo "$cuda12_stamp" > "$cuda12_build/.cuda12-stamp"
    fi
    # The CPU this suite's build takes: its own processes (this shell's
    # waited-for children, /proc/PID/stat's cutime and cstime) and the
    # whole machine's over the same time (/proc/stat's cpu line: the suites
    # beside it and anything else running count there too).
    cuda12_ticks=$(getconf CLK_TCK) cuda12_shell=$BASHPID
    cuda12_own_cpu() { local stat; stat=$(cat "/proc/$cuda12_shell/stat"); stat=${stat##*) }
                       set -- $stat; echo $(( ${14} + ${15} )); }
    cuda12_machine_cpu() { local user nice system irq softirq steal
                           read -r _ user nice system _ _ irq softirq steal _ < /proc/stat
                           echo $(( user + nice + system + irq + softirq + steal )); }
    cuda12_own_before=$(cuda12_own_cpu) cuda12_machine_before=$(cuda12_machine_cpu)
    cuda12_started=${EPOCHREALTIME/[.,]/}

    # Each chapter's objects: every top-level .cu of its folder (chapter 7's
    # layer.cu is the library's too).
    cuda12_chapter_goals=()
    for folder in chapters/[0-9][0-9]-*/; do
        folder=${folder%/}
        objects=
        for source in "$folder"/*.cu; do objects+=" $cuda12_build/obj/${source%.cu}.o"; done
        cuda12_chapter_goals+=("$folder:$objects")
    done
    cuda12_goals=(
        "the library (common/, chapter 7's layer):$cuda12_build/libworkbook.a"
        "a tried program, chapter8-tried (cuBLAS):$cuda12_build/chapter8-tried"
        "a mutant program, chapter2-mutant:$cuda12_build/chapter2-mutant"
        "exercise 02-triangle-grid:$cuda12_build/exercises/02-triangle-grid"
        "its solution, solutions/02-triangle-grid:$cuda12_build/solutions/02-triangle-grid"
    )
    cuda12_log=$(log_of "the CUDA 12.4 build")
    "${cuda12_make[@]}" -k -j2 $(for goal in "${cuda12_chapter_goals[@]}" "${cuda12_goals[@]}"; do
                                     echo "${goal#*:}"; done) > "$cuda12_log" 2>&1
    cuda12_status=$?
    # (its seconds under its own name in the runner's slowest tests)
    record_time "the CUDA $cuda12_version build (make -k -j2 of every target below)"
    cuda12_wall_tenths=$(( (${EPOCHREALTIME/[.,]/} - cuda12_started) / 100000 ))
    cuda12_own=$(( ($(cuda12_own_cpu) - cuda12_own_before) * 10 / cuda12_ticks ))
    cuda12_machine=$(( ($(cuda12_machine_cpu) - cuda12_machine_before) * 10 / cuda12_ticks ))

    # cuda12_goal NAME GOALS: passes when make finds every goal up to date;
    # a failure shows the build's errors.
    cuda12_goal() {
        local name="$1 builds with CUDA $cuda12_version" goal; shift
        for goal in $1; do
            if ! "${cuda12_make[@]}" -q "$goal" >/dev/null 2>&1; then
                grep -E -B 3 "error|fatal|\*\*\*|not remade" "$cuda12_log" > "$(log_of "$name")"
                fail "$name" "$goal was not made (make exit $cuda12_status; all of it in $cuda12_log)" \
                    "$(log_of "$name")"
                return
            fi
        done
        pass "$name"
    }
    for goal in "${cuda12_chapter_goals[@]}"; do
        folder=${goal%%:*}
        cuda12_goal "chapter $((10#$(basename "$folder" | cut -c1-2)))'s $(cd "$folder" && echo *.cu)" "${goal#*:}"
    done
    for goal in "${cuda12_goals[@]}"; do cuda12_goal "${goal%%:*}" "${goal#*:}"; done
    echo "      (the CUDA $cuda12_version build, make -j2: $((cuda12_wall_tenths / 10)).$((cuda12_wall_tenths % 10)) s wall," \
         "$((cuda12_own / 10)).$((cuda12_own % 10)) s of CPU in its processes;" \
         "the machine's CPU over that time $((cuda12_machine / 10)).$((cuda12_machine % 10)) s)"

    # The targets come from the toolkit (--list-gpu-code): those of DESIGN's
    # cards that it lists (CUDA 12.4: sm_75 to sm_90; 12.8 added sm_100 and
    # sm_120), and build-archs must ask it for no other.
    cuda12_listed=" $("$NVCC_12" --list-gpu-code 2>/dev/null | tr '\n' ' ') "
    cuda12_archs=
    for arch in sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120; do
        case $cuda12_listed in *" $arch "*) cuda12_archs+=" $arch" ;; esac
    done
    cuda12_archs=${cuda12_archs# }
    expect_output "build-archs with CUDA $cuda12_version takes the targets it lists: $cuda12_archs" \
        "^$cuda12_archs\$" "${cuda12_make[@]}" -s print-build-archs
    # What its compiles ask for, make -n (sm_90a, chapters 10 to 13, counts as sm_90).
    cuda12_archs_name="make build-archs with CUDA $cuda12_version compiles for $cuda12_archs and nothing else"
    cuda12_archs_log=$(log_of "$cuda12_archs_name")
    "${cuda12_make[@]}" -n build-archs > "$cuda12_archs_log" 2>&1
    cuda12_asked=$(grep -Eo -- '-gencode arch=compute_[0-9]+a?,code=sm_[0-9]+' "$cuda12_archs_log" |
                   sed 's/.*code=//' | sort -u -V | tr '\n' ' ')
    cuda12_asked=${cuda12_asked% }
    if [ "$cuda12_asked" = "$cuda12_archs" ]; then
        pass "$cuda12_archs_name"
    else
        fail "$cuda12_archs_name" "its compiles ask for: ${cuda12_asked:-nothing}" "$cuda12_archs_log"
    fi
fi
