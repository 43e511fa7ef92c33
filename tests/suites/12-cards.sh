# tests/suites/12-cards.sh - every student's card: make builds for the card
# it finds (ARCH= overrides, a documented default without one), every
# chapter compiles for the oldest and the newest architectures, and a run
# kept to a smaller card's limits (WORKBOOK_CARD) refuses to file its times.
# The runs kept to a T4's, an A100's and an L4's limits are `make
# verify-cards` on a GPU (notes/cards.md), not part of make test.

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

# Rows measured while keeping to another card's limits are the real card's
# times: they must not be filed under its name.
expect_status "WORKBOOK_CARD with --csv is refused before any work" 2 \
    env WORKBOOK_CARD=T4 build/chapter2 --csv "$cards_scratch/rows.csv"
expect_output "the refusal says why" "WORKBOOK_CARD is set" \
    env WORKBOOK_CARD=T4 build/chapter2 --csv "$cards_scratch/rows.csv"

# Every chapter, its tried variants and common/ compile for Turing (no
# cp.async, TF32 or clusters: the fallbacks), Ampere and Ada (no wgmma, no
# copy engine); the default build above is Hopper's. `make build-archs`
# does all seven targets of CUDA 13 (sm_75 ... sm_120).
for arch in ${CARD_ARCHS:-sm_75 sm_80 sm_89}; do
    expect_status "every chapter compiles for $arch" 0 \
        make -s --no-print-directory -j"$(nproc)" build-archs BUILD_ARCHS="$arch"
done
