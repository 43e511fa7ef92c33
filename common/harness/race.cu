/* race.cu - see race.h. */
#include "harness/race.h"

#include <stdio.h>
#include <string.h>

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

race_outcome race_contenders(const race_spec *race, report_entry *entries)
{
    race_outcome outcome = {0, 0, 0};
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
