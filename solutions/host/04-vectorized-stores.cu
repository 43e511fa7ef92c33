/* solutions/host/04-vectorized-stores.cu - the host check of exercise 4.2:
 * the runs of run_column cover a row of the tile once, and each warp-wide
 * store of the epilogue writes whole sectors, counted from run_column.
 *
 * `NAME.host unwritten B=.. T=.. C=.. NH=..` is the grader's GPU check of
 * the statement's "only the runs that hold a kept score": the exercise's
 * kernel over an output filled with NaN, every run of 4 scores wholly
 * above the diagonal (its first column past its row) left NaN. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define run_column PROBED(run_column)

/* The exercise's kernel over an output filled with NaN, on the GPU: what it
 * leaves in out (the probe runs it; the referee is answered its bytes). */
static void kernel_output(triangle_size s, float *out)
{
    gpu_require();
    const size_t in_count = triangle_input_count(s), out_count = triangle_output_count(s);
    float *inp = (float *)malloc(in_count * sizeof(float));
    unsigned state = 99;
    for (size_t k = 0; k < in_count; k++) {
        state = state * 1664525u + 1013904223u;
        inp[k] = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
    }
    triangle_args args;
    memset(&args, 0, sizeof args);
    args.size = s;
    float *device_inp, *device_out;
    CUDA_CHECK(cudaMalloc(&device_inp, in_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&device_out, out_count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(device_inp, inp, in_count * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamCreate(&args.stream));
    args.inp = device_inp, args.preatt = device_out;
    gpu_fill_nan(device_out, out_count, args.stream);
    vectorized_stores_launch(&args);
    CUDA_CHECK(cudaStreamSynchronize(args.stream));
    CUDA_CHECK(cudaMemcpy(out, device_out, out_count * sizeof(float), cudaMemcpyDeviceToHost));
    free(inp);
}

/* On the GPU: the kernel leaves every run with no kept score unwritten. */
static int unwritten_main(int argc, char **argv)
{
    const long NH = host_size(argc, argv, 2, "NH", 2);
    const triangle_size s = {(int)host_size(argc, argv, 2, "B", 2),
                             (int)host_size(argc, argv, 2, "T", 384), (int)NH,
                             (int)(host_size(argc, argv, 2, "C", 64) / NH)};
    const size_t out_count = triangle_output_count(s);
    float *out = (float *)malloc(out_count * sizeof(float));
    PROBED(kernel_output)(s, probed_span(out, out_count));
    char why[200] = "";
    for (int z = 0; z < s.B * s.NH && !why[0]; z++)
        for (int i = 0; i < s.T && !why[0]; i++)
            for (int j = (i / 4 + 1) * 4; j < s.T && !why[0]; j++)
                if (!isnan(out[((size_t)z * s.T + i) * s.T + j]))
                    snprintf(why, sizeof why, "at B=%d T=%d C=%d NH=%d the "
                             "run of columns %d..%d of row %d (head %d) is written, though it "
                             "holds no kept score: store only the runs that hold one", s.B, s.T,
                             s.NH * s.HS, s.NH, j / 4 * 4, j / 4 * 4 + 3, i, z);
    host_check(!why[0], "masked runs unwritten", "%s",
               why[0] ? why : "every run of 4 scores past its row's diagonal left NaN");
    return host_check_status();
}

int host_check_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "unwritten") == 0)
        return unwritten_main(argc, argv);
    char why[200] = "";
    int owner[TILE];
    int failed = 0;
    for (int c = 0; c < TILE; c++)
        owner[c] = -1;
    for (int x = 0; x < THREADS_ACROSS && !failed; x++)
        for (int run = 0; run < RUNS && !failed; run++) {
            const int first = run_column(x, run);
            if (first < 0 || first + 4 > TILE || first % 4 != 0) {
                snprintf(why, sizeof why, "run %d of thread column %d starts at column %d: not a "
                         "16-byte aligned run of 4 inside the tile", run, x, first);
                failed = 1;
            }
            for (int c = first; c < first + 4 && !failed; c++) {
                if (owner[c] >= 0) {
                    snprintf(why, sizeof why, "column %d belongs to thread column %d and to "
                             "thread column %d (run %d)", c, owner[c], x, run);
                    failed = 1;
                }
                owner[c] = x;
            }
        }
    if (failed)
        host_check(0, "run_column covers the tile", "%s", why);
    else
        host_check(1, "run_column covers the tile", "every column of a row once");

    /* A warp: threads 32w .. 32w + 31 of the block, x fastest: 4 rows of 8.
     * One store instruction: one row r and one run, a float4 per thread. */
    int worst = 0, worst_run = 0;
    const long T = 1024; /* any T: rows are T floats apart */
    for (int warp = 0; warp < THREADS_ACROSS * THREADS_DOWN / 32 && !failed; warp++)
        for (int r = 0; r < ROWS; r++)
            for (int run = 0; run < RUNS; run++) {
                long offsets[32];
                for (int lane = 0; lane < 32; lane++) {
                    const int thread = 32 * warp + lane;
                    const int x = thread % THREADS_ACROSS, y = thread / THREADS_ACROSS;
                    offsets[lane] = ((y * ROWS + r) * T + run_column(x, run)) * 4;
                }
                const int sectors = host_sectors(offsets, 32, 16);
                if (sectors > worst)
                    worst = sectors, worst_run = run;
            }
    if (!failed)
        host_check(worst == 16, "whole sectors",
                   worst == 16 ? "every warp store writes 32 float4s in 16 sectors"
                               : "a warp store of run %d touches %d sectors for 512 bytes; 16 "
                                 "would do",
                   worst_run, worst);
    return host_check_status();
}
