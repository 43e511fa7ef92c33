/* triangle_runner.cu - the program behind every triangle chapter:
 * parse, refuse what cannot be run, draw inputs, race the kernels (race.h:
 * each checked against the CPU referee, then timed), print the table,
 * append the CSV rows. */
#include <limits.h>
#include <string.h>

#include "harness/race.h"
#include "harness/sizes.h"
#include "problems/triangle.h"

/* What the race's callbacks (race.h) need of a triangle program. */
typedef struct {
    const triangle_contender *contenders;
    const triangle_args *args;
} triangle_race;

static void launch_triangle_contender(void *problem, int k, cudaStream_t stream)
{
    (void)stream; /* the args carry the stream */
    const triangle_race *race = (const triangle_race *)problem;
    race->contenders[k].kernel->launch(race->args);
}

static int triangle_contender_unfit(void *problem, int k, const gpu_info *gpu, char *why,
                                    size_t capacity)
{
    const triangle_race *race = (const triangle_race *)problem;
    const triangle_kernel *kernel = race->contenders[k].kernel;
    return kernel->unfit && kernel->unfit(race->args->size, gpu, why, capacity);
}

int triangle_chapter_main(int argc, char **argv, const char *program, int chapter,
                          const char *summary, const triangle_contender *contenders,
                          int kernel_count)
{
    cli_spec spec = {program, summary, 4, {"B", "T", "C", "NH"},
                     {TRIANGLE_DEFAULT_B, TRIANGLE_DEFAULT_T, TRIANGLE_DEFAULT_C, TRIANGLE_DEFAULT_NH}, 0};
    spec.scales_inputs = 1;
    const char *names[CLI_MAX_KERNELS], *wheres[CLI_MAX_KERNELS];
    const contender_facts *facts[CLI_MAX_KERNELS];
    int chapters[CLI_MAX_KERNELS], first, last;
    for (int k = 0; k < kernel_count && k < CLI_MAX_KERNELS; k++) {
        facts[k] = &contenders[k].facts;
        names[k] = contenders[k].facts.name;
        chapters[k] = contenders[k].facts.chapter;
        wheres[k] = contenders[k].facts.where;
    }
    cli_options options;
    const int chosen = cli_start(&spec, argc, argv, names, chapters, wheres, kernel_count,
                                 &options, &first, &last);
    if (chosen >= 0)
        return chosen;

    long B = options.sizes[0], T = options.sizes[1], C = options.sizes[2], NH = options.sizes[3];
    if (C % NH != 0) {
        fprintf(stderr, "%s: C=%ld is not a multiple of NH=%ld\n", program, C, NH);
        return 2;
    }
    /* Every product is taken without wrapping (sizes.h). The kernels index
     * the input with int (chapter 4's row stride 3*C, the leading dimension
     * 3*C that cuBLAS takes as int), the scores with size_t: the scores are
     * bounded by memory alone. */
    char message[512];
    const size_t input_floats = size_times(size_times(size_times(B, T), 3), C);
    const size_t output_floats = size_times(size_times(size_times(B, NH), T), T);
    if (size_at_most(input_floats, INT_MAX, "B*T*3*C", "input floats",
                     "the kernels index with int (chapter 4's row stride and cuBLAS's leading "
                     "dimension, 3*C, are int)",
                     message, sizeof message) != 0) {
        fprintf(stderr, "%s: %s\n", program, message);
        return 2;
    }
    triangle_size size = {(int)B, (int)T, (int)NH, (int)(C / NH)};
    /* Which kernels run: with --only-new, only this chapter's; any of them
     * that refuses the size refuses the whole run. */
    int runs[CLI_MAX_KERNELS] = {0};
    int refused = 0;
    for (int k = first; k <= last; k++) {
        char why[256] = "";
        const triangle_kernel *kernel = contenders[k].kernel;
        if (!cli_runs_kernel(&options, contenders[k].facts.chapter, chapter))
            continue;
        runs[k] = 1;
        /* (a judge takes the sizes the emitting program took: its own
         * refusals may be the exercise's unsolved ones) */
        if (!options.judge_output && kernel->refuses && kernel->refuses(size, why, sizeof why)) {
            fprintf(stderr, "%s: kernel %s refuses B=%ld T=%ld C=%ld NH=%ld: %s\n", program,
                    contenders[k].facts.name, B, T, C, NH, why);
            refused = 1;
        }
    }
    if (refused)
        return 2;
    /* Host memory: the input, the kernels' scores and the referee's, in double. */
    const size_t host_bytes =
        size_plus(size_times(input_floats, sizeof(float)),
                  size_times(output_floats, sizeof(float) + sizeof(double)));
    if (size_fits_memory(host_bytes, host_memory_bytes(),
                         "host memory (the input, the scores, the referee's scores in double)",
                         "available on this machine", message, sizeof message) != 0) {
        fprintf(stderr, "%s: B=%ld T=%ld C=%ld NH=%ld %s\n", program, B, T, C, NH, message);
        return 2;
    }
    /* The destination, so that a run is not lost to a path that cannot be written. */
    if ((options.csv_path || options.card_path) && gpu_emulation_requested()) {
        fprintf(stderr, "%s: --%s: WORKBOOK_CARD is set; rows measured while keeping to "
                        "another card's limits would be filed under this card's name\n", program,
                options.csv_path ? "csv" : "card");
        return 2;
    }
    if (options.csv_path && csv_check_destination(options.csv_path, message, sizeof message)) {
        fprintf(stderr, "%s: --csv: %s\n", program, message);
        return 2;
    }
    if (options.errors_path && csv_check_destination_for(options.errors_path, CSV_ACCURACY_HEADER,
                                                         message, sizeof message)) {
        fprintf(stderr, "%s: --errors: %s\n", program, message);
        return 2;
    }

    const int judging = options.judge_output; /* no GPU: the output comes on stdin */
    if (!judging)
        gpu_require();

    report_context context;
    memset(&context, 0, sizeof context);
    context.problem = "trimul";
    cli_format_shape(&spec, &options, context.shape, sizeof context.shape);
    context.useful_flops = triangle_useful_flops(size);
    context.compulsory_bytes = triangle_compulsory_bytes(size);
    if (!judging)
        context.gpu = gpu_query();
    /* every kernel is measured against each champion the program races */
    for (int k = 0; k < kernel_count && context.baseline_count < REPORT_MAX_BASELINES; k++)
        if (contenders[k].facts.role == CONTENDER_CHAMPION)
            context.baselines[context.baseline_count++] = contenders[k].facts.name;
    if (judging)
        printf("judging the outputs read from standard input, %s; seed %llu\n", context.shape,
               (unsigned long long)options.seed);
    else
        report_print_header(&context, (unsigned long long)options.seed);

    /* Device memory, now that there is a device: the input, the scores, the
     * scratch of the permuting champions (Q and K, 2*B*T*C floats) and the
     * buffer that flushes L2 between repetitions (twice its size). */
    const size_t scratch_floats = size_times(size_times(size_times(2, B), T), C);
    const size_t device_bytes =
        size_plus(size_times(size_plus(size_plus(input_floats, output_floats), scratch_floats),
                             sizeof(float)),
                  size_plus(size_times(2, (size_t)context.gpu.l2_bytes), GPU_MEMORY_HEADROOM));
    if (!judging && size_fits_memory(device_bytes, gpu_free_bytes(), "device memory",
                                     "free on the GPU", message, sizeof message) != 0) {
        fprintf(stderr, "%s: B=%ld T=%ld C=%ld NH=%ld %s\n", program, B, T, C, NH, message);
        return 2;
    }

    const size_t input_count = input_floats, output_count = output_floats;
    float *inp = (float *)malloc(input_count * sizeof(float));
    float *got = (float *)malloc(output_count * sizeof(float));
    double *want = (double *)malloc(output_count * sizeof(double));
    if (!inp || !got || !want) {
        fprintf(stderr, "%s: out of host memory\n", program);
        return 2;
    }
    rng_t rng;
    rng_seed(&rng, options.seed);
    const float scale = (float)options.input_scale;
    rng_fill_uniform(&rng, inp, input_count, -scale, scale);
    if (options.input_scale != 1.0)
        printf("inputs drawn in +-%g\n", options.input_scale);
    if (!options.emit_output) { /* the judge's work, in the other process */
        double started = wall_seconds();
        triangle_reference(want, inp, size);
        printf("CPU referee: %.1f s\n", wall_seconds() - started);
    }

    triangle_args args;
    memset(&args, 0, sizeof args);
    args.size = size;
    float *device_inp = NULL, *device_preatt = NULL, *device_scratch = NULL;
    if (!judging) {
        CUDA_CHECK(cudaMalloc(&device_inp, input_count * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&device_preatt, output_count * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&device_scratch, scratch_floats * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(device_inp, inp, input_count * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaStreamCreate(&args.stream));
        CUBLAS_CHECK(cublasCreate(&args.cublas));
        CUBLAS_CHECK(cublasSetStream(args.cublas, args.stream));
    }
    args.inp = device_inp;
    args.preatt = device_preatt;
    args.scratch = device_scratch;

    report_entry entries[CLI_MAX_KERNELS];
    triangle_race problem = {contenders, &args};
    race_spec race;
    memset(&race, 0, sizeof race);
    race.facts = facts;
    race.runs = runs;
    race.first = first;
    race.last = last;
    race.problem = &problem;
    race.launch = launch_triangle_contender;
    race.unfit = triangle_contender_unfit;
    race.gpu = &context.gpu;
    race.stream = args.stream;
    race.output = device_preatt;
    race.output_count = output_count;
    race.got = got;
    race.want = want;
    /* the scores above the diagonal may stay unwritten */
    const compare_spec lower = {COMPARE_LOWER_TRIANGLE, (size_t)T, TOLERANCE_FP32};
    race.compare = lower;
    race.check_only = options.check_only;
    race.reps = options.reps;
    race.emit = options.emit_output;
    race.judge = judging;
    race_outcome outcome = race_contenders(&race, entries);
    const int entry_count = outcome.entries;
    if (!options.check_only)
        report_print_table(&context, entries, entry_count);
    if (options.csv_path && report_append_csv(options.csv_path, &context, entries, entry_count))
        outcome.failed = 1;
    if (options.card_path && report_append_card(options.card_path, &context.gpu))
        outcome.failed = 1;
    if (options.errors_path && report_append_errors(options.errors_path, &context, entries,
                                                    entry_count, options.input_scale, 0.0))
        outcome.failed = 1;

    if (!judging) {
        CUBLAS_CHECK(cublasDestroy(args.cublas));
        CUDA_CHECK(cudaStreamDestroy(args.stream));
        CUDA_CHECK(cudaFree(device_inp));
        CUDA_CHECK(cudaFree(device_preatt));
        CUDA_CHECK(cudaFree(device_scratch));
    }
    free(inp);
    free(got);
    free(want);
    return race_verdict(&outcome);
}
