/* solutions/host/07-tiled-predict.cu - the host check of exercise 7.2: the
 * counts against the layer's products summed column by column and head by
 * head, and the predictions at the sizes the grader times (`predict
 * KERNEL B=.. S=.. N=.. D=.. H=..` prints one). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* Every product of the layer, column by column, head by head. */
static double summed_flops(msa_size z)
{
    double total = 0.0;
    const int d = z.D / z.H;
    for (long column = 0; column < (long)z.B * z.N; column++) {
        for (int matrix = 0; matrix < 5; matrix++) /* Wq, Wk, Wv, Wg, Wo */
            total += 2.0 * z.S * z.D * z.D;
        for (int h = 0; h < z.H; h++)
            total += 2.0 * z.S * z.S * d /* scores */ + 2.0 * z.S * z.S * d /* A V */;
    }
    return total;
}

static void check(const char *name, double (*count)(msa_size), double (*referee)(msa_size),
                  const msa_size *sizes, int n)
{
    for (int k = 0; k < n; k++) {
        const double got = count(sizes[k]), want = referee(sizes[k]);
        if (!(fabs(got - want) <= 1e-6 * want)) {
            host_check(0, name, "%.6g at B=%d S=%d N=%d D=%d H=%d; the referee counts %.6g", got,
                       sizes[k].B, sizes[k].S, sizes[k].N, sizes[k].D, sizes[k].H, want);
            return;
        }
    }
    host_check(1, name, "right at %d sizes (%.4g at S=%d)", n, count(sizes[0]), sizes[0].S);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (argc < 3 || strcmp(argv[1], "predict") != 0) {
            fprintf(stderr, "usage: %s [predict KERNEL B=.. S=.. N=.. D=.. H=..]\n", argv[0]);
            return 2;
        }
        const msa_size z = {(int)host_size(argc, argv, 3, "B", 2),
                            (int)host_size(argc, argv, 3, "S", 8),
                            (int)host_size(argc, argv, 3, "N", 32),
                            (int)host_size(argc, argv, 3, "D", 64),
                            (int)host_size(argc, argv, 3, "H", 4)};
        printf("predicted_ms %.6g\n", predicted_ms(argv[2], z));
        return 0;
    }
    const msa_size sizes[] = {{1, 128, 256, 256, 8}, {1, 512, 256, 256, 8}, {2, 8, 32, 64, 4},
                              {1, 1024, 384, 64, 8}, {3, 37, 5, 96, 3}};
    check("layer_flops", layer_flops, summed_flops, sizes, 5);
    check("layer_bytes", layer_bytes, msa_compulsory_bytes, sizes, 5);
    const double at_128 = predicted_ms("fused-tiled", sizes[0]);
    const double at_512 = predicted_ms("fused-tiled", sizes[1]);
    if (at_128 > 0 && at_512 > 0 && at_128 < 1e9 && at_512 < 1e9)
        host_check(1, "prediction", "fused-tiled %.4g ms at S=128, %.4g ms at S=512", at_128,
                   at_512);
    else
        host_check(0, "prediction", "predicted_ms is %g at S=128 and %g at S=512: no prediction",
                   at_128, at_512);
    return host_check_status();
}
