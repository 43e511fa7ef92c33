// notes/precision-device/mma_probe.cu - how fast mma.sync runs on one GPU (eighth session,
// 2026-12-02): every warp issues 4096 rounds of 8 independent products, TF32 m16n8k8 and
// FP16 m16n8k16, 132 blocks of 4 to 16 warps, timed with events.
//
//   nvcc -O3 -arch=sm_90 notes/precision-device/mma_probe.cu -o mma_probe && ./mma_probe
#include <cstdio>
#include <cstdint>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)
__device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <bool F16>
__global__ void probe(float *out, int iters) {
    uint32_t a[4], b0 = 0x3c003c00u ^ threadIdx.x, b1 = 0x3f800000u ^ threadIdx.x;
    for (int i = 0; i < 4; i++) a[i] = 0x3f800000u + threadIdx.x + i;
    float c[8][4] = {};
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) { if (F16) mma16(c[k], a, b0, b1); else mma(c[k], a, b0, b1); }
    }
    float s = 0; for (int k = 0; k < 8; k++) for (int i = 0; i < 4; i++) s += c[k][i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int clk; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    float *out; CK(cudaMalloc(&out, 1 << 24));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int f16 = 0; f16 < 2; f16++)
    for (int warps : {4, 8, 12, 16}) {
        const int iters = 4096;
        for (int rep = 0; rep < 2; rep++) {
            cudaEventRecord(e0);
            if (f16) probe<true><<<sms, warps * 32>>>(out, iters); else probe<false><<<sms, warps * 32>>>(out, iters);
            cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            const double macs = (double)sms * warps * iters * 8 * (f16 ? 2048.0 : 1024.0);
            const double cycles = ms * 1e-3 * 1.98e9; /* boost clock of the H200 */
            if (rep) printf("%s warps/SM %2d: %.3f ms, %.1f TFLOP/s, %.0f MAC/clk/SM at 1.98 GHz, %.1f clk per mma per scheduler\n",
                   f16 ? "f16 m16n8k16 " : "tf32 m16n8k8", warps, ms, 2 * macs / ms / 1e9,
                   macs / sms / cycles, cycles / ((double)warps / 4 * iters * 8));
        }
    }
    return 0;
}
