# tests/suites/72-figures.sh - the figures drawn from the code (plots/figures.mk).
#
# Every figure builds (its program, gnuplot or graphviz) into a scratch
# folder, non-empty, with a one-line caption and the Markdown the book
# shows; `make plots` draws them too, after the plots; every figure is cited
# by a chapter and every {{figure|...}} of a chapter is a plot or a figure.
# Then the point of drawing from the kernels' own index functions: for the
# mapping figures below, a small change to a scratch copy of the index
# function (the padding, a fragment's rows, which tiles return, a thread's
# first key, how far ahead the GEMM's copies run, the barriers' parities of
# the warps with roles) changes the figure's data, and the data drawn from the real
# sources is the data committed in tests/fixtures/figures/.
# Every plot and figure reads at a glance (tests/book/chart_overlaps.py:
# no line through a label, no overlap, the key clear of the axes' titles,
# under 200 KB), the check itself shown to catch a race chart drawn before.
# Scratch builds go to build/figure-tests/, never to plots/out. The figure
# programs are the ones the book's build compiles, in build/figures/bin
# (FIGURE_BIN): one already compiled and up to date is not compiled again,
# one that is not is compiled there, under a temporary name of its own and
# renamed whole (plots/figures.mk), so make book may run beside this suite.
# test-runner: about 90 s

figure_scratch=build/figure-tests
figure_bin=build/figures/bin
rm -rf "$figure_scratch"
mkdir -p "$figure_scratch"


figure_names=$(make --no-print-directory -s figure-names 2>/dev/null)
expect_status "the list of figures is read from plots/figures.mk" 0 test -n "$figure_names"

if ! tool_missing "make figures" gnuplot && ! tool_missing "make figures" dot; then
    out=$figure_scratch/out
    expect_status "make figures builds every figure" 0 \
        make --no-print-directory figures PLOTS_OUT=$out FIGURES_WORK=$figure_scratch/work FIGURE_BIN=$figure_bin
    for name in $figure_names; do
        expect_status "figure $name: a non-empty SVG" 0 sh -c \
            "test -s $out/$name.svg && grep -q '<svg' $out/$name.svg && grep -q '</svg>' $out/$name.svg"
        expect_status "figure $name: a one-line caption" 0 sh -c \
            "test -s $out/$name.caption && test \$(wc -l < $out/$name.caption) -eq 1"
        expect_status "figure $name: its Markdown for the book" 0 sh -c \
            "test \"\$(head -n 1 $out/$name.md)\" = \"![\$(cat $out/$name.caption)]($out/$name.svg){#fig-$name}\" && \
             test \"\$(sed -n 2p $out/$name.md)\" = '' && test \$(wc -l < $out/$name.md) -eq 2"
    done
    expect_status "make figures again compiles nothing" 0 sh -c \
        "make --no-print-directory figures PLOTS_OUT=$out FIGURES_WORK=$figure_scratch/work FIGURE_BIN=$figure_bin \
            > $figure_scratch/again.log 2>&1 && \
         ! grep -q nvcc $figure_scratch/again.log"

    # make plots empties its folder first: the figures must still be there after it
    expect_status "make plots draws the figures after the plots" 0 \
        make --no-print-directory plots PLOTS_OUT=$figure_scratch/plots PLOTS_PNG=$figure_scratch/png \
            PLOTS_WORK=$figure_scratch/plotwork FIGURES_WORK=$figure_scratch/work FIGURE_BIN=$figure_bin
    for name in $figure_names; do
        expect_status "make plots leaves figure $name in place" 0 \
            test -s $figure_scratch/plots/$name.svg -a -s $figure_scratch/plots/$name.md
    done

    # Charts read at a glance (tests/book/chart_overlaps.py): no line through a
    # label, no label on another, the key clear of the axes' titles, each SVG
    # under 200 KB. The check is shown to catch a race chart drawn before
    # those rules (its floors and grid through the numbers, the key against
    # the axis's title), then run on every plot and figure just drawn.
    if ! tool_missing "the charts' overlaps" python3; then
        expect_output "chart check: a race chart with a floor through its numbers fails" \
            "^overlapping-race\.svg: line through '1\.28× \(0\.178 ms\)'" \
            python3 tests/book/chart_overlaps.py tests/fixtures/figures/overlapping-race.svg
        expect_output "... and its key against the axis's title" \
            "^overlapping-race\.svg: the key touches 'speedup over cublas-tf32 \(longer is faster\)'" \
            python3 tests/book/chart_overlaps.py tests/fixtures/figures/overlapping-race.svg
        expect_status "... exit 1" 1 python3 tests/book/chart_overlaps.py tests/fixtures/figures/overlapping-race.svg
        printf '%s\n' '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50">' \
            '<g font-size="14" text-anchor="middle"><text x="20" y="30">0.1</text><text x="42" y="30">0.2</text></g>' \
            '</svg>' > $figure_scratch/ticks.svg
        expect_output "... two ticks that run together fail" "^ticks\.svg: '0\.1' on '0\.2'" \
            python3 tests/book/chart_overlaps.py $figure_scratch/ticks.svg
        head -c 210000 /dev/zero | tr '\0' ' ' | sed '1s|^|<svg xmlns="http://www.w3.org/2000/svg"></svg>|' \
            > $figure_scratch/big.svg
        expect_output "... an SVG over 200 KB fails" "^big\.svg: 210 KB, over the 200 KB limit" \
            python3 tests/book/chart_overlaps.py $figure_scratch/big.svg
        for svg in $figure_scratch/plots/*.svg; do
            expect_output "chart $(basename "$svg" .svg) reads at a glance (no line through a label, no overlap, under 200 KB)" \
                "^checked 1 charts, 0 faults\$" python3 tests/book/chart_overlaps.py "$svg"
        done
    fi
fi

# Every figure is cited by a chapter, and every citation names a figure or a plot.
for name in $figure_names; do
    expect_status "figure $name is cited by a chapter" 0 \
        grep -qx "{{figure|$name}}" $(ls chapters/[0-9][0-9]-*/*.cu chapters/[0-9][0-9]-*/*.cuh)
done
cited=$(sed -n 's/^{{figure|\(.*\)}}$/\1/p' chapters/[0-9][0-9]-*/*.cu chapters/[0-9][0-9]-*/*.cuh | sort -u)
for name in $cited; do
    expect_status "{{figure|$name}} names a figure or a plot" 0 sh -c \
        "echo ' $figure_names ' | grep -q ' $name ' || test -f plots/$name.gp || test -f plots/${name%%-*}.gp"
done

# ------------------------------------------------------------ drawn from the code
# mutated_figure NAME FILE SED ROOT: the data of figure NAME, drawn from a
# scratch copy of the sources in ROOT with SED applied to FILE, into
# ROOT/build/figures/data/. Only plots/figures.mk is read there (with the
# Makefile's nvcc), so the one program compiled is the figure's own.
figure_nvcc=$(make --no-print-directory -s --eval 'figure-nvcc: ; @echo $(NVCC)' figure-nvcc)
mutated_figure() {
    local name=$1 file=$2 edit=$3 root=$4
    rm -rf "$root" && mkdir -p "$root/plots"
    cp -r chapters common tools "$root/" && cp -r plots/figures.mk plots/figures "$root/plots/"
    sed -i "$edit" "$root/$file" || return 1
    if cmp -s "$file" "$root/$file"; then echo "the edit '$edit' changed nothing in $file"; return 1; fi
    make --no-print-directory -C "$root" -f plots/figures.mk NVCC="$figure_nvcc" FIGURES_WORK=build/figures \
        "build/figures/data/$name.caption"
}

# figure_is_drawn_from NAME FILE SED WHAT PATTERN: the real data of figure NAME is
# the committed one; with SED applied to a copy of FILE it differs, and its
# numbers (NAME.vars.gp) then match PATTERN. Each call adds a mutant to the
# lists below; the mutants are drawn two at a time, then judged in order.
mutant_names=() mutant_files=() mutant_edits=() mutant_whats=() mutant_patterns=()
figure_is_drawn_from() {
    mutant_names+=("$1") mutant_files+=("$2") mutant_edits+=("$3") mutant_whats+=("$4") mutant_patterns+=("$5")
}

figure_is_drawn_from bank-map chapters/05-shared/shared.cuh \
    's/^#define SHARED_PAD 4 /#define SHARED_PAD 0 /' "the padding is 0" "^wavefronts2 = 2$"
figure_is_drawn_from mma-fragments common/device/tensor_core.h \
    's|return lane / 4 + 8 \* (i % 2);|return lane / 4 + 8 * (i / 2);|' "A's rows are swapped" "^cells_a = 64$"
figure_is_drawn_from tile-grid chapters/02-naive/naive.cuh \
    's|return tile_col > tile_row;|return tile_col >= tile_row;|' "diagonal blocks return" "^returning = 36$"
figure_is_drawn_from warp-sectors chapters/03-registers/registers.cuh \
    's|return tile_col \* REGISTERS_TILE + tx \* REGISTERS_THREAD_TILE;|return tile_col * REGISTERS_TILE + tx;|' \
    "a thread's keys are neighbours" "^note0 = \"16 keys, 1 apart"
figure_is_drawn_from weight-stage chapters/11-copy-engine/gemm.cuh \
    's|(kk / 4) \* 32 + (n % 8) \* 4|(kk / 4) * 4 + (n % 8) * 32|' \
    "a core matrix's 16-byte rows run along n" "^whole = 0$"
# the ring of chapter 11's GEMM: thread 0 copies one stage ahead, not two; a
# full wait's parity that flips every stage, not every round of the ring; an
# empty wait's parity off by one round: the figure's model of the mbarrier
# catches both parities (its script then draws nothing)
figure_is_drawn_from gemm-pipeline chapters/11-copy-engine/gemm.cuh \
    's|^#define GEMM_AHEAD 2 |#define GEMM_AHEAD 1 |' "thread 0 copies one stage ahead" "^ahead = 1$"
figure_is_drawn_from gemm-pipeline chapters/11-copy-engine/gemm.cuh \
    's|return s / GEMM_STAGES % 2;|return s % 2;|' "the parity flips every stage" "^wrong_full = [1-9]"
figure_is_drawn_from gemm-pipeline chapters/11-copy-engine/gemm.cuh \
    's|return (s / GEMM_STAGES - 1) % 2;|return s / GEMM_STAGES % 2;|' "the empty wait's parity is a round late" \
    "^(races|deadlocks) = [1-9]"
# chapter 11's triangle with the copy engine both ways: a warp that stages
# the tile on the diagonal would write masked scores; one that skips it loses
# kept ones; one stage a warp is drawn as such; a refill one step late is a
# tile asked for after the step that needs it
figure_is_drawn_from store-pipeline chapters/11-copy-engine/store.cuh \
    's|if (c \* keys + keys - 1 <= top)|if (c * keys <= top)|' "the diagonal tile is staged" \
    "^masked_written = [1-9]"
figure_is_drawn_from store-pipeline chapters/11-copy-engine/store.cuh \
    's|return c \* keys <= top + STAGE_ROWS - 1 ? SCORES_BY_LANES : SCORES_NONE;|return SCORES_NONE;|' \
    "the diagonal tile is not written" "^lost = [1-9]"
figure_is_drawn_from store-pipeline chapters/11-copy-engine/store.cuh \
    's|^#define STAGES 2 |#define STAGES 1 |' "one stage a warp" "^stages = 1$"
figure_is_drawn_from store-pipeline chapters/11-copy-engine/store.cuh \
    's|return c - 1 + key_ring<HS, PRODUCTS>::SLOTS;|return c + key_ring<HS, PRODUCTS>::SLOTS;|' \
    "the ring is refilled a step late" "^unasked = [1-9]"
# chapter 12's warps with roles, run through the figure's model of the
# barriers: a storer that frees a stage a step later than the group's next
# use of it waits for a group that waits for it (a deadlock); a full wait
# whose parity names the phase before passes before the keys have landed (a
# race); an empty wait whose parity names the phase after never passes (a
# deadlock); a group that stages its tile on the diagonal writes masked scores
figure_is_drawn_from roles-timeline chapters/12-roles/roles.cuh \
    's|    return stages - 1;|    return stages;|' "the storer frees a stage a step late" "^deadlocks = [1-9]"
figure_is_drawn_from roles-timeline chapters/12-roles/roles.cuh \
    's|    return (unsigned)use & 1;|    return ((unsigned)use \& 1) ^ 1;|' "a full wait's parity is a phase early" \
    "^races = [1-9]"
figure_is_drawn_from roles-timeline chapters/12-roles/roles.cuh \
    's|    return ((unsigned)use & 1) ^ 1;|    return (unsigned)use \& 1;|' "an empty wait's parity is a phase late" \
    "^deadlocks = [1-9]"
figure_is_drawn_from roles-timeline chapters/12-roles/roles.cuh \
    's|    if (c \* keys + keys - 1 <= top)|    if (c * keys <= top)|' "the diagonal tile is staged" \
    "^masked_written = [1-9]"
figure_is_drawn_from key-order chapters/13-layer/layer.cuh \
    's|return hd < 32 ? hd : 32;|return hd < 16 ? hd : 16;|' "a panel is 16 features" "^panel = 16$"
figure_is_drawn_from swizzled-box common/device/tensor_map.h \
    's|((col / 4) ^ (row % 8)) \* 4|(col / 4) * 4|' "the box is not swizzled" "^ways = 8$"

# Each mutant in its own folder: its copy of the sources (root/), the output
# of its build (log) and the build's exit status (status).
mutant_pids=()
for i in "${!mutant_names[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    mkdir -p "$figure_scratch/mutant-$i"
    ( mutated_figure "${mutant_names[$i]}" "${mutant_files[$i]}" "${mutant_edits[$i]}" \
          "$figure_scratch/mutant-$i/root" > "$figure_scratch/mutant-$i/log" 2>&1
      echo $? > "$figure_scratch/mutant-$i/status" ) &
    mutant_pids+=($!)
done
wait "${mutant_pids[@]}"
built_mutant() {  # built_mutant DIR: the mutant's build again, as it ended: its output, its exit status
    cat "$1/log"
    return "$(cat "$1/status" 2>/dev/null || echo 1)"
}
real=$figure_scratch/work/data
for i in "${!mutant_names[@]}"; do
    name=${mutant_names[$i]} mutant=$figure_scratch/mutant-$i/root/build/figures/data
    if [ ! -f "$real/$name.dat" ]; then
        make --no-print-directory "$real/$name.caption" FIGURES_WORK=$figure_scratch/work FIGURE_BIN=$figure_bin \
            > "$(log_of "figure $name data")" 2>&1
    fi
    expect_status "figure $name: the data drawn from the sources is the committed one" 0 \
        cmp "$real/$name.dat" tests/fixtures/figures/$name.dat
    expect_status "figure $name: drawn again from a copy where ${mutant_whats[$i]}" 0 \
        built_mutant "$figure_scratch/mutant-$i"
    expect_status "figure $name: ... its data changes" 1 cmp -s "$real/$name.dat" "$mutant/$name.dat"
    expect_output "figure $name: ... and says so" "${mutant_patterns[$i]}" cat "$mutant/$name.vars.gp"
done
