# solutions/grade-builds.sh - the grader's builds (solutions/grade.sh sources
# it): the handout's copy and its library, made once per content (the
# base); the cache of submissions' builds; a build in the sandbox; and the
# exercise as handed out built for the referee.

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
# hash of every file, nvcc's version, ARCH and DEVICE_CODE.
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
             "${NVCC:-nvcc}" --version 2>/dev/null; echo "${ARCH:-} ${DEVICE_CODE:-} $(id -u)"; } |
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
                ${DEVICE_CODE:+DEVICE_CODE="$DEVICE_CODE"} \
                ${NVCC:+NVCC="$NVCC"} build/libworkbook.a build/libchapters.a build/gen/programs.mk \
                build/gen/kernel_facts.h build/obj/grade/main_program.o build/obj/grade/main_check.o \
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
    # One build of a file and target at a time, under the lock of its entry
    # (descriptor 5): a grading that needs what another is building waits,
    # then takes it from the cache. (Suite 80 grades the untouched exercises
    # while another grading builds the same files as its referees: without
    # the lock both compiled them, 3 compiles of 89 there.)
    {
        flock 5
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
        # (a grading of an older grader, which took no lock, may have kept
        # the same build meanwhile: the first stays)
        mv -T "$new" "$entry" 2>/dev/null || rm -rf "$new"
        return 0
    } 5> "$cache/.$key.lock"
}

# ---------------------------------------------------------------- the sandbox

# make TARGET... in the sandbox: the handout read-only, the submission
# read-only, the scratch build folder writable; its output appended to LOG.
sandboxed_build() {
    local log=$1; shift
    timeout -k 10 "$compile_timeout_s" "$sandbox" --memory "$memory_mb" --ro "$tree" "$tree" \
        --ro "$scratch/submission" "$tree/submission" --rw "$scratch/build" "$tree/build" \
        --cd "$tree" -- make -s --no-print-directory BUILD=build GRADE_DIR=submission \
        ${ARCH:+ARCH="$ARCH"} ${DEVICE_CODE:+DEVICE_CODE="$DEVICE_CODE"} ${NVCC:+NVCC="$NVCC"} \
        "$@" < /dev/null >> "$log" 2>&1 3<&- 5>&- 6>&- 8>&- 9>&-
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
        # (a file that is no exercise of the handout, which only the
        # instructor's fixtures graded without the comparison can be, is
        # its own referee: the fixtures are the instructor's code)
        local source=$tree/exercises/$exercise.cu
        [ -f "$source" ] || [ "$compare" != no ] || source=$scratch/submission/$exercise.cu
        if [ ! -f "$pristine/submission/$exercise.cu" ]; then
            cp "$source" "$pristine/submission/$exercise.cu" &&
                chmod a+r "$pristine/submission/$exercise.cu" || exit 2
        fi
        scratch=$pristine
        # A host check after the program: the one compile both link is then
        # kept in the cache with the program, where the grading of the
        # untouched exercise finds it (built as a host check alone, its
        # object was not kept, and that grading compiled it again).
        if [ "$target" = host ]; then build_target "$exercise" program || exit; fi
        build_target "$exercise" "$target"
    )
}
