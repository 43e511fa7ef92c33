/* gpu.cu - see gpu.h. */
#include "device/gpu.h"

#include <string.h>

/* The Makefile names the target this program was built for (ARCH). */
#ifndef WORKBOOK_ARCH
#define WORKBOOK_ARCH "unknown"
#endif

/* A kernel that does nothing: if the driver finds no code of it for the
 * card, it finds none of the chapters' kernels either (they are built for
 * the same target). */
__global__ void gpu_probe_kernel(void) {}

/* WORKBOOK_CARD, read once: NULL when unset or empty. */
static const gpu_card *emulated_card(void)
{
    const char *wanted = getenv("WORKBOOK_CARD");
    if (!wanted || !*wanted)
        return NULL;
    const gpu_card *card = gpu_card_find(wanted);
    if (!card || strlen(wanted) < 2) {
        fprintf(stderr, "WORKBOOK_CARD=%s: not a card the workbook knows; name one of T4, A10, "
                        "L4, \"RTX 3090\", \"RTX 4090\", A100, H100, H200, B200, \"RTX 5090\"\n",
                wanted);
        exit(2);
    }
    return card;
}

int gpu_emulation_requested(void)
{
    const char *wanted = getenv("WORKBOOK_CARD");
    return wanted && *wanted;
}

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
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    cudaFuncAttributes probe;
    status = cudaFuncGetAttributes(&probe, gpu_probe_kernel);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        fprintf(stderr,
                "this GPU has compute capability %d.%d, and this program was built for %s, "
                "which has no code for it (%s). Rebuild for the card: make clean && make "
                "(make finds the card), or make ARCH=sm_%d%d\n",
                major, minor, WORKBOOK_ARCH, cudaGetErrorName(status), major, minor);
        exit(EXIT_FAILURE);
    }
    const gpu_card *card = emulated_card();
    if (card && (card->major > major || (card->major == major && card->minor > minor))) {
        fprintf(stderr, "WORKBOOK_CARD=%s: that card (compute capability %d.%d) is newer than "
                        "this one (%d.%d); a program can only keep to a smaller card's limits\n",
                getenv("WORKBOOK_CARD"), card->major, card->minor, major, minor);
        exit(2);
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
    const int geforce = gpu_name_is_geforce(info.name);
    info.fp32_peak_gflops = gpu_peak_gflops(GPU_PIPE_SIMT, info.sm_count, info.clock_khz * 1e-3,
                                            info.compute_major, info.compute_minor, geforce);
    info.tf32_peak_gflops = gpu_peak_gflops(GPU_PIPE_TENSOR, info.sm_count, info.clock_khz * 1e-3,
                                            info.compute_major, info.compute_minor, geforce);
    /* The bandwidth from the memory clock and bus width CUDA reports (the
     * number recorded with the results, and so the book's floors); the data
     * sheet only where CUDA reports neither. */
    if (cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
        info.memory_clock_khz = info.bus_width_bits = 0;
    (void)cudaGetLastError();
    info.memory_gbps = gpu_memory_gbps_from(info.memory_clock_khz, info.bus_width_bits);
    if (info.memory_gbps == 0)
        info.memory_gbps = gpu_card_memory_gbps(info.name);
    cudaFuncAttributes probe;
    CUDA_CHECK(cudaFuncGetAttributes(&probe, gpu_probe_kernel));
    info.code_major = probe.ptxVersion / 10;
    info.code_minor = probe.ptxVersion % 10;
    const gpu_card *card = emulated_card();
    if (card) {
        snprintf(info.emulated, sizeof info.emulated, "%s", card->name_part);
        info.compute_major = card->major;
        info.compute_minor = card->minor;
        const size_t limit = gpu_shared_per_block_optin(card->major, card->minor);
        if (limit < info.shared_per_block_optin)
            info.shared_per_block_optin = limit;
    }
    int runtime;
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    snprintf(info.cuda_version, sizeof info.cuda_version, "%d.%d", runtime / 1000,
             (runtime % 1000) / 10);
    return info;
}

int gpu_lacks_capability(const gpu_info *gpu, int major, int minor, int arch_specific, char *why,
                         size_t capacity)
{
    const int needed = 10 * major + minor;
    const int card = 10 * gpu->compute_major + gpu->compute_minor;
    const int code = 10 * gpu->code_major + gpu->code_minor;
    const char *as = gpu->emulated[0] ? " (as WORKBOOK_CARD caps it)" : "";
    if (card < needed || (arch_specific && card != needed))
        snprintf(why, capacity, "needs compute capability %d.%d%s; this card%s is %d.%d", major,
                 minor, arch_specific ? " exactly (its architecture-specific instructions)" : "",
                 as, gpu->compute_major, gpu->compute_minor);
    else if (code < needed)
        snprintf(why, capacity, "needs compute capability %d.%d; this program was built for "
                 "%d.%d (make ARCH=sm_%d%d builds for the card)", major, minor, gpu->code_major,
                 gpu->code_minor, gpu->compute_major, gpu->compute_minor);
    else
        return 0;
    return 1;
}

int gpu_lacks_shared_memory(const gpu_info *gpu, size_t bytes, const char *what, char *why,
                            size_t capacity)
{
    if (bytes <= gpu->shared_per_block_optin)
        return 0;
    snprintf(why, capacity, "%s needs %zu bytes of shared memory per block; this card%s allows %zu",
             what, bytes, gpu->emulated[0] ? " (as WORKBOOK_CARD caps it)" : "",
             gpu->shared_per_block_optin);
    return 1;
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
    const gpu_info gpu = gpu_query();
    if (bytes > gpu.shared_per_block_optin) {
        fprintf(stderr, "gpu_allow_shared_memory: a kernel asks for %zu bytes of shared memory "
                        "per block, more than this card%s allows (%zu): its fit check should "
                        "have skipped it\n",
                bytes, gpu.emulated[0] ? " (as WORKBOOK_CARD caps it)" : "",
                gpu.shared_per_block_optin);
        exit(EXIT_FAILURE);
    }
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
