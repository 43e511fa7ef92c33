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

gpu_info gpu_query(void)
{
    static gpu_info info; /* the device does not change during a run: ask once */
    if (info.sm_count)
        return info;
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
    info.fp32_peak_gflops = gpu_peak_gflops(GPU_PIPE_SIMT, info.sm_count, info.clock_khz * 1e-3,
                                            info.compute_major, info.compute_minor);
    info.tf32_peak_gflops = gpu_peak_gflops(GPU_PIPE_TENSOR, info.sm_count, info.clock_khz * 1e-3,
                                            info.compute_major, info.compute_minor);
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

/* What each kernel was granted so far; a program launches a few dozen. */
#define GPU_MAX_KERNELS_GRANTED 256
static struct {
    const void *kernel;
    size_t bytes;
} granted[GPU_MAX_KERNELS_GRANTED];
static int granted_count;

void gpu_allow_shared_memory(const void *kernel, size_t bytes)
{
    const size_t default_limit = 48 * 1024;
    int k = 0;
    while (k < granted_count && granted[k].kernel != kernel)
        k++;
    const size_t allowed = k < granted_count ? granted[k].bytes : default_limit;
    if (bytes <= allowed)
        return;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)bytes));
    if (k == granted_count) {
        if (granted_count == GPU_MAX_KERNELS_GRANTED) {
            fprintf(stderr, "gpu_allow_shared_memory: more than %d kernels\n",
                    GPU_MAX_KERNELS_GRANTED);
            exit(EXIT_FAILURE);
        }
        granted[granted_count++].kernel = kernel;
    }
    granted[k].bytes = bytes;
}
