/* timing.cu - see timing.h. */
#include "harness/timing.h"

#include <stdlib.h>

#include "device/gpu.h"

static void *flush_buffer;
static size_t flush_bytes;

static void flush_l2(cudaStream_t stream, int rep)
{
    if (!flush_buffer) {
        int device, l2_bytes;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
        flush_bytes = 2 * (size_t)(l2_bytes > 0 ? l2_bytes : 64 << 20);
        CUDA_CHECK(cudaMalloc(&flush_buffer, flush_bytes));
    }
    CUDA_CHECK(cudaMemsetAsync(flush_buffer, rep & 0xff, flush_bytes, stream));
}

typedef void (*launch_once_fn)(void *launch_context, cudaStream_t stream);

static timing_summary time_repetitions(launch_once_fn launch, void *launch_context,
                                       cudaStream_t stream, int reps)
{
    for (int i = 0; i < TIMING_WARMUP_RUNS; i++)
        launch(launch_context, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *samples = (double *)malloc(sizeof(double) * (size_t)reps);
    for (int rep = 0; rep < reps; rep++) {
        flush_l2(stream, rep);
        CUDA_CHECK(cudaEventRecord(start, stream));
        launch(launch_context, stream);
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[rep] = ms;
    }
    timing_summary summary = summarize_times(samples, reps);
    free(samples);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return summary;
}

typedef struct {
    gpu_work_fn work;
    void *context;
} direct_launch;

static void launch_direct(void *launch_context, cudaStream_t stream)
{
    direct_launch *direct = (direct_launch *)launch_context;
    direct->work(direct->context, stream);
}

timing_summary time_gpu_work(gpu_work_fn work, void *context, cudaStream_t stream, int reps)
{
    direct_launch direct = {work, context};
    return time_repetitions(launch_direct, &direct, stream, reps);
}

static void launch_graph(void *launch_context, cudaStream_t stream)
{
    CUDA_CHECK(cudaGraphLaunch(*(cudaGraphExec_t *)launch_context, stream));
}

timing_summary time_gpu_graph(gpu_work_fn work, void *context, cudaStream_t stream, int reps)
{
    /* Warm the work up outside the capture: cuBLAS may allocate on its first call. */
    work(context, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t replay;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    work(context, stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&replay, graph, 0));
    timing_summary summary = time_repetitions(launch_graph, &replay, stream, reps);
    CUDA_CHECK(cudaGraphExecDestroy(replay));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return summary;
}
