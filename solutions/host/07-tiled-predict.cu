/* solutions/host/07-tiled-predict.cu - the host check of exercise 7.2: the
 * counts against the layer's products summed column by column and head by
 * head, at fixed sizes and sizes drawn from the grading's seed, and the
 * predictions on several cards (predict_check.h; `predict KERNEL B=.. S=..
 * N=.. D=.. H=.. [--card NAME|live]` prints one). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define layer_bytes PROBED(layer_bytes)
#define layer_flops PROBED(layer_flops)
#define predicted_ms PROBED(predicted_ms)
#include "predict_check.h"

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

template <class Count>
static void check(const char *name, Count count, double (*referee)(msa_size),
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

int host_check_main(int argc, char **argv)
{
    if (argc > 1) {
        gpu_info card;
        if (argc < 3 || strcmp(argv[1], "predict") != 0) {
            fprintf(stderr, "usage: %s [predict KERNEL B=.. S=.. N=.. D=.. H=.. [--card NAME|live]]\n",
                    argv[0]);
            return 2;
        }
        if (predict_card_of(argc, argv, &card))
            return 2;
        const msa_size z = {(int)host_size(argc, argv, 3, "B", 2),
                            (int)host_size(argc, argv, 3, "S", 8),
                            (int)host_size(argc, argv, 3, "N", 32),
                            (int)host_size(argc, argv, 3, "D", 64),
                            (int)host_size(argc, argv, 3, "H", 4)};
        printf("predicted_ms %.6g on the %s\n", predicted_ms(argv[2], z, &card), card.name);
        return 0;
    }
    /* fixed sizes, then some drawn from the grading's seed: any depth and
     * width, D a multiple of H */
    msa_size sizes[13] = {{1, 128, 256, 256, 8}, {1, 512, 256, 256, 8}, {2, 8, 32, 64, 4},
                          {1, 1024, 384, 64, 8}, {3, 37, 5, 96, 3}};
    unsigned long long state = host_seed();
    for (int k = 5; k < 13; k++) {
        const int H = (int)host_draw(&state, 1, 16);
        const msa_size z = {(int)host_draw(&state, 1, 4), (int)host_draw(&state, 1, 2048),
                            (int)host_draw(&state, 1, 512), H * (int)host_draw(&state, 1, 64 / H + 4),
                            H};
        sizes[k] = z;
    }
    check("layer_flops", layer_flops, summed_flops, sizes, 13);
    check("layer_bytes", layer_bytes, msa_compulsory_bytes, sizes, 13);

    gpu_info cards[PREDICT_CARD_COUNT];
    for (int c = 0; c < PREDICT_CARD_COUNT; c++)
        cards[c] = predict_card(predict_cards[c]);
    char why[400] = "", what[120];
    int failed = 0;
    /* the layer's name and pipe from chapters/kernels.list */
    constexpr contender_facts layer = KERNEL_FACTS_fused_tiled_kernel;
    for (int k = 0; k < 13 && !failed; k++) {
        double predictions[PREDICT_CARD_COUNT], floors[PREDICT_CARD_COUNT];
        for (int c = 0; c < PREDICT_CARD_COUNT; c++) {
            predictions[c] = predicted_ms(layer.name, sizes[k], &cards[c]);
            floors[c] = predict_floor_ms(&cards[c], layer.pipe, summed_flops(sizes[k]),
                                         msa_compulsory_bytes(sizes[k]));
        }
        snprintf(what, sizeof what, "%s at B=%d S=%d N=%d D=%d H=%d", layer.name, sizes[k].B,
                 sizes[k].S, sizes[k].N, sizes[k].D, sizes[k].H);
        failed = predict_follows_floors(what, predictions, floors, why, sizeof why);
    }
    if (failed)
        host_check(0, "prediction", "%s", why);
    else
        host_check(1, "prediction", "on the H200 %s %.4g ms at S=128, %.4g ms at S=512; on the "
                   "T4, A100 and RTX 4090 they follow those cards' floors, at 13 sizes",
                   layer.name, predicted_ms(layer.name, sizes[0], &cards[0]),
                   predicted_ms(layer.name, sizes[1], &cards[0]));
    return host_check_status();
}
