# tests/suites/18-new-kernel.sh - a kernel is added by writing its code and
# one line of chapters/kernels.list, and nothing else: in a scratch copy, a
# new chapter 14 with a kernel that needs sm_90a, and a chapter 15 that
# includes its header, are found everywhere the list's facts reach (the
# chapters built for sm_90a, the programs, `generate where` and `chapter`,
# the generated main's contender table, the exercises' facts header, --list).
# test-runner: about 20 s

scratch=build/new-kernel
rm -rf "$scratch" && mkdir -p "$scratch/book" "$scratch/build/tools"
# (copies keep their times, so the generator copied last is up to date)
cp -rp Makefile chapters common tools "$scratch/" && cp -p book/*.c book/*.h "$scratch/book/" &&
    cp -p build/tools/generate "$scratch/build/tools/generate"
mkdir -p "$scratch/chapters/14-newer" "$scratch/chapters/15-later"
cat > "$scratch/chapters/14-newer/newer.cuh" <<'EOF'
#pragma once
#include "problems/triangle.h"

static __device__ void newer_body(float *preatt, const float *inp, int T)
{
    if ((int)threadIdx.x < T)
        preatt[threadIdx.x] = inp[threadIdx.x];
}

static __global__ void newer_scores(float *preatt, const float *inp, int T)
{
    newer_body(preatt, inp, T);
}

static inline void launch_newer(const triangle_args *args)
{
    newer_scores<<<1, 32, 0, args->stream>>>(args->preatt, args->inp, args->size.T);
}
EOF
printf '#include "newer.cuh"\nextern const triangle_kernel newer_kernel = {NULL, launch_newer};\n' \
    > "$scratch/chapters/14-newer/newer.cu"
printf '#include "../14-newer/newer.cuh"\n' > "$scratch/chapters/15-later/later.cu"
printf 'trimul    14      best     tensor fp32     sm_90a newer                     newer_kernel\n' \
    >> "$scratch/chapters/kernels.list"

in_scratch() { (cd "$scratch" && "$@"); }
scratch_make() { in_scratch make -s --no-print-directory ARCH=sm_90 BUILD=build "$@"; }

expect_output "the new kernel's chapter, and the one that includes its header, build for sm_90a" \
    "^10-wgmma 11-copy-engine 12-roles 13-layer 14-newer 15-later$" \
    scratch_make --eval 'print-arch-specific: ; @echo $(ARCH_SPECIFIC_FOLDERS)' print-arch-specific
expect_output "make programs: chapter 14 races the new kernel after every chapter's best" \
    "^chapter14 trimul 14 chapter 1 2 3 4 5 8 9 10 11 12 14$" scratch_make programs
expect_output "generate chapter: the new kernel is chapter 14's" "^14$" \
    in_scratch build/tools/generate chapter chapters/kernels.list newer
expect_output "generate where: the new kernel's work is the body its wrapper calls" \
    "^trimul newer chapters/14-newer/newer\.cuh:4 newer_body, the body of __global__ newer_scores$" \
    in_scratch build/tools/generate where chapters/kernels.list

# The program: its main generated and compiled, the new chapter compiled
# for sm_90a, linked with this build's objects of the chapters it races.
build_log=$(log_of "new kernel: the program's objects")
in_scratch make --no-print-directory ARCH=sm_90 BUILD=build build/obj/gen/chapter14.o \
    build/obj/chapters/14-newer/newer.o > "$build_log" 2>&1
expect_output "the new chapter is compiled for sm_90a" "compute_90a.*chapters/14-newer/newer\.cu" \
    cat "$build_log"
expect_output "the generated main's contender table has it, with the list's facts" \
    '^    \{\{"newer", 14, CONTENDER_BEST, GPU_PIPE_TENSOR, TOLERANCE_FP32, 9, 0, 1, "chapters/14-newer/newer\.cuh:4 newer_body' \
    cat "$scratch/build/gen/chapter14.cu"
expect_output "generate facts: the exercises' header has it, with the same facts" \
    '^#define KERNEL_FACTS_newer_kernel \{"newer", 14, CONTENDER_BEST, GPU_PIPE_TENSOR, TOLERANCE_FP32, 9, 0, 1, ' \
    in_scratch build/tools/generate facts chapters/kernels.list
linked=$(scratch_make programs | awk '$1 == "chapter14" { $1 = $2 = $3 = $4 = ""; print }')
# The objects of the chapters it races, as the Makefile names them (not every
# object a folder of build/ happens to hold: one left by an older layout of
# the chapters would be linked too, and define a symbol twice).
earlier=$(for n in $linked; do [ "$n" = 14 ] || echo "$n"; done)
objects=$(make -s --no-print-directory \
    --eval "chapter-objects: ; @echo \$(call chapter_objects,$(echo $earlier))" chapter-objects)
expect_status "the program links" 0 sh -c "$(make -s --no-print-directory print-nvcc) -arch=sm_90 \
    $scratch/build/obj/gen/chapter14.o $scratch/build/obj/chapters/14-newer/newer.o $objects \
    build/libworkbook.a $(make -s --no-print-directory --eval 'nvcclibs: ; @echo $(NVCCLIBS)' nvcclibs) \
    -o $scratch/chapter14"
expect_output "--list names the new kernel, its chapter and where its work is" \
    " newer \(chapter 14\)  chapters/14-newer/newer\.cuh:4 newer_body, the body of __global__ newer_scores$" \
    "$scratch/chapter14" --list
rm -rf "$scratch"
