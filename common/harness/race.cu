/* race.cu - see race.h. */
#include "harness/race.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/timing.h"

/* What time_gpu_work needs to launch one contender: the race and which. */
typedef struct {
    const race_spec *race;
    int k;
} race_work;

static void launch_contender(void *context, cudaStream_t stream)
{
    const race_work *work = (const race_work *)context;
    work->race->launch(work->race->problem, work->k, stream);
}

/* Writes all of `size` bytes to descriptor fd; 0 when done. */
static int write_all(int fd, const void *bytes, size_t size)
{
    const char *from = (const char *)bytes;
    while (size > 0) {
        const ssize_t wrote = write(fd, from, size);
        if (wrote <= 0)
            return 1;
        from += wrote, size -= (size_t)wrote;
    }
    return 0;
}

/* One output to descriptor 3 (--emit-output); 0 when written. */
static int emit_output(const float *got, size_t count)
{
    const uint64_t floats = count;
    return write_all(3, RACE_OUTPUT_MAGIC, 8) || write_all(3, &floats, sizeof floats) ||
           write_all(3, got, count * sizeof(float));
}

/* One output from standard input (--judge-output); 0 when it came whole,
 * else 1 with why. */
static int judge_input(float *got, size_t count, char *why, size_t capacity)
{
    char magic[8];
    uint64_t floats = 0;
    if (fread(magic, 1, 8, stdin) != 8 || memcmp(magic, RACE_OUTPUT_MAGIC, 8) != 0) {
        snprintf(why, capacity, "no output came from the program");
        return 1;
    }
    if (fread(&floats, sizeof floats, 1, stdin) != 1 || floats != count) {
        snprintf(why, capacity, "the program's output holds %llu floats, not %zu",
                 (unsigned long long)floats, count);
        return 1;
    }
    if (fread(got, sizeof(float), count, stdin) != count) {
        snprintf(why, capacity, "the program's output ended early");
        return 1;
    }
    return 0;
}

race_outcome race_contenders(const race_spec *race, report_entry *entries)
{
    race_outcome outcome = {0, 0, 0, 0};
    compare_spec compare = race->compare;
    for (int k = race->first; k <= race->last; k++) {
        const contender_facts *facts = race->facts[k];
        if (!race->runs[k])
            continue;
        report_entry *entry = &entries[outcome.entries++];
        memset(entry, 0, sizeof *entry);
        entry->kernel = facts->name;
        entry->chapter = facts->chapter;
        entry->pipe = facts->pipe;
        if (race->judge) {
            /* what the kernel left, as the other end of the check wrote it */
            char why[160];
            outcome.ran++;
            if (judge_input(race->got, race->output_count, why, sizeof why)) {
                printf("check %-24s FAIL: %s\n", facts->name, why);
                outcome.failed = 1;
                continue;
            }
        } else {
            char unfit_why[256];
            const int unfit = race->unfit && race->unfit(race->problem, k, race->gpu, unfit_why,
                                                         sizeof unfit_why);
            if (report_skip_unless_runs(entry, facts, race->gpu, unfit ? unfit_why : NULL))
                continue;
            outcome.ran++;

            gpu_fill_nan(race->output, race->output_count, race->stream);
            race->launch(race->problem, k, race->stream);
            CUDA_CHECK(cudaStreamSynchronize(race->stream));
            CUDA_CHECK(cudaMemcpy(race->got, race->output, race->output_count * sizeof(float),
                                  cudaMemcpyDeviceToHost));
        }
        if (race->emit) {
            if (emit_output(race->got, race->output_count)) {
                printf("emit %-24s FAIL: descriptor 3 is not open for writing\n", facts->name);
                outcome.failed = 1;
            } else {
                printf("emit %-24s %zu floats to descriptor 3, checked by the judge\n",
                       facts->name, race->output_count);
                outcome.emitted++;
            }
            continue;
        }
        compare.tolerance = facts->tolerance;
        entry->checked = 1;
        entry->check = compare_results(race->got, race->want, race->output_count, compare);
        printf("check %-24s ", facts->name);
        compare_print(&entry->check, stdout);
        if (race->after_check)
            race->after_check(race->problem, k);
        if (!entry->check.passed) {
            outcome.failed = 1;
            continue;
        }
        if (!race->check_only) {
            race_work work = {race, k};
            entry->time = time_gpu_work(launch_contender, &work, race->stream, race->reps);
            entry->timed = 1;
            if (race->graph_replays) {
                entry->graph_time = time_gpu_graph(launch_contender, &work, race->stream,
                                                   race->reps);
                entry->graph_timed = 1;
            }
        }
    }
    return outcome;
}

int race_verdict(const race_outcome *outcome)
{
    if (outcome->emitted && !outcome->failed) {
        printf("outputs emitted, unchecked: the judge checks them\n");
        return 0;
    }
    if (!outcome->ran && !outcome->failed) {
        printf("SKIPPED: this card can run none of the kernels asked for\n");
        return EXIT_SKIPPED;
    }
    const char *verdict = outcome->failed ? "FAILED"
                          : outcome->ran < outcome->entries ? "all checks passed (the rest skipped)"
                                                            : "all checks passed";
    printf("%s\n", verdict);
    return outcome->failed ? 1 : 0;
}
