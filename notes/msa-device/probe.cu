// notes/msa-device/probe.cu - launch-latency probe: what an event pair around an (almost) empty kernel
// measures on this GPU, timed like common/timing.cu (L2 flushed before each).
#include <cstdio>
#include <algorithm>
#include <vector>
__global__ void empty_kernel(float *p) { if (p && threadIdx.x == 1000) p[0] = 1; }
__global__ void touch_kernel(const float *w, float *out, int n) {
    // each block reads n floats (like weights) and writes one value
    float s = 0; for (int i = threadIdx.x; i < n; i += blockDim.x) s += w[i];
    if (s == 12345.f) out[blockIdx.x] = s;
}
int main() {
    void *flush; size_t fb = 120u << 20; cudaMalloc(&flush, fb);
    float *w; cudaMalloc(&w, 1 << 20); cudaMemset(w, 0, 1 << 20);
    cudaStream_t st; cudaStreamCreate(&st);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto timeit = [&](const char *name, auto launch) {
        for (int i = 0; i < 5; i++) launch();
        cudaStreamSynchronize(st);
        std::vector<float> t;
        for (int r = 0; r < 100; r++) {
            cudaMemsetAsync(flush, r, fb, st);
            cudaEventRecord(a, st); launch(); cudaEventRecord(b, st);
            cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        printf("probe %-40s median %.4f ms min %.4f ms\n", name, t[50], t[0]);
    };
    timeit("empty kernel, 1 block", [&] { empty_kernel<<<1, 32, 0, st>>>(nullptr); });
    timeit("empty kernel, 128 blocks x 256", [&] { empty_kernel<<<128, 256, 0, st>>>(nullptr); });
    timeit("128 blocks read 40 KB each (cold L2)", [&] { touch_kernel<<<128, 256, 0, st>>>(w, w + 200000, 10240); });
    timeit("64 blocks read 80 KB each (cold L2)", [&] { touch_kernel<<<64, 256, 0, st>>>(w, w + 200000, 20480); });
    printf("probe status: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
