/* solutions/host/08-tensor-predict.cu - the host check of exercise 8.3:
 * the four counts against the referee's counts of each kernel's traffic
 * and tiles, at fixed sizes and sizes drawn from the grading's seed, and
 * the predictions on several cards (predict_check.h; `predict KERNEL SIZE`
 * prints one). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define cublas_bytes PROBED(cublas_bytes)
#define cublas_flops PROBED(cublas_flops)
#define rows_bytes PROBED(rows_bytes)
#define rows_flops PROBED(rows_flops)
#define predicted_ms PROBED(predicted_ms)
#include "predict_check.h"

/* cublas-tf32, step by step: the permute reads Q and K out of inp and
 * writes them packed; the product reads them again and writes the square. */
static double referee_cublas_bytes(triangle_size s)
{
    const double q_and_k = 2.0 * triangle_input_count(s) / 3 * sizeof(float);
    return 3 * q_and_k + (double)triangle_output_count(s) * sizeof(float);
}

static double referee_cublas_flops(triangle_size s)
{
    return 2.0 * s.HS * (double)triangle_output_count(s);
}

static double referee_rows_flops(triangle_size s)
{
    double tiles = 0;
    for (int row = 0; row < s.T / TF32_TILE; row++)
        tiles += row + 1;
    return tiles * s.B * s.NH * TF32_TILE * TF32_TILE * s.HS * 2;
}

int host_check_main(int argc, char **argv)
{
    if (argc > 1)
        return predict_main(argc, argv);
    const triangle_size fixed[] = {{8, 1024, 12, 64}, {8, 4096, 12, 64}, {3, 256, 3, 128},
                                   {1, 128, 1, 32}};
    triangle_size sizes[12];
    const int n = predict_sizes(sizes, fixed, 4, 8);
    check_count("cublas_bytes", cublas_bytes, referee_cublas_bytes, sizes, n);
    check_count("cublas_flops", cublas_flops, referee_cublas_flops, sizes, n);
    check_count("rows_bytes", rows_bytes, triangle_compulsory_bytes, sizes, n);
    check_count("rows_flops", rows_flops, referee_rows_flops, sizes, n);
    /* cuBLAS's floor: its permute and product's bytes, the square's work */
    /* the kernels' names and pipes from chapters/kernels.list */
    constexpr contender_facts cublas = KERNEL_FACTS_cublas_tf32_kernel,
                              rows = KERNEL_FACTS_tf32_rows_kernel;
    const predict_kernel kernels[] = {
        {cublas.name, cublas.pipe, referee_cublas_flops, referee_cublas_bytes},
        {rows.name, rows.pipe, referee_rows_flops, triangle_compulsory_bytes}};
    check_predictions(kernels, 2, sizes, n, 2);
    return host_check_status();
}
