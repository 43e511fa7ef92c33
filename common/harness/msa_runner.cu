/* msa_runner.cu - the program behind every MSA chapter: parse, read or draw
 * the inputs (msa_files.h reads the .npy files), refuse what cannot be run,
 * race the kernels (race.h: each checked against the CPU referee, timed
 * directly and as CUDA graph replays), print the table, append the CSV
 * rows, and optionally write the tensors as .npy files.
 *
 * Everything that can be refused is refused before the GPU is looked for,
 * so a bad size, a malformed file or a destination that cannot be written
 * gets exit status 2 on any machine; only the GPU's own memory is checked
 * once the GPU is found (exit 2 too). */
#include <limits.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "problems/msa.h"
#include "harness/msa_files.h"
#include "harness/paths.h"
#include "harness/race.h"
#include "harness/sizes.h"

/* The most features a row may have (the referee and the unfused layer take
 * any D; chapter 7's kernels stop at 256). */
#define MSA_MAX_D 4096

/* What the race's callbacks (race.h) need of an MSA program. */
typedef struct {
    const msa_contender *contenders;
    const msa_args *args;
    double compulsory_bytes;    /* the inputs and output, beside a kernel's scratch */
} msa_race;

static void launch_msa_contender(void *problem, int k, cudaStream_t stream)
{
    (void)stream; /* the args carry the stream */
    const msa_race *race = (const msa_race *)problem;
    race->contenders[k].kernel->launch(race->args);
}

static int msa_contender_unfit(void *problem, int k, const gpu_info *gpu, char *why,
                               size_t capacity)
{
    const msa_race *race = (const msa_race *)problem;
    const msa_kernel *kernel = race->contenders[k].kernel;
    return kernel->unfit && kernel->unfit(race->args->size, gpu, why, capacity);
}

/* Under a kernel's check: the scratch it asked for, against the layer's own
 * traffic (the unfused layer's intermediates are what fusing saves). */
static void print_msa_scratch(void *problem, int k)
{
    const msa_race *race = (const msa_race *)problem;
    const msa_contender *contender = &race->contenders[k];
    if (contender->kernel->scratch_floats)
        printf("      %-24s device scratch %.1f MB beside %.1f MB of inputs and output\n",
               contender->facts.name, contender->kernel->scratch_floats(race->args->size) * 4e-6,
               race->compulsory_bytes * 1e-6);
}

int msa_chapter_main(int argc, char **argv, const char *program, int chapter,
                     const char *summary, const msa_contender *contenders, int kernel_count)
{
    cli_spec spec = {program, summary, 5, {"B", "S", "N", "D", "H"}, {2, 8, 32, 64, 4}, 1};
    spec.choice_key = "mask";
    spec.choice_names = msa_mask_kind_names;
    spec.choice_count = MSA_MASK_KIND_COUNT;
    spec.choice_default = MSA_MASK_DRAWN;
    spec.scales_logits = 1;
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
    char message[PATHS_MAX + 1024]; /* room for a path and what is wrong with it */

    /* The headers of the input files first: they decide B, S, N and D. */
    msa_inputs inputs;
    memset(&inputs, 0, sizeof inputs);
    const int loaded = options.load_dir != NULL;
    if (loaded && msa_load_shapes(options.load_dir, options.size_given, options.sizes, message,
                                  sizeof message) != 0) {
        fprintf(stderr, "%s: --load: %s\n", program, message);
        return 2;
    }

    long B = options.sizes[0], S = options.sizes[1], N = options.sizes[2], D = options.sizes[3],
         H = options.sizes[4];
    char shape_text[128];
    cli_format_shape(&spec, &options, shape_text, sizeof shape_text);
    if (D % H != 0) {
        fprintf(stderr, "%s: D=%ld is not a multiple of H=%ld\n", program, D, H);
        return 2;
    }
    if (D > MSA_MAX_D) {
        fprintf(stderr, "%s: D=%ld is more than the %d features this workbook supports\n",
                program, D, MSA_MAX_D);
        return 2;
    }
    /* Every product is taken without wrapping (sizes.h). The kernels index
     * rows (B*S*N) with int: chapter 7's key lists and the row count cuBLAS
     * takes; the unfused layer's batch count (B*N*H) is int too. Elements
     * (B*S*N*D) are indexed with size_t, bounded by memory alone. */
    const size_t rows = size_times(size_times(B, S), N);
    const size_t heads = size_times(size_times(B, N), H);
    const size_t elements = size_times(rows, D);
    if (size_at_most(rows, INT_MAX, "B*S*N", "rows",
                     "the kernels index with int (chapter 7's key lists and cuBLAS's row count "
                     "are int)",
                     message, sizeof message) != 0 ||
        size_at_most(heads, INT_MAX, "B*N*H", "heads",
                     "the kernels index with int (the unfused layer's batch count is int)",
                     message, sizeof message) != 0) {
        fprintf(stderr, "%s: %s\n", program, message);
        return 2;
    }
    msa_size size = {(int)B, (int)S, (int)N, (int)D, (int)H};
    /* Which kernels run: with --only-new, only this chapter's. A kernel of an
     * earlier chapter that refuses the size is left out with a note (chapter 7
     * races unfused at sizes chapter 6's fused kernel cannot hold); a kernel
     * asked for by name, or one of this chapter's, refuses the whole run. */
    int runs[CLI_MAX_KERNELS] = {0};
    int refused = 0;
    for (int k = first; k <= last; k++) {
        char why[256] = "";
        const contender_facts *facts = &contenders[k].facts;
        const msa_kernel *kernel = contenders[k].kernel;
        if (!cli_runs_kernel(&options, facts->chapter, chapter))
            continue;
        runs[k] = 1;
        /* Logits near 90 are a test of the softmax of FP32-accurate kernels: a
         * TF32 product's error, a few 1e-4 of the logit, is then most of a weight. */
        if (options.logits > 0 && facts->tolerance > TOLERANCE_FP32) {
            runs[k] = 0;
            printf("note: kernel %s is TF32-accurate; the large-logit check (--logits) is for "
                   "FP32-accurate kernels; left out\n", facts->name);
            continue;
        }
        /* (a judge takes the sizes the emitting program took: its own
         * refusals may be the exercise's unsolved ones) */
        if (!options.judge_output && kernel->refuses && kernel->refuses(size, why, sizeof why)) {
            runs[k] = 0;
            if (!options.kernel && facts->chapter != chapter) {
                printf("note: kernel %s (chapter %d) does not support %s (%s); left out\n",
                       facts->name, facts->chapter, shape_text, why);
                continue;
            }
            fprintf(stderr, "%s: kernel %s refuses %s: %s\n", program, facts->name,
                    shape_text, why);
            refused = 1;
        }
    }
    if (refused)
        return 2;
    int running = 0;
    for (int k = first; k <= last; k++)
        running += runs[k];
    if (!running) {
        fprintf(stderr, "%s: no kernel left to run at %s%s\n", program, shape_text,
                options.logits > 0 ? " (--logits checks FP32-accurate kernels only)" : "");
        return 2;
    }

    /* Host memory: the inputs (the mask and the weights beside the activations),
     * the kernels' output, the referee's in double, and the referee's
     * buffers, 6*S*D + S doubles for each of its threads. */
    const size_t weights = size_plus(size_times(size_times(5, D), D), size_times(4, D));
    const size_t input_floats = size_plus(size_plus(elements, rows), weights);
    int referee_threads = 1;
#ifdef _OPENMP
    referee_threads = omp_get_max_threads();
#endif
    const size_t referee_doubles =
        size_times(size_plus(size_times(size_times(6, S), D), S), (size_t)referee_threads);
    const size_t host_bytes = size_plus(
        size_plus(size_times(input_floats, sizeof(float)),
                  size_times(elements, sizeof(float) + sizeof(double))),
        size_times(referee_doubles, sizeof(double)));
    if (size_fits_memory(host_bytes, host_memory_bytes(),
                         "host memory (the inputs, the output, the referee's output in double and "
                         "its buffers)",
                         "available on this machine", message, sizeof message) != 0) {
        fprintf(stderr, "%s: %s %s\n", program, shape_text, message);
        return 2;
    }
    /* The destinations, so that a run is not lost to a path that cannot be written. */
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
    if (options.save_dir && msa_check_save_directory(options.save_dir, message, sizeof message)) {
        fprintf(stderr, "%s: --save: %s\n", program, message);
        return 2;
    }
    if (options.errors_path && csv_check_destination_for(options.errors_path, CSV_ACCURACY_HEADER,
                                                         message, sizeof message)) {
        fprintf(stderr, "%s: --errors: %s\n", program, message);
        return 2;
    }
    /* The sizes fit: now the data of the input files (a bad mask is a file error too). */
    if (loaded && msa_load_data(options.load_dir, size, &inputs, message, sizeof message) != 0) {
        fprintf(stderr, "%s: --load: %s\n", program, message);
        return 2;
    }
    /* A loaded mask is what it is: its kind is read off it (kept or pad when it
     * is exactly that, drawn otherwise), and a kind asked for must agree. */
    if (loaded) {
        const int kind = msa_loaded_mask_kind(inputs.mask, size);
        if (options.choice_given && options.choice != kind) {
            fprintf(stderr, "%s: mask=%s, but %s/mask.npy holds a mask=%s mask\n", program,
                    msa_mask_kind_names[options.choice], options.load_dir,
                    msa_mask_kind_names[kind]);
            return 2;
        }
        options.choice = kind;
        cli_format_shape(&spec, &options, shape_text, sizeof shape_text);
    }

    const int judging = options.judge_output; /* no GPU: the output comes on stdin */
    if (!judging)
        gpu_require();

    report_context context;
    memset(&context, 0, sizeof context);
    context.problem = "msa";
    snprintf(context.shape, sizeof context.shape, "%s", shape_text);
    context.useful_flops = msa_useful_flops(size);
    context.compulsory_bytes = msa_compulsory_bytes(size);
    if (!judging)
        context.gpu = gpu_query();
    for (int k = 0; k < kernel_count && context.baseline_count < REPORT_MAX_BASELINES; k++)
        if (contenders[k].facts.role == CONTENDER_CHAMPION)
            context.baselines[context.baseline_count++] = contenders[k].facts.name;
    if (judging)
        printf("judging the outputs read from standard input, %s; seed %llu\n", shape_text,
               (unsigned long long)options.seed);
    else
        report_print_header(&context, (unsigned long long)options.seed);

    /* Device copies of the inputs and the output, in one allocation (each
     * tensor 256-byte aligned), as a framework keeps a layer's parameters
     * together; then the largest scratch any kernel asks for. */
    msa_args args;
    memset(&args, 0, sizeof args);
    args.size = size;
    size_t offsets[MSA_INPUT_COUNT + 1], arena_floats = 0;
    for (int which = 0; which <= MSA_INPUT_COUNT; which++) {
        offsets[which] = arena_floats;
        size_t count = which < MSA_INPUT_COUNT ? msa_input_count(size, which) : elements;
        arena_floats += (count + 63) / 64 * 64;
    }
    for (int k = first; k <= last; k++)
        if (runs[k] && contenders[k].kernel->scratch_floats) {
            size_t floats = contenders[k].kernel->scratch_floats(size);
            if (floats > args.scratch_floats)
                args.scratch_floats = floats;
        }
    /* Device memory, now that there is a device and before the referee's
     * work: the arena, the largest scratch and the buffer that flushes L2
     * between repetitions. */
    const size_t device_bytes =
        size_plus(size_times(size_plus(arena_floats, args.scratch_floats), sizeof(float)),
                  size_plus(size_times(2, (size_t)context.gpu.l2_bytes), GPU_MEMORY_HEADROOM));
    if (!judging && size_fits_memory(device_bytes, gpu_free_bytes(), "device memory",
                                     "free on the GPU", message, sizeof message) != 0) {
        fprintf(stderr, "%s: %s %s\n", program, shape_text, message);
        return 2;
    }

    if (!loaded) {
        if (msa_inputs_alloc(&inputs, size) != 0) {
            fprintf(stderr, "%s: out of host memory\n", program);
            return 2;
        }
        msa_draw_inputs(&inputs, size, options.seed);
        msa_apply_mask_kind(inputs.mask, size, (msa_mask_kind)options.choice);
    }
    if (options.logits > 0) {
        const double found = msa_scale_logits(&inputs, size, options.logits);
        printf("wq scaled: the kept keys' logit of largest magnitude goes from %.3g to +%.3g\n",
               found, options.logits);
    }
    msa_mask_census census = msa_count_mask_columns(inputs.mask, size);
    printf("inputs %s; mask columns: %ld all kept, %ld all masked, %ld single kept, %ld partial\n",
           loaded ? options.load_dir : "drawn from the seed", census.all_kept, census.all_masked,
           census.single_kept, census.partial);

    const size_t output_count = msa_output_count(size);
    float *got = (float *)malloc(output_count * sizeof(float));
    double *want = (double *)malloc(output_count * sizeof(double));
    if (!got || !want) {
        fprintf(stderr, "%s: out of host memory\n", program);
        return 2;
    }
    if (!options.emit_output) { /* the judge's work, in the other process */
        double started = wall_seconds();
        msa_reference(want, &inputs, size);
        printf("CPU referee: %.2f s\n", wall_seconds() - started);
    }

    float *arena = NULL;
    float *device_inputs[MSA_INPUT_COUNT] = {NULL};
    if (!judging) {
        CUDA_CHECK(cudaMalloc(&arena, arena_floats * sizeof(float)));
        for (int which = 0; which < MSA_INPUT_COUNT; which++) {
            device_inputs[which] = arena + offsets[which];
            CUDA_CHECK(cudaMemcpy(device_inputs[which], *msa_input_slot(&inputs, which),
                                  msa_input_count(size, which) * sizeof(float),
                                  cudaMemcpyHostToDevice));
        }
    }
    args.msa = device_inputs[MSA_IN_MSA];
    args.mask = device_inputs[MSA_IN_MASK];
    args.ln_gamma = device_inputs[MSA_IN_LN_GAMMA];
    args.ln_beta = device_inputs[MSA_IN_LN_BETA];
    args.wq = device_inputs[MSA_IN_WQ];
    args.wk = device_inputs[MSA_IN_WK];
    args.wv = device_inputs[MSA_IN_WV];
    args.wg = device_inputs[MSA_IN_WG];
    args.bg = device_inputs[MSA_IN_BG];
    args.wo = device_inputs[MSA_IN_WO];
    args.bo = device_inputs[MSA_IN_BO];
    args.out = judging ? NULL : arena + offsets[MSA_INPUT_COUNT];
    if (args.scratch_floats && !judging) {
        cudaError_t error = cudaMalloc(&args.scratch, args.scratch_floats * sizeof(float));
        if (error != cudaSuccess) {
            fprintf(stderr, "%s: cannot allocate %.1f MB of device scratch: %s\n", program,
                    args.scratch_floats * 4e-6, cudaGetErrorString(error));
            return 2;
        }
    }
    if (!judging) {
        CUDA_CHECK(cudaStreamCreate(&args.stream));
        CUBLAS_CHECK(cublasCreate(&args.cublas));
        CUBLAS_CHECK(cublasSetStream(args.cublas, args.stream));
    }

    report_entry entries[CLI_MAX_KERNELS];
    msa_race problem = {contenders, &args, context.compulsory_bytes};
    race_spec race;
    memset(&race, 0, sizeof race);
    race.facts = facts;
    race.runs = runs;
    race.first = first;
    race.last = last;
    race.problem = &problem;
    race.launch = launch_msa_contender;
    race.unfit = msa_contender_unfit;
    race.after_check = print_msa_scratch;
    race.gpu = &context.gpu;
    race.stream = args.stream;
    race.output = args.out;
    race.output_count = output_count;
    race.got = got;
    race.want = want;
    const compare_spec everything = {COMPARE_ALL, 0, TOLERANCE_FP32};
    race.compare = everything;
    race.check_only = options.check_only;
    race.reps = options.reps;
    race.graph_replays = 1; /* the small case is bound by launch latency */
    race.emit = options.emit_output;
    race.judge = judging;
    race_outcome outcome = race_contenders(&race, entries);
    const int entry_count = outcome.entries;
    /* got holds the last output checked, if any kernel ran */
    const int saved_output = outcome.ran > 0;
    if (!options.check_only) {
        report_print_table(&context, entries, entry_count);
        /* Like for like: direct launches against direct, replays against replays. */
        const report_entry *baseline = report_timed_entry(entries, entry_count, "unfused");
        if (baseline) {
            for (int k = 0; k < entry_count; k++) {
                if (!entries[k].timed || &entries[k] == baseline)
                    continue;
                printf("%s against unfused: %.2fx as single launches, %.2fx as graph replays\n",
                       entries[k].kernel, baseline->time.median_ms / entries[k].time.median_ms,
                       baseline->graph_time.median_ms / entries[k].graph_time.median_ms);
            }
        }
    }
    if (options.csv_path && report_append_csv(options.csv_path, &context, entries, entry_count))
        outcome.failed = 1;
    if (options.card_path && report_append_card(options.card_path, &context.gpu))
        outcome.failed = 1;
    if (options.errors_path && report_append_errors(options.errors_path, &context, entries,
                                                    entry_count, 1.0, options.logits))
        outcome.failed = 1;

    if (options.save_dir) {
        if (msa_save_tensors(options.save_dir, &inputs, size, shape_text, saved_output ? got : NULL,
                             message, sizeof message) != 0) {
            fprintf(stderr, "%s: --save: %s\n", program, message);
            outcome.failed = 1;
        } else {
            printf("saved the inputs%s as .npy files in %s\n",
                   saved_output ? " and out.npy" : "", options.save_dir);
        }
    }

    if (!judging) {
        CUBLAS_CHECK(cublasDestroy(args.cublas));
        CUDA_CHECK(cudaStreamDestroy(args.stream));
        CUDA_CHECK(cudaFree(arena));
        if (args.scratch)
            CUDA_CHECK(cudaFree(args.scratch));
    }
    msa_inputs_free(&inputs);
    free(got);
    free(want);
    return race_verdict(&outcome);
}
