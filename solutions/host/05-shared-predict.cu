/* solutions/host/05-shared-predict.cu - the host check of exercise 5.3: the
 * counts against an enumeration of the tiles and the kept scores, at fixed
 * sizes and sizes drawn from the grading's seed, and the predictions on
 * several cards (predict_check.h; `predict KERNEL SIZE` prints one). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define compulsory_bytes PROBED(compulsory_bytes)
#define tile_flops PROBED(tile_flops)
#define predicted_ms PROBED(predicted_ms)
#include "predict_check.h"

static double enumerated_flops(triangle_size s)
{
    double tiles = 0;
    for (int row = 0; row < s.T / SHARED_TILE; row++)
        for (int col = 0; col <= row; col++)
            tiles += 1;
    return tiles * s.B * s.NH * SHARED_TILE * SHARED_TILE * s.HS * 2;
}

int host_check_main(int argc, char **argv)
{
    if (argc > 1)
        return predict_main(argc, argv);
    const triangle_size fixed[] = {{8, 1024, 12, 64}, {8, 4096, 12, 64}, {3, 256, 3, 128},
                                   {1, 128, 1, 32}};
    triangle_size sizes[12];
    const int n = predict_sizes(sizes, fixed, 4, 8);
    check_count("tile_flops", tile_flops, enumerated_flops, sizes, n);
    check_count("compulsory_bytes", compulsory_bytes, triangle_compulsory_bytes, sizes, n);
    /* the kernel's name and pipe from chapters/kernels.list */
    constexpr contender_facts rows = KERNEL_FACTS_shared_rows_interleaved_kernel;
    const predict_kernel kernels[] = {{rows.name, rows.pipe, enumerated_flops,
                                       triangle_compulsory_bytes}};
    check_predictions(kernels, 1, sizes, n, 2);
    return host_check_status();
}
