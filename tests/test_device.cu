/* tests/test_device.cu - the device helpers of common/ on the GPU: cp.async
 * (async_copy.h), warp sums and maxima (warp_reduce.h), TF32 operands and
 * mma.sync (tensor_core.h), the 3xTF32 split (tf32_split.h), the
 * shared-memory opt-in (gpu.h), and the copy engine's box and bulk copies
 * with their barrier (bulk_copy.h, tensor_map.h; Hopper only). Each test
 * runs one small kernel and compares with what the host computes.
 *
 *   make build/tests/test_device && build/tests/test_device
 *
 * Prints one "ok"/"not ok" line per test (TAP) and exits 0 when all pass,
 * 1 when one fails, 77 when there is no GPU.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "device/async_copy.h"
#include "device/bulk_copy.h"
#include "device/gpu.h"
#include "device/tensor_map.h"
#include "device/tensor_core.h"
#include "device/tf32_split.h"
#include "device/warp_reduce.h"

static int tests_run, tests_failed;

static void report(int passed, const char *name)
{
    tests_run++;
    if (!passed)
        tests_failed++;
    printf("%s %d - %s\n", passed ? "ok" : "not ok", tests_run, name);
}

/* ---------------------------------------------------------------- cp.async */

/* Copies 256 floats into shared memory in the three ways async_copy.h offers
 * (16-byte pieces, single floats, single floats only where `odd` lanes say
 * so), waits, and writes shared memory back out. */
__global__ void copy_kernel(float *out16, float *out4, float *out4_if, const float *in)
{
    __shared__ __align__(16) float by16[256], by4[256], by4_if[256];
    const int t = threadIdx.x; /* 64 threads */
    by4_if[t] = by4_if[t + 64] = by4_if[t + 128] = by4_if[t + 192] = -1.0f;
    __syncthreads();
    copy_async_16(by16 + 4 * t, in + 4 * t);
    copy_async_commit();
    for (int k = 0; k < 4; k++)
        copy_async_4(by4 + t + 64 * k, in + t + 64 * k);
    copy_async_commit();
    for (int k = 0; k < 4; k++)
        copy_async_4_if(by4_if + t + 64 * k, in + t + 64 * k, t % 2 == 1);
    copy_async_commit();
    copy_async_wait<2>(); /* the 16-byte group has landed */
    __syncthreads();
    for (int k = 0; k < 4; k++)
        out16[t + 64 * k] = by16[t + 64 * k];
    copy_async_wait_at_most(0);
    __syncthreads();
    for (int k = 0; k < 4; k++) {
        out4[t + 64 * k] = by4[t + 64 * k];
        out4_if[t + 64 * k] = by4_if[t + 64 * k];
    }
}

static void test_async_copies(void)
{
    float host_in[256], got16[256], got4[256], got4_if[256];
    for (int i = 0; i < 256; i++)
        host_in[i] = 0.5f * i - 17.0f;
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, sizeof host_in));
    CUDA_CHECK(cudaMalloc(&out, 3 * sizeof host_in));
    CUDA_CHECK(cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice));
    copy_kernel<<<1, 64>>>(out, out + 256, out + 512, in);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(got16, out, sizeof got16, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got4, out + 256, sizeof got4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got4_if, out + 512, sizeof got4_if, cudaMemcpyDeviceToHost));
    int ok16 = 1, ok4 = 1, ok_if = 1;
    for (int i = 0; i < 256; i++) {
        ok16 &= got16[i] == host_in[i];
        ok4 &= got4[i] == host_in[i];
        ok_if &= got4_if[i] == (i % 2 == 1 ? host_in[i] : -1.0f);
    }
    report(ok16, "copy_async_16 and copy_async_wait<2> move 16-byte pieces");
    report(ok4, "copy_async_4 and copy_async_wait_at_most(0) move single floats");
    report(ok_if, "copy_async_4_if copies only where asked");
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
}

/* ---------------------------------------------------------------- warp reductions */

__global__ void reduce_kernel(float *sums, float *maxima, float *group_sums, float *group_maxima,
                              const float *in)
{
    const float v = in[threadIdx.x];
    sums[threadIdx.x] = warp_sum(v);
    maxima[threadIdx.x] = warp_max(v);
    group_sums[threadIdx.x] = warp_sum<8>(v);
    group_maxima[threadIdx.x] = warp_max<4>(v);
}

static void test_warp_reductions(void)
{
    float host_in[32], got[4][32];
    for (int i = 0; i < 32; i++)
        host_in[i] = (float)((i * 7) % 32) - 11.0f; /* small integers: sums are exact */
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, sizeof host_in));
    CUDA_CHECK(cudaMalloc(&out, sizeof got));
    CUDA_CHECK(cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice));
    reduce_kernel<<<1, 32>>>(out, out + 32, out + 64, out + 96, in);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    int ok_sum = 1, ok_max = 1, ok_group_sum = 1, ok_group_max = 1;
    for (int lane = 0; lane < 32; lane++) {
        float sum = 0, top = -INFINITY, group_sum = 0, group_top = -INFINITY;
        for (int i = 0; i < 32; i++) {
            sum += host_in[i];
            top = fmaxf(top, host_in[i]);
            if (i / 8 == lane / 8)
                group_sum += host_in[i];
            if (i / 4 == lane / 4)
                group_top = fmaxf(group_top, host_in[i]);
        }
        ok_sum &= got[0][lane] == sum;
        ok_max &= got[1][lane] == top;
        ok_group_sum &= got[2][lane] == group_sum;
        ok_group_max &= got[3][lane] == group_top;
    }
    report(ok_sum, "warp_sum gives every lane the warp's total");
    report(ok_max, "warp_max gives every lane the warp's maximum");
    report(ok_group_sum, "warp_sum<8> sums each group of 8 lanes apart");
    report(ok_group_max, "warp_max<4> takes each group of 4 lanes apart");
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
}

/* ---------------------------------------------------------------- TF32 and mma.sync */

__global__ void tf32_kernel(uint32_t *rounded, uint32_t *cut, const float *in)
{
    rounded[threadIdx.x] = tf32_operand<true>(in[threadIdx.x]);
    cut[threadIdx.x] = tf32_operand<false>(in[threadIdx.x]);
}

/* The two splits of tf32_split.h on the device: big, small as it is, small rounded. */
__global__ void split_kernel(uint32_t *out, const float *in)
{
    const tf32_pair cut = split_operand<false>(in[threadIdx.x]);
    const tf32_pair rounded = split_operand<true>(in[threadIdx.x]);
    out[3 * threadIdx.x] = cut.big;
    out[3 * threadIdx.x + 1] = cut.small;
    out[3 * threadIdx.x + 2] = rounded.small;
}

/* One warp, one m16n8k8 product: C = A B with A 16 x 8 (row major), B 8 x 8
 * (B[k][n]), fragments placed as tensor_core.h documents. */
__global__ void mma_kernel(float *c_out, const float *a, const float *b)
{
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const uint32_t fa[4] = {to_tf32(a[g * 8 + t]), to_tf32(a[(g + 8) * 8 + t]),
                            to_tf32(a[g * 8 + t + 4]), to_tf32(a[(g + 8) * 8 + t + 4])};
    const uint32_t b0 = to_tf32(b[t * 8 + g]), b1 = to_tf32(b[(t + 4) * 8 + g]);
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    mma_tf32(c, fa, b0, b1);
    c_out[g * 8 + 2 * t] = c[0];
    c_out[g * 8 + 2 * t + 1] = c[1];
    c_out[(g + 8) * 8 + 2 * t] = c[2];
    c_out[(g + 8) * 8 + 2 * t + 1] = c[3];
}

static void test_tensor_core(void)
{
    enum { COUNT = 256 };
    float host_in[COUNT];
    for (int i = 0; i < COUNT; i++) /* mantissas with every pattern of the low bits */
        host_in[i] = (1.0f + i / 256.0f + i * 1.1920929e-7f) * (i % 2 ? -1.0f : 1.0f) *
                     ldexpf(1.0f, i % 40 - 20);
    host_in[0] = 1.0f + 0.5f * 0.0009765625f; /* exactly half-way between two TF32 values */
    host_in[2] = -ldexpf(1.0f + 3.0f * 0.00048828125f, 60); /* half-way, negative, large */
    host_in[4] = 0.0f;
    host_in[6] = -0.0f;
    host_in[8] = 1.0e-40f; /* subnormal */
    float *in;
    uint32_t *out, rounded[COUNT], cut[COUNT];
    CUDA_CHECK(cudaMalloc(&in, sizeof host_in));
    CUDA_CHECK(cudaMalloc(&out, 2 * sizeof rounded));
    CUDA_CHECK(cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice));
    tf32_kernel<<<1, COUNT>>>(out, out + COUNT, in);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(rounded, out, sizeof rounded, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(cut, out + COUNT, sizeof cut, cudaMemcpyDeviceToHost));
    int ok_round = 1, ok_cut = 1;
    for (int i = 0; i < COUNT; i++) {
        uint32_t bits;
        memcpy(&bits, &host_in[i], sizeof bits);
        ok_round &= rounded[i] == round_to_tf32(host_in[i]); /* tf32_split.h, on the host */
        ok_cut &= cut[i] == bits;
    }
    report(ok_round, "tf32_operand<true> rounds to the nearest TF32 value, ties away from zero");
    report(ok_cut, "tf32_operand<false> passes the float's bits on");

    /* The device's split is the host's (the figure tf32-split is drawn from
     * the host's), its integer rounding gives what cvt.rna gives, and
     * big + small is the float again, exactly. */
    uint32_t *parts, split[3 * COUNT];
    CUDA_CHECK(cudaMalloc(&parts, sizeof split));
    split_kernel<<<1, COUNT>>>(parts, in);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(split, parts, sizeof split, cudaMemcpyDeviceToHost));
    int ok_split = 1;
    for (int i = 0; i < COUNT; i++) {
        const tf32_pair host_cut = split_operand<false>(host_in[i]);
        const tf32_pair host_rounded = split_operand<true>(host_in[i]);
        ok_split &= split[3 * i] == rounded[i] && split[3 * i] == host_cut.big &&
                    split[3 * i + 1] == host_cut.small && split[3 * i + 2] == host_rounded.small &&
                    host_rounded.big == host_cut.big &&
                    bits_as_float(host_cut.big) + bits_as_float(host_cut.small) == host_in[i];
    }
    report(ok_split, "split_operand rounds as cvt.rna does and gives the host's big and small "
                     "parts, which add up to x");
    CUDA_CHECK(cudaFree(parts));
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));

    float a[16 * 8], b[8 * 8], c[16 * 8];
    for (int i = 0; i < 16 * 8; i++) /* values with few mantissa bits: TF32 holds them exactly */
        a[i] = (float)((i * 5) % 13 - 6) * 0.25f;
    for (int i = 0; i < 8 * 8; i++)
        b[i] = (float)((i * 3) % 11 - 5) * 0.5f;
    float *device;
    CUDA_CHECK(cudaMalloc(&device, sizeof a + sizeof b + sizeof c));
    CUDA_CHECK(cudaMemcpy(device, a, sizeof a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device + 128, b, sizeof b, cudaMemcpyHostToDevice));
    mma_kernel<<<1, 32>>>(device + 192, device, device + 128);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(c, device + 192, sizeof c, cudaMemcpyDeviceToHost));
    int ok_mma = 1;
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            float want = 0.0f;
            for (int k = 0; k < 8; k++)
                want += a[m * 8 + k] * b[k * 8 + n];
            ok_mma &= c[m * 8 + n] == want;
        }
    report(ok_mma, "mma_tf32 computes a 16 x 8 x 8 product with the documented fragments");
    CUDA_CHECK(cudaFree(device));
}

/* ---------------------------------------------------------------- shared-memory opt-in */

__global__ void big_shared_kernel(float *out, int floats)
{
    extern __shared__ float space[];
    for (int i = threadIdx.x; i < floats; i += blockDim.x)
        space[i] = (float)i;
    __syncthreads();
    float sum = 0.0f;
    for (int i = threadIdx.x; i < floats; i += blockDim.x)
        sum += space[floats - 1 - i];
    out[threadIdx.x] = sum;
}

static void test_shared_memory_opt_in(void)
{
    const gpu_info gpu = gpu_query();
    const size_t bytes = gpu.shared_per_block_optin;
    float *out;
    CUDA_CHECK(cudaMalloc(&out, 128 * sizeof(float)));
    gpu_allow_shared_memory((const void *)big_shared_kernel, bytes);
    gpu_allow_shared_memory((const void *)big_shared_kernel, 64 * 1024); /* less: nothing to ask */
    big_shared_kernel<<<1, 128, bytes>>>(out, (int)(bytes / sizeof(float)));
    const cudaError_t status = cudaGetLastError();
    CUDA_CHECK(cudaDeviceSynchronize());
    report(status == cudaSuccess && bytes > 48 * 1024,
           "gpu_allow_shared_memory lets a kernel launch with all the opt-in shared memory");
    CUDA_CHECK(cudaFree(out));
}

/* ---------------------------------------------------------------- the copy engine */

enum { BOX_ROWS = 128, BOX_FLOATS = BOX_ROWS * TENSOR_MAP_BOX_COLS, RUN_FLOATS = 1024 };

/* One thread copies the box of `map` at (128, 32) and a run of RUN_FLOATS
 * floats; everyone waits on the barrier and writes shared memory back out. */
__global__ void copy_engine_kernel(float *box_out, float *run_out,
                                   const __grid_constant__ CUtensorMap map, const float *run)
{
    __shared__ __align__(1024) float box[BOX_FLOATS];
    __shared__ __align__(16) float line[RUN_FLOATS];
    __shared__ uint64_t landed;
    if (threadIdx.x == 0)
        mbarrier_init(&landed, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        mbarrier_expect_bytes(&landed, sizeof box + sizeof line);
        tensor_copy_box(box, &map, 128, 32, &landed);
        bulk_copy(line, run, sizeof line, &landed);
    }
    mbarrier_wait(&landed, 0);
    for (int i = threadIdx.x; i < BOX_FLOATS; i += blockDim.x)
        box_out[i] = box[i];
    for (int i = threadIdx.x; i < RUN_FLOATS; i += blockDim.x)
        run_out[i] = line[i];
}

/* A 200 x 40 matrix (leading dimension 44): the box at (128, 32) runs past
 * both edges, so its last rows and columns must land as zeros, and the rest
 * where tensor_map_box_index says (the swizzle the GEMM and the figure
 * swizzled-box rely on). */
static void test_copy_engine(void)
{
    const char *names[3] = {
        "tensor_copy_box lands a box where tensor_map_box_index says, zeros past the edges",
        "bulk_copy moves a contiguous run, counted on the same barrier",
        "tensor_map_rows refuses a leading dimension that is not a multiple of 4"};
    if (gpu_query().compute_major < 9) {
        for (int i = 0; i < 3; i++)
            printf("ok %d - %s # SKIP the copy engine needs compute capability 9.0\n",
                   ++tests_run, names[i]);
        return;
    }
    enum { ROWS = 200, COLS = 40, LD = 44 };
    static float matrix[ROWS * LD], run[RUN_FLOATS], box[BOX_FLOATS], got_run[RUN_FLOATS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < LD; c++)
            matrix[r * LD + c] = c < COLS ? 1.0f + r * 100.0f + c : -1.0f;
    for (int i = 0; i < RUN_FLOATS; i++)
        run[i] = 0.25f * i + 3.0f;
    float *device_matrix, *device_run, *out;
    CUDA_CHECK(cudaMalloc(&device_matrix, sizeof matrix));
    CUDA_CHECK(cudaMalloc(&device_run, sizeof run));
    CUDA_CHECK(cudaMalloc(&out, sizeof box + sizeof got_run));
    CUDA_CHECK(cudaMemcpy(device_matrix, matrix, sizeof matrix, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_run, run, sizeof run, cudaMemcpyHostToDevice));
    CUtensorMap map;
    char why[200];
    int box_ok = 0, run_ok = 0;
    if (tensor_map_rows(&map, device_matrix, ROWS, COLS, LD, BOX_ROWS, why, sizeof why) == 0) {
        copy_engine_kernel<<<1, 128>>>(out, out + BOX_FLOATS, map, device_run);
        LAUNCH_CHECK();
        CUDA_CHECK(cudaMemcpy(box, out, sizeof box, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_run, out + BOX_FLOATS, sizeof got_run, cudaMemcpyDeviceToHost));
        box_ok = run_ok = 1;
        for (int r = 0; r < BOX_ROWS; r++)
            for (int c = 0; c < TENSOR_MAP_BOX_COLS; c++) {
                const int row = 128 + r, col = 32 + c;
                const float want = row < ROWS && col < COLS ? matrix[row * LD + col] : 0.0f;
                box_ok &= box[tensor_map_box_index(r, c)] == want;
            }
        for (int i = 0; i < RUN_FLOATS; i++)
            run_ok &= got_run[i] == run[i];
    } else {
        printf("# tensor_map_rows: %s\n", why);
    }
    report(box_ok, names[0]);
    report(run_ok, names[1]);
    report(tensor_map_rows(&map, device_matrix, ROWS, COLS, 42, BOX_ROWS, why, sizeof why) != 0,
           names[2]);
    CUDA_CHECK(cudaFree(device_matrix));
    CUDA_CHECK(cudaFree(device_run));
    CUDA_CHECK(cudaFree(out));
}

int main(void)
{
    gpu_require();
    printf("1..14\n");
    test_async_copies();
    test_warp_reductions();
    test_tensor_core();
    test_shared_memory_opt_in();
    test_copy_engine();
    return tests_failed ? 1 : 0;
}
