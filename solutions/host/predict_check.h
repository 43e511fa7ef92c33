/* solutions/host/predict_check.h - what the host checks of the "predict,
 * then measure" exercises share (5.3, 7.2 and 8.3): the cards a prediction
 * is made for, the check that a prediction follows the floors of several
 * cards, and, for the triangle's two (5.3 and 8.3), counts compared with
 * the referee's at sizes drawn from the grading's seed and `NAME.host
 * predict KERNEL B=.. T=.. C=.. NH=.. [--card NAME|live]`, which prints
 * "predicted_ms X" for the grader. Include after the exercise (it calls
 * its predicted_ms) and host_check.h.
 *
 * A prediction takes the card's peaks (gpu_info: fp32_peak_gflops,
 * tf32_peak_gflops, memory_gbps), those common/device/gpu_peaks.h computes: the
 * live card's on a GPU (gpu_query), a card of its table by name here. The
 * check asks it for the H200, whose times the chapters quote, and for
 * cards whose floors stand in other ratios (a T4, an A100, an RTX 4090):
 * on each, the prediction must not be below the card's floor (the higher
 * of its arithmetic and its memory floor, from the referee's counts), and
 * from the H200 to each card it must grow as the floor grows, within a
 * factor 2. A time typed in from a measurement on one card does neither. */
#ifndef WORKBOOK_PREDICT_CHECK_H
#define WORKBOOK_PREDICT_CHECK_H

#include <math.h>

/* The cards: the reference first. */
static const char *const predict_cards[] = {"NVIDIA H200", "Tesla T4", "NVIDIA A100",
                                            "NVIDIA GeForce RTX 4090"};
#define PREDICT_CARD_COUNT 4

/* A card of common/device/gpu_peaks.c's table as gpu_query would describe it. */
static gpu_info predict_card(const char *name)
{
    gpu_info card;
    memset(&card, 0, sizeof card);
    snprintf(card.name, sizeof card.name, "%s", name);
    const gpu_card *known = gpu_card_find(name);
    if (known) {
        card.compute_major = known->major, card.compute_minor = known->minor;
        card.sm_count = known->sm_count, card.clock_khz = (int)(known->clock_mhz * 1000);
    }
    card.fp32_peak_gflops = gpu_card_peak_gflops(name, GPU_PIPE_SIMT);
    card.tf32_peak_gflops = gpu_card_peak_gflops(name, GPU_PIPE_TENSOR);
    card.memory_gbps = gpu_card_memory_gbps(name);
    return card;
}

/* The floor of a kernel on a card, in ms: the higher of its operations at
 * the pipe's peak and its bytes at the memory's; 0 where the card has no
 * such pipe (a T4 has no TF32). */
static double predict_floor_ms(const gpu_info *card, gpu_pipe pipe, double flops, double bytes)
{
    const double peak = pipe == GPU_PIPE_TENSOR ? card->tf32_peak_gflops : card->fp32_peak_gflops;
    if (!(peak > 0) || !(card->memory_gbps > 0))
        return 0;
    return fmax(flops / (peak * 1e9), bytes / (card->memory_gbps * 1e9)) * 1e3;
}

/* Whether predictions[c] (card c of predict_cards) follow floors[c]: 0 when
 * they do, else 1 with why. what names the kernel and size in a message. */
static int predict_follows_floors(const char *what, const double *predictions,
                                  const double *floors, char *why, size_t capacity)
{
    for (int c = 0; c < PREDICT_CARD_COUNT; c++) {
        if (!(floors[c] > 0))
            continue;
        if (!(predictions[c] > 0 && predictions[c] < 1e9)) {
            snprintf(why, capacity, "%s on the %s: predicted_ms is %g, no prediction", what,
                     predict_cards[c], predictions[c]);
            return 1;
        }
        if (predictions[c] < 0.99 * floors[c]) {
            snprintf(why, capacity, "%s: %.4g ms on the %s, below that card's floor, %.4g ms "
                     "(no kernel beats its floor: is the card's peak in your formula?)", what,
                     predictions[c], predict_cards[c], floors[c]);
            return 1;
        }
        const double grows = predictions[c] / predictions[0], should = floors[c] / floors[0];
        if (c > 0 && !(grows / should <= 2 && grows / should >= 0.5)) {
            snprintf(why, capacity, "%s: on the %s your prediction is %.3g times the %s's "
                     "(%.4g ms), the floor %.3g times: a prediction follows the card's peaks "
                     "(card->...), not a time measured on one card", what, predict_cards[c],
                     grows, predict_cards[0], predictions[c], should);
            return 1;
        }
    }
    return 0;
}

/* The card of `predict ... --card NAME|live`: the live card on a GPU (the
 * program exits 77 where there is none), or a card of the table by name;
 * the H200 when no --card is given. Returns 0, or 1 for a name the table
 * does not know. */
static int predict_card_of(int argc, char **argv, gpu_info *card)
{
    const char *name = "NVIDIA H200";
    for (int k = 1; k + 1 < argc; k++)
        if (strcmp(argv[k], "--card") == 0)
            name = argv[k + 1];
    if (strcmp(name, "live") == 0) {
        gpu_require();
        *card = gpu_query();
        return 0;
    }
    if (!gpu_card_find(name)) {
        fprintf(stderr, "predict: --card %s: not a card of common/device/gpu_peaks.c's table\n", name);
        return 1;
    }
    *card = predict_card(name);
    return 0;
}

#ifdef WORKBOOK_TRIANGLE_H

/* A kernel of the triangle raced by the exercise: its pipe and the
 * referee's counts of its operations and compulsory bytes. */
typedef struct {
    const char *name;
    gpu_pipe pipe;
    double (*flops)(triangle_size);
    double (*bytes)(triangle_size);
} predict_kernel;

/* The fixed sizes of a count check, then `drawn` more from the grading's
 * seed: B 1..8, NH 1..16, HS 8..128 in steps of 8, T 128..8192 in steps of
 * 128 (the kernels' tiles). Returns how many. */
static int predict_sizes(triangle_size *sizes, const triangle_size *fixed, int fixed_count,
                         int drawn)
{
    unsigned long long state = host_seed();
    for (int k = 0; k < fixed_count; k++)
        sizes[k] = fixed[k];
    for (int k = 0; k < drawn; k++) {
        triangle_size s = {(int)host_draw(&state, 1, 8), (int)(128 * host_draw(&state, 1, 64)),
                           (int)host_draw(&state, 1, 16), (int)(8 * host_draw(&state, 1, 16))};
        sizes[fixed_count + k] = s;
    }
    return fixed_count + drawn;
}

/* A count against its referee at each size, within a millionth. */
template <class Count>
static void check_count(const char *name, Count count, double (*referee)(triangle_size),
                        const triangle_size *sizes, int n)
{
    for (int k = 0; k < n; k++) {
        const double got = count(sizes[k]), want = referee(sizes[k]);
        if (!(fabs(got - want) <= 1e-6 * want)) {
            host_check(0, name, "%.6g at B=%d T=%d C=%d NH=%d; the referee counts %.6g",
                       got, sizes[k].B, sizes[k].T, sizes[k].NH * sizes[k].HS, sizes[k].NH,
                       want);
            return;
        }
    }
    host_check(1, name, "right at %d sizes (%.4g at B=%d T=%d C=%d NH=%d)", n, count(sizes[0]),
               sizes[0].B, sizes[0].T, sizes[0].NH * sizes[0].HS, sizes[0].NH);
}

/* Each kernel's prediction at each size, on every card: positive, finite,
 * never below the card's floor, and following the floors from card to
 * card. The first `shown` sizes' H200 predictions are printed. */
static void check_predictions(const predict_kernel *kernels, int kernel_count,
                              const triangle_size *sizes, int n, int shown_count)
{
    char shown[400] = "", why[400] = "", what[120];
    size_t used = 0;
    gpu_info cards[PREDICT_CARD_COUNT];
    for (int c = 0; c < PREDICT_CARD_COUNT; c++)
        cards[c] = predict_card(predict_cards[c]);
    for (int k = 0; k < kernel_count; k++)
        for (int i = 0; i < n; i++) {
            double predictions[PREDICT_CARD_COUNT], floors[PREDICT_CARD_COUNT];
            for (int c = 0; c < PREDICT_CARD_COUNT; c++) {
                predictions[c] = predicted_ms(kernels[k].name, sizes[i], &cards[c]);
                floors[c] = predict_floor_ms(&cards[c], kernels[k].pipe,
                                             kernels[k].flops(sizes[i]), kernels[k].bytes(sizes[i]));
            }
            snprintf(what, sizeof what, "%s at B=%d T=%d C=%d NH=%d", kernels[k].name,
                     sizes[i].B, sizes[i].T, sizes[i].NH * sizes[i].HS, sizes[i].NH);
            if (predict_follows_floors(what, predictions, floors, why, sizeof why)) {
                host_check(0, "prediction", "%s", why);
                return;
            }
            if (i < shown_count)
                used += (size_t)snprintf(shown + used,
                                         used < sizeof shown ? sizeof shown - used : 0,
                                         "%s%s %.4g ms at T=%d", used ? ", " : "",
                                         kernels[k].name, predictions[0], sizes[i].T);
        }
    host_check(1, "prediction", "on the H200 %s; on the T4, A100 and RTX 4090 they follow "
               "those cards' floors, at %d sizes", shown, n);
}

/* predict KERNEL B=.. T=.. C=.. NH=.. [--card NAME|live]: one line for the grader. */
static int predict_main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "predict") != 0) {
        fprintf(stderr, "usage: %s [predict KERNEL B=.. T=.. C=.. NH=.. [--card NAME|live]]\n",
                argv[0]);
        return 2;
    }
    gpu_info card;
    if (predict_card_of(argc, argv, &card))
        return 2;
    const long NH = host_size(argc, argv, 3, "NH", 12);
    const triangle_size s = {(int)host_size(argc, argv, 3, "B", 8),
                             (int)host_size(argc, argv, 3, "T", 1024), (int)NH,
                             (int)(host_size(argc, argv, 3, "C", 768) / NH)};
    printf("predicted_ms %.6g on the %s\n", predicted_ms(argv[2], s, &card), card.name);
    return 0;
}

#endif
#endif
