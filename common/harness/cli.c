/* cli.c - see cli.h. */
#include "harness/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "harness/csv.h"
#include "harness/numbers.h"
#include "harness/rng.h"

/* The options a command line may give once each: a second one is refused,
 * as a second value of one size is (which one was meant?). */
static int given_twice(const char *arg, const char **given, int *given_count)
{
    for (int k = 0; k < *given_count; k++)
        if (strcmp(given[k], arg) == 0)
            return 1;
    given[(*given_count)++] = arg;
    return 0;
}

/* KEY=NAME for the program's choice: 1 when arg is the choice (0 parsed, or
 * -1 with the message), 0 when it is not. */
static int parse_choice(const cli_spec *spec, const char *arg, cli_options *options, int *status,
                        char *message, size_t capacity)
{
    const char *equals = strchr(arg, '=');
    size_t key_length = (size_t)(equals - arg);
    if (!spec->choice_key || strlen(spec->choice_key) != key_length ||
        strncmp(spec->choice_key, arg, key_length) != 0)
        return 0;
    *status = -1;
    if (options->choice_given) {
        snprintf(message, capacity, "%s: %s is given twice (%s=%s, then %s); give it once",
                 spec->program, spec->choice_key, spec->choice_key,
                 spec->choice_names[options->choice], arg);
        return 1;
    }
    for (int c = 0; c < spec->choice_count; c++)
        if (strcmp(equals + 1, spec->choice_names[c]) == 0) {
            options->choice = c;
            options->choice_given = 1;
            *status = 0;
            return 1;
        }
    int n = snprintf(message, capacity, "%s: '%s': %s is one of", spec->program, arg,
                     spec->choice_key);
    for (int c = 0; c < spec->choice_count && n > 0 && (size_t)n < capacity; c++)
        n += snprintf(message + n, capacity - (size_t)n, " %s", spec->choice_names[c]);
    return 1;
}

/* A positive finite decimal number up to 1e30; 0 on success. */
static int parse_positive(const char *text, double *value)
{
    double parsed;
    if (decimal_number_parse(text, &parsed) != 0 || !(parsed > 0) || parsed > 1e30)
        return -1;
    *value = parsed;
    return 0;
}

static int parse_size(const cli_spec *spec, const char *arg, cli_options *options,
                      char *message, size_t capacity)
{
    const char *equals = strchr(arg, '=');
    size_t key_length = (size_t)(equals - arg);
    int choice_status;
    if (parse_choice(spec, arg, options, &choice_status, message, capacity))
        return choice_status;
    for (int k = 0; k < spec->size_count; k++) {
        if (strlen(spec->size_names[k]) == key_length &&
            strncmp(spec->size_names[k], arg, key_length) == 0) {
            /* Two values for one size: which one was meant? Not "the last wins". */
            if (options->size_given[k]) {
                snprintf(message, capacity, "%s: %s is given twice (%s=%ld, then %s); give it once",
                         spec->program, spec->size_names[k], spec->size_names[k],
                         options->sizes[k], arg);
                return -1;
            }
            options->size_given[k] = 1;
            long long size;
            whole_number_status status = whole_number_parse(equals + 1, 1, INT_MAX, &size);
            if (status == WHOLE_NUMBER_OK) {
                options->sizes[k] = (long)size;
                return 0;
            }
            /* Every kernel takes its sizes as int: a larger whole number is
             * refused for that limit, anything else (0 too) for not being one. */
            if (status == WHOLE_NUMBER_OUT_OF_RANGE && strcmp(equals + 1, "0") != 0)
                snprintf(message, capacity, "%s: %s is larger than %d (sizes are int)",
                         spec->program, arg, INT_MAX);
            else
                snprintf(message, capacity, "%s: '%s' must be a positive whole number (decimal "
                         "digits, no sign, no leading zero)", spec->program, arg);
            return -1;
        }
    }
    int n = snprintf(message, capacity, "%s: unknown size '%.*s'; sizes are", spec->program,
                     (int)key_length, arg);
    for (int k = 0; k < spec->size_count && n > 0 && (size_t)n < capacity; k++)
        n += snprintf(message + n, capacity - (size_t)n, " %s=", spec->size_names[k]);
    return -1;
}

cli_status cli_parse(const cli_spec *spec, int argc, char **argv, cli_options *options,
                     char *message, size_t capacity)
{
    memset(options, 0, sizeof *options);
    for (int k = 0; k < spec->size_count; k++)
        options->sizes[k] = spec->size_defaults[k];
    options->reps = CLI_DEFAULT_REPS;
    options->seed = RNG_DEFAULT_SEED;
    options->choice = spec->choice_default;
    options->input_scale = 1.0;
    message[0] = '\0';
    const char *given[32]; /* the options seen so far; there are fewer kinds than that */
    int given_count = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int is_flag = strcmp(arg, "--check-only") == 0 || strcmp(arg, "--only-new") == 0 ||
                      strcmp(arg, "--list") == 0 || strcmp(arg, "--emit-output") == 0 ||
                      strcmp(arg, "--judge-output") == 0;
        int takes_value = strcmp(arg, "--kernel") == 0 || strcmp(arg, "--csv") == 0 ||
                          strcmp(arg, "--reps") == 0 || strcmp(arg, "--seed") == 0 ||
                          strcmp(arg, "--load") == 0 || strcmp(arg, "--save") == 0 ||
                          strcmp(arg, "--errors") == 0 || strcmp(arg, "--input-scale") == 0 ||
                          strcmp(arg, "--logits") == 0 || strcmp(arg, "--card") == 0;
        if ((is_flag || takes_value) && given_twice(arg, given, &given_count)) {
            snprintf(message, capacity, "%s: %s is given twice; give it once", spec->program, arg);
            return CLI_ERROR;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            cli_print_usage(spec, stdout);
            return CLI_DONE;
        } else if (strcmp(arg, "--check-only") == 0) {
            options->check_only = 1;
        } else if (strcmp(arg, "--only-new") == 0) {
            options->only_new = 1;
        } else if (strcmp(arg, "--list") == 0) {
            options->list = 1;
        } else if (strcmp(arg, "--emit-output") == 0) {
            options->emit_output = 1, options->check_only = 1;
        } else if (strcmp(arg, "--judge-output") == 0) {
            options->judge_output = 1, options->check_only = 1;
        } else if (takes_value) {
            if (!value || !*value) {
                snprintf(message, capacity, "%s: %s needs a value", spec->program, arg);
                return CLI_ERROR;
            }
            i++;
            if (strcmp(arg, "--kernel") == 0) {
                options->kernel = value;
            } else if (strcmp(arg, "--csv") == 0) {
                options->csv_path = value;
            } else if (strcmp(arg, "--errors") == 0) {
                options->errors_path = value;
            } else if (strcmp(arg, "--card") == 0) {
                options->card_path = value;
            } else if (strcmp(arg, "--input-scale") == 0 || strcmp(arg, "--logits") == 0) {
                const int logits = strcmp(arg, "--logits") == 0;
                if (!(logits ? spec->scales_logits : spec->scales_inputs)) {
                    snprintf(message, capacity, "%s: %s is not supported by this program",
                             spec->program, arg);
                    return CLI_ERROR;
                }
                double *target = logits ? &options->logits : &options->input_scale;
                if (parse_positive(value, target) != 0) {
                    snprintf(message, capacity, "%s: %s '%s' must be a positive number",
                             spec->program, arg, value);
                    return CLI_ERROR;
                }
            } else if (strcmp(arg, "--reps") == 0) {
                long long reps;
                if (whole_number_parse(value, CLI_MIN_REPS, 100000, &reps) != WHOLE_NUMBER_OK) {
                    snprintf(message, capacity, "%s: --reps '%s' must be a whole number from %d "
                             "to 100000", spec->program, value, CLI_MIN_REPS);
                    return CLI_ERROR;
                }
                options->reps = (int)reps;
            } else if (strcmp(arg, "--seed") == 0) {
                unsigned long long seed;
                if (whole_number_parse_unsigned(value, UINT64_MAX, &seed) != WHOLE_NUMBER_OK) {
                    snprintf(message, capacity, "%s: --seed '%s' must be a whole number from 0 "
                             "to %llu", spec->program, value, (unsigned long long)UINT64_MAX);
                    return CLI_ERROR;
                }
                options->seed = (uint64_t)seed;
            } else if (!spec->allows_files) {
                snprintf(message, capacity, "%s: %s is not supported by this program",
                         spec->program, arg);
                return CLI_ERROR;
            } else if (strcmp(arg, "--load") == 0) {
                options->load_dir = value;
            } else {
                options->save_dir = value;
            }
        } else if (arg[0] != '-' && strchr(arg, '=')) {
            if (parse_size(spec, arg, options, message, capacity) != 0)
                return CLI_ERROR;
        } else {
            snprintf(message, capacity, "%s: unknown argument '%s' (try --help)", spec->program, arg);
            return CLI_ERROR;
        }
    }
    if (options->emit_output && options->judge_output) {
        snprintf(message, capacity, "%s: --emit-output and --judge-output are the two ends of "
                 "one check; give one", spec->program);
        return CLI_ERROR;
    }
    if ((options->emit_output || options->judge_output) &&
        (options->csv_path || options->card_path || options->load_dir || options->save_dir)) {
        snprintf(message, capacity, "%s: --%s checks one output: no --csv, --card, --load or "
                 "--save with it", spec->program,
                 options->emit_output ? "emit-output" : "judge-output");
        return CLI_ERROR;
    }
    return CLI_RUN;
}

void cli_print_usage(const cli_spec *spec, FILE *out)
{
    fprintf(out, "%s: %s\n\nusage: %s", spec->program, spec->summary, spec->program);
    for (int k = 0; k < spec->size_count; k++)
        fprintf(out, " [%s=%ld]", spec->size_names[k], spec->size_defaults[k]);
    if (spec->choice_key)
        fprintf(out, " [%s=%s]", spec->choice_key, spec->choice_names[spec->choice_default]);
    fprintf(out, " [options]\n\n"
                 "  KEY=VALUE          problem size (defaults shown above)\n"
                 "  --kernel NAME|N    run one kernel, by name or by its number in --list\n"
                 "  --list             list the kernels of this program and exit\n"
                 "  --reps N           timed repetitions, at least %d (default %d)\n"
                 "  --csv FILE         append one result row per kernel to FILE\n"
                 "  --check-only       check against the CPU referee, do not time\n"
                 "  --only-new         run only the kernels this chapter introduces\n"
                 "  --emit-output      check nothing: write each kernel's output to descriptor 3\n"
                 "  --judge-output     run no kernel: check the output --emit-output wrote, read\n"
                 "                     from standard input (the grader's two processes)\n"
                 "  --seed N           seed of the random inputs (default %u)\n",
            CLI_MIN_REPS, CLI_DEFAULT_REPS, RNG_DEFAULT_SEED);
    if (spec->choice_key) {
        fprintf(out, "  %s=NAME", spec->choice_key);
        for (size_t pad = strlen(spec->choice_key) + 5; pad < 19; pad++)
            fputc(' ', out);
        fprintf(out, "one of");
        for (int c = 0; c < spec->choice_count; c++)
            fprintf(out, " %s", spec->choice_names[c]);
        fprintf(out, " (default %s)\n", spec->choice_names[spec->choice_default]);
    }
    fprintf(out, "  --errors FILE      append each check's error to FILE (plots/data/accuracy/)\n");
    fprintf(out, "  --card FILE        record the card's facts, as CUDA reports them, in FILE\n"
                 "                     (plots/data/cards/cards.csv): the book's peaks and floors\n");
    if (spec->scales_inputs)
        fprintf(out, "  --input-scale X    draw the inputs in +-X instead of +-1\n");
    if (spec->scales_logits)
        fprintf(out, "  --logits L         scale wq: kept keys' largest-magnitude logit becomes +L\n");
    if (spec->allows_files)
        fprintf(out, "  --load DIR         read the inputs from DIR/<name>.npy\n"
                     "  --save DIR         write the inputs, the output and the run's shape\n"
                     "                     (out.npy, shape.txt) to DIR\n");
    fprintf(out, "  --help             this text\n\n"
                 "exit status: 0 passed, 1 a check failed, 2 bad arguments, sizes or files\n"
                 "(refused before any GPU work), 77 no CUDA GPU (skipped)\n");
}

int cli_find_kernel(const char *wanted, const char *const *names, int count, char *message,
                    size_t capacity)
{
    for (int k = 0; k < count; k++)
        if (strcmp(wanted, names[k]) == 0)
            return k;
    long long number;
    if (whole_number_parse(wanted, 1, count, &number) == WHOLE_NUMBER_OK)
        return (int)number - 1;
    int n = snprintf(message, capacity, "unknown kernel '%s'; choose a name or a number:", wanted);
    for (int k = 0; k < count && n > 0 && (size_t)n < capacity; k++)
        n += snprintf(message + n, capacity - (size_t)n, " %d=%s", k + 1, names[k]);
    return -1;
}

int cli_choose_kernels(const char *program, const cli_options *options,
                       const char *const *names, const int *chapters, const char *const *wheres,
                       int count, int *first, int *last)
{
    if (count > CLI_MAX_KERNELS) {
        fprintf(stderr, "%s: at most %d kernels\n", program, CLI_MAX_KERNELS);
        return 2;
    }
    *first = 0;
    *last = count - 1;
    if (options->kernel) { /* checked with --list too: a wrong name is wrong either way */
        char message[1024];
        *first = *last = cli_find_kernel(options->kernel, names, count, message, sizeof message);
        if (*first < 0) {
            fprintf(stderr, "%s: %s\n", program, message);
            return 2;
        }
    }
    if (options->list) {
        for (int k = *first; k <= *last; k++) {
            printf("%d %s (chapter %d)", k + 1, names[k], chapters[k]);
            if (wheres && wheres[k] && wheres[k][0])
                printf("  %s", wheres[k]);
            putchar('\n');
        }
        return 0;
    }
    return -1;
}

int cli_runs_kernel(const cli_options *options, int kernel_chapter, int chapter)
{
    return !options->only_new || kernel_chapter == chapter;
}

int cli_start(const cli_spec *spec, int argc, char **argv, const char *const *names,
              const int *chapters, const char *const *wheres, int count, cli_options *options,
              int *first, int *last)
{
    char message[2048];
    const cli_status status = cli_parse(spec, argc, argv, options, message, sizeof message);
    if (status == CLI_DONE)
        return 0;
    if (status == CLI_ERROR) {
        fprintf(stderr, "%s\n", message);
        return 2;
    }
    /* The destinations are checked before --list returns, so that a command
     * line a run would refuse is refused however it ends (the runners check
     * them again, later, which costs nothing). */
    if (options->csv_path && csv_check_destination(options->csv_path, message, sizeof message)) {
        fprintf(stderr, "%s: --csv: %s\n", spec->program, message);
        return 2;
    }
    if (options->errors_path && csv_check_destination_for(options->errors_path, CSV_ACCURACY_HEADER,
                                                          message, sizeof message)) {
        fprintf(stderr, "%s: --errors: %s\n", spec->program, message);
        return 2;
    }
    if (options->card_path && csv_check_destination_for(options->card_path, CSV_CARD_HEADER,
                                                        message, sizeof message)) {
        fprintf(stderr, "%s: --card: %s\n", spec->program, message);
        return 2;
    }
    return cli_choose_kernels(spec->program, options, names, chapters, wheres, count, first, last);
}

void cli_format_shape(const cli_spec *spec, const cli_options *options, char *buffer,
                      size_t capacity)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int k = 0; k < spec->size_count && used < capacity; k++) {
        int n = snprintf(buffer + used, capacity - used, "%s%s=%ld", k ? " " : "",
                         spec->size_names[k], options->sizes[k]);
        if (n < 0)
            return;
        used += (size_t)n;
    }
    if (spec->choice_key && used < capacity)
        snprintf(buffer + used, capacity - used, " %s=%s", spec->choice_key,
                 spec->choice_names[options->choice]);
}
