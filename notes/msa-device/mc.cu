// notes/msa-device/mc.cu - chapter 6's program with the multicast variant's SHARE capped at
// 1, 2 and 4 beside the chapter's kernels, so that one run separates what the bulk copies and
// the new attention buy (fused+mc1: no sharing) from what the multicast buys (fused+mc2, mc4).
// Prints first how many clusters of each shape fit on the GPU at once.
// Diagnostic only. Build from the repository root:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -I. -Xcompiler -fopenmp notes/msa-device/mc.cu \
//        build/libworkbook.a -lcublas -lgomp -o build/mc
#include "msa.h"
#include "chapters/06-fused/fused.cu"

static void share_at_most_1(const msa_args *args) { multicast_launch_with(args, 1, false); }
/* run 4's policy: share whenever it adds no wave, one wave or not */
static void share_in_one_wave(const msa_args *args) { multicast_launch_with(args, 4, true); }

static const msa_kernel mc1 = {"fused+mc1", 6, TOLERANCE_FP32, fused_refuses, NULL,
                               share_at_most_1};
static const msa_kernel mc4 = {"fused+mc4", 6, TOLERANCE_FP32, fused_refuses, NULL,
                               share_in_one_wave};

int main(int argc, char **argv)
{
    if (cudaFree(0) == cudaSuccess) {
        for (int S = 8; S <= 64; S *= 8)
            printf("clusters at once, S=%d: <64,2,4> %d  <64,2,2> %d  <64,1,4> %d  <32,1,4> %d  "
                   "<128,2,4> %d (SMs %d)\n",
                   S, clusters_at_once<64, 2, 4>(S), clusters_at_once<64, 2, 2>(S),
                   clusters_at_once<64, 1, 4>(S), clusters_at_once<32, 1, 4>(S),
                   clusters_at_once<128, 2, 4>(S), device_facts().sm_count);
    }
    const msa_kernel *contenders[] = {&unfused_kernel, &fused_kernel, &mc1, &mc4,
                                      &fused_multicast_kernel};
    return msa_chapter_main(argc, argv, 6, "chapter 6 multicast experiments", contenders, 5);
}
