# tests/suites/12-cards.sh - every student's card: make builds for the card
# it finds (ARCH= overrides, a documented default without one), every
# chapter compiles for the oldest and the newest architectures, and a run
# kept to a smaller card's limits (WORKBOOK_CARD) refuses to file its times.
# The runs kept to a T4's, an A100's and an L4's limits are `make
# verify-cards` on a GPU (notes/cards.md), not part of make test.
# test-runner: about 200 s (its compiles)

cards_scratch=$LOGS/cards
rm -rf "$cards_scratch" && mkdir -p "$cards_scratch/bin"
# A stand-in nvidia-smi that reports an RTX 4090's compute capability.
printf '#!/bin/sh\necho "8.9"\n' > "$cards_scratch/bin/nvidia-smi"
chmod +x "$cards_scratch/bin/nvidia-smi"
expect_output "make builds for the card nvidia-smi reports (8.9: sm_89)" "^sm_89$" \
    env PATH="$cards_scratch/bin:$PATH" make -s --no-print-directory arch BUILD="$cards_scratch/build"
expect_output "ARCH= overrides the card found" "^sm_75$" \
    env PATH="$cards_scratch/bin:$PATH" make -s --no-print-directory arch ARCH=sm_75 BUILD="$cards_scratch/build"
# With no card (no nvidia-smi, and the toolkit's query finds no driver):
# Hopper, as the README says. The PATH keeps make, nvcc's folder and the shell.
printf '#!/bin/sh\nexit 9\n' > "$cards_scratch/bin/nvidia-smi"
expect_output "without a card make builds for sm_90, the documented default" "^sm_90$" \
    env PATH="$cards_scratch/bin:$PATH" make -s --no-print-directory arch NVCC=/nonexistent/nvcc BUILD="$cards_scratch/build"
expect_output "the README documents the default" "sm_90.*no card|no card.*sm_90" cat README.md

# nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc on
# some machines, with no toolkit folder on PATH): the generated mains, built
# by the host compiler, still find the toolkit's headers (nvcc says where).
mkdir -p "$cards_scratch/wrapper"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$(make -s --no-print-directory print-nvcc)" > "$cards_scratch/wrapper/nvcc"
chmod +x "$cards_scratch/wrapper/nvcc"
expect_status "a main compiles when nvcc is a wrapper outside the toolkit" 0 \
    sh -c "${CXX:-g++} \$(make -s --no-print-directory print-main-cxxflags NVCC='$cards_scratch/wrapper/nvcc') \
        -x c++ -c build/gen/chapter2.cu -o '$cards_scratch/chapter2-main.o'"

# Rows measured while keeping to another card's limits are the real card's
# times: they must not be filed under its name.
expect_status "WORKBOOK_CARD with --csv is refused before any work" 2 \
    env WORKBOOK_CARD=T4 build/chapter2 --csv "$cards_scratch/rows.csv"
expect_output "the refusal says why" "WORKBOOK_CARD is set" \
    env WORKBOOK_CARD=T4 build/chapter2 --csv "$cards_scratch/rows.csv"

# Every chapter, its tried variants and common/ compile for Turing (no
# cp.async, TF32 or clusters: the fallbacks), Ampere and Ada (no wgmma, no
# copy engine); the default build above is Hopper's. `make build-archs`
# compiles each source once for all the targets (a -gencode each), here
# three; with no BUILD_ARCHS, every target of the cards this nvcc knows.
# Here with the device code's fast compile where nvcc has one (-Ofc max,
# CUDA 12.8 and later; NVCC_FAST_COMPILE in plots/figures.mk): the front end and
# ptxas still translate every kernel for each target, so what does not
# compile for a card fails here, in a third of the time the optimizer takes;
# the programs a student builds are compiled in full.
# Ada's machine code is assembled from Ampere's PTX (one front-end pass less
# a source): no code branches between their capabilities, which is checked.
# The chapters every kernel of which needs sm_90a (chapters 10 to 12: on
# any other card their kernels are stubs that trap, never launched) are
# compiled for the oldest target alone (ARCHS_HOPPER_ONLY_ON, the Makefile
# says why that one).
card_archs=${CARD_ARCHS:-sm_75 sm_80 sm_89}
oldest_arch=${card_archs%% *}
hopper_only=$(make -s --no-print-directory print-hopper-only-folders)
expect_no_output "no code branches between compute capabilities 8.0 and 8.9 (sm_89 from compute_80's PTX)" \
    "__CUDA_ARCH__ *[<>=!]+ *8[1-9]0" grep -rhoE "__CUDA_ARCH__ *[<>=!]+ *[0-9]+" chapters common
expect_status "every chapter and tried variant compiles for $card_archs" 0 \
    make -s --no-print-directory -j"$(nproc)" build-archs BUILD_ARCHS="$card_archs" \
    ARCHS_FLAGS='$(NVCC_FAST_COMPILE)' ARCHS_PTX_OF=sm_89:compute_80 ARCHS_HOPPER_ONLY_ON="$oldest_arch"
# Each fat binary holds machine code for each target (a Hopper-only
# chapter's for the oldest): ptxas leaves its command line ("-arch sm_75
# ...") in every cubin it makes.
archs_objects=$(find build-archs/fatbin -name '*.fatbin' 2>/dev/null | sort)
is_hopper_only() { # FATBIN: of a chapter every kernel of which needs sm_90a
    local folder
    for folder in $hopper_only; do
        case $1 in build-archs/fatbin/chapters/$folder/*) return 0 ;; esac
    done
    return 1
}
for arch in $card_archs; do
    count=0 missing=""
    for object in $archs_objects; do
        [ "$arch" != "$oldest_arch" ] && is_hopper_only "$object" && continue
        count=$((count + 1))
        grep -aq -- "-arch $arch " "$object" || missing+=" $object"
    done
    if [ -z "$archs_objects" ]; then fail "every chapter compiles for $arch" "no fat binaries in build-archs/fatbin"
    elif [ -n "$missing" ]; then fail "every chapter compiles for $arch" "no $arch code in:$missing"
    else pass "every chapter compiles for $arch ($count fat binaries)"; fi
done
# ... and the Hopper-only chapters for that one target: none of the others'
# code was compiled for nothing.
extra=$(for object in $archs_objects; do
            is_hopper_only "$object" || continue
            for arch in $card_archs; do
                [ "$arch" = "$oldest_arch" ] || ! grep -aq -- "-arch $arch " "$object" || echo "$object: $arch"
            done
        done)
if [ -z "$hopper_only" ]; then skip "the Hopper-only chapters compile for $oldest_arch alone" "the list has none"
elif [ -n "$extra" ]; then fail "the Hopper-only chapters compile for $oldest_arch alone" "also: $extra"
else pass "the Hopper-only chapters ($hopper_only) compile for $oldest_arch alone"; fi
# The targets come from the toolkit: a CUDA 12.4 nvcc lists no sm_100 or
# sm_120, and build-archs must not ask it for them.
printf '#!/bin/sh\n[ "$1" = --list-gpu-code ] && printf "sm_50\\nsm_75\\nsm_80\\nsm_86\\nsm_89\\nsm_90\\n"\n' \
    > "$cards_scratch/bin/nvcc-12.4"
chmod +x "$cards_scratch/bin/nvcc-12.4"
expect_output "build-archs takes the targets this nvcc knows (a 12.4 nvcc: sm_75 to sm_90)" \
    "^sm_75 sm_80 sm_86 sm_89 sm_90$" \
    make -s --no-print-directory print-build-archs NVCC="$cards_scratch/bin/nvcc-12.4" \
    BUILD="$cards_scratch/build"
