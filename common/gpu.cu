/* gpu.cu - see gpu.h. */
#include "gpu.h"

#include <string.h>

void gpu_require(void)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        printf("SKIPPED: no usable CUDA GPU: %s: %s\n", cudaGetErrorName(status),
               cudaGetErrorString(status));
        exit(EXIT_SKIPPED);
    }
    if (count == 0) {
        printf("SKIPPED: no usable CUDA GPU: cudaGetDeviceCount found none\n");
        exit(EXIT_SKIPPED);
    }
}

int gpu_fp32_lanes_per_sm(int major, int minor)
{
    /* Volta, Turing and the A100 (8.0) have 64 FP32 lanes per SM; the GA10x
     * parts (8.6, 8.7, 8.9), Hopper (9.0) and Blackwell have 128. */
    if (major < 8 || (major == 8 && minor == 0))
        return 64;
    return 128;
}

gpu_info gpu_query(void)
{
    gpu_info info;
    memset(&info, 0, sizeof info);
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp props;
    CUDA_CHECK(cudaGetDeviceProperties(&props, device));
    snprintf(info.name, sizeof info.name, "%s", props.name);
    info.compute_major = props.major;
    info.compute_minor = props.minor;
    info.sm_count = props.multiProcessorCount;
    info.l2_bytes = props.l2CacheSize;
    info.shared_per_block_optin = props.sharedMemPerBlockOptin;
    CUDA_CHECK(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, device));
    info.fp32_peak_gflops = (double)info.sm_count *
                            gpu_fp32_lanes_per_sm(info.compute_major, info.compute_minor) *
                            2.0 * info.clock_khz * 1e-6;
    int runtime;
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    snprintf(info.cuda_version, sizeof info.cuda_version, "%d.%d", runtime / 1000,
             (runtime % 1000) / 10);
    return info;
}

size_t gpu_free_bytes(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

void gpu_fill_nan(float *device_values, size_t count, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(device_values, 0xFF, count * sizeof(float), stream));
}

void gpu_allow_shared_memory(const void *kernel, size_t bytes, size_t *allowed)
{
    if (bytes > *allowed) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)bytes));
        *allowed = bytes;
    }
}
