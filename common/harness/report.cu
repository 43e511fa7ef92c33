/* report.cu - see report.h. */
#include "harness/report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/csv.h"

/* The Makefile exports WORKBOOK_COMMIT (git rev-parse --short HEAD). */
static const char *measured_commit(void)
{
    const char *commit = getenv("WORKBOOK_COMMIT");
    return commit && *commit ? commit : "unknown";
}

static void today_iso(char *buffer, size_t capacity)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(buffer, capacity, "%Y-%m-%d", &utc);
}

static double peak_of(const report_context *context, gpu_pipe pipe)
{
    return pipe == GPU_PIPE_TENSOR ? context->gpu.tf32_peak_gflops : context->gpu.fp32_peak_gflops;
}

void report_print_header(const report_context *context, unsigned long long seed)
{
    const gpu_info *gpu = &context->gpu;
    printf("%s, %s, CUDA %s, %d SMs at %d MHz: FP32 peak %.1f TFLOP/s, TF32 tensor peak %.1f "
           "TFLOP/s\n", gpu->name, context->shape, gpu->cuda_version, gpu->sm_count,
           gpu->clock_khz / 1000, gpu->fp32_peak_gflops * 1e-3, gpu->tf32_peak_gflops * 1e-3);
    printf("dense work %.3f GFLOP: FP32 floor %.4f ms", context->useful_flops * 1e-9,
           context->useful_flops / (gpu->fp32_peak_gflops * 1e6));
    if (gpu->tf32_peak_gflops > 0)
        printf(", TF32 floor %.4f ms", context->useful_flops / (gpu->tf32_peak_gflops * 1e6));
    printf("; compulsory traffic %.1f MB", context->compulsory_bytes * 1e-6);
    if (gpu->memory_gbps > 0)
        printf(", memory floor %.4f ms at %.0f GB/s", context->compulsory_bytes /
               (gpu->memory_gbps * 1e6), gpu->memory_gbps);
    printf("; seed %llu\n", seed);
    if (gpu->emulated[0])
        printf("keeping to the limits of a %s (WORKBOOK_CARD): compute capability %d.%d, %zu "
               "bytes of shared memory per block; the times are this card's\n", gpu->emulated,
               gpu->compute_major, gpu->compute_minor, gpu->shared_per_block_optin);
}

int report_skip_unless_runs(report_entry *entry, const contender_facts *facts,
                            const gpu_info *gpu, const char *unfit_why)
{
    if (gpu_lacks_capability(gpu, facts->needs_major, facts->needs_minor,
                             facts->needs_arch_specific, entry->why, sizeof entry->why) == 0) {
        if (!unfit_why)
            return 0;
        snprintf(entry->why, sizeof entry->why, "%s", unfit_why);
    }
    entry->skipped = 1;
    printf("skip  %-24s %s\n", facts->name, entry->why);
    return 1;
}

const report_entry *report_timed_entry(const report_entry *entries, int count, const char *kernel)
{
    for (int k = 0; k < count; k++)
        if (entries[k].timed && strcmp(entries[k].kernel, kernel) == 0)
            return &entries[k];
    return NULL;
}

static void print_row(const report_context *context, const report_entry *entries, int count,
                      const report_entry *entry, const char *label, timing_summary time)
{
    double gflops = context->useful_flops / (time.median_ms * 1e6);
    double peak = peak_of(context, entry->pipe);
    printf("%-24s %2d  %-4s %10.4f %10.4f %10.4f %9.0f", label, entry->chapter,
           entry->checked ? (entry->check.passed ? "ok" : "FAIL") : "-", time.median_ms,
           time.min_ms, time.max_ms, gflops);
    if (peak > 0)
        printf(" %5.1f%% %-4s", 100.0 * gflops / peak,
               entry->pipe == GPU_PIPE_TENSOR ? "TF32" : "FP32");
    else
        printf(" %11s", "-");
    for (int b = 0; b < context->baseline_count; b++) {
        const report_entry *baseline = report_timed_entry(entries, count, context->baselines[b]);
        if (baseline)
            printf("  %12.2fx", baseline->time.median_ms / time.median_ms);
        else
            printf("  %13s", "-");
    }
    printf("\n");
}

void report_print_table(const report_context *context, const report_entry *entries, int count)
{
    printf("\n%-24s %2s  %-4s %10s %10s %10s %9s %11s", "kernel", "ch", "chk", "median_ms",
           "min_ms", "max_ms", "GFLOP/s", "% of peak");
    for (int b = 0; b < context->baseline_count; b++)
        printf("  vs %-10.10s", context->baselines[b]);
    printf("\n");
    for (int k = 0; k < count; k++) {
        const report_entry *entry = &entries[k];
        if (entry->skipped) {
            printf("%-24s %2d  %-4s %10s\n", entry->kernel, entry->chapter, "-",
                   "skipped: this card cannot run it (see above)");
            continue;
        }
        if (!entry->timed) {
            printf("%-24s %2d  %-4s %10s\n", entry->kernel, entry->chapter,
                   entry->checked ? (entry->check.passed ? "ok" : "FAIL") : "-", "not timed");
            continue;
        }
        print_row(context, entries, count, entry, entry->kernel, entry->time);
        if (entry->graph_timed) {
            char label[64];
            snprintf(label, sizeof label, "%s+graph", entry->kernel);
            print_row(context, entries, count, entry, label, entry->graph_time);
        }
    }
    printf("GFLOP/s count the dense work; %% of peak is against the FP32 lanes' peak (FP32) "
           "or the dense TF32 tensor peak (TF32), whichever the kernel runs on.\n");
}

static int append_row(const char *path, const report_context *context, const report_entry *entry,
                      const char *kernel, timing_summary time, const char *date)
{
    csv_row row;
    row.chapter = entry->chapter;
    row.kernel = kernel;
    row.problem = context->problem;
    row.shape = context->shape;
    row.median_ms = time.median_ms;
    row.min_ms = time.min_ms;
    row.max_ms = time.max_ms;
    row.gflops = context->useful_flops / (time.median_ms * 1e6);
    row.gbps = context->compulsory_bytes / (time.median_ms * 1e6);
    row.gpu = context->gpu.name;
    row.cuda = context->gpu.cuda_version;
    row.commit = measured_commit();
    row.date = date;
    return csv_append(path, &row);
}

int report_append_csv(const char *path, const report_context *context,
                      const report_entry *entries, int count)
{
    char date[16];
    today_iso(date, sizeof date);
    for (int k = 0; k < count; k++) {
        const report_entry *entry = &entries[k];
        if (!entry->timed)
            continue;
        if (append_row(path, context, entry, entry->kernel, entry->time, date) != 0)
            return -1;
        if (entry->graph_timed) {
            char kernel[64];
            snprintf(kernel, sizeof kernel, "%s+graph", entry->kernel);
            if (append_row(path, context, entry, kernel, entry->graph_time, date) != 0)
                return -1;
        }
    }
    return 0;
}

int report_append_card(const char *path, const gpu_info *gpu)
{
    char line[CSV_MAX_LINE], date[16];
    today_iso(date, sizeof date);
    /* CUDA's device names hold no comma or quote: no field needs quoting. */
    int facts = snprintf(line, sizeof line, "%s,%d.%d,%d,%d,%d,%d,%zu,%d,", gpu->name,
                         gpu->compute_major, gpu->compute_minor, gpu->sm_count,
                         gpu->clock_khz / 1000, gpu->memory_clock_khz / 1000,
                         gpu->bus_width_bits, gpu->shared_per_block_optin / 1024,
                         gpu->l2_bytes / 1024);
    if (facts < 0 || (size_t)facts >= sizeof line)
        return -1;
    FILE *file = fopen(path, "r");
    char known[CSV_MAX_LINE];
    int recorded = 0;
    while (file && !recorded && fgets(known, sizeof known, file))
        recorded = strncmp(known, line, (size_t)facts) == 0;
    if (file)
        fclose(file);
    if (recorded)
        return 0;
    int n = snprintf(line + facts, sizeof line - (size_t)facts, "%s,%s", gpu->cuda_version, date);
    if (n < 0 || (size_t)(facts + n) >= sizeof line)
        return -1;
    return csv_append_line(path, CSV_CARD_HEADER, line);
}

int report_append_errors(const char *path, const report_context *context,
                         const report_entry *entries, int count, double input_scale,
                         double largest_logit)
{
    char date[16];
    today_iso(date, sizeof date);
    for (int k = 0; k < count; k++) {
        const report_entry *entry = &entries[k];
        if (!entry->checked)
            continue;
        char line[CSV_MAX_LINE];
        /* The names hold no comma or quote (chapters/kernels.list, the shape
         * spelling, CUDA's device names): no field needs quoting. */
        int n = snprintf(line, sizeof line, "%d,%s,%s,%s,%g,%g,%.3e,%.3e,%s,%s,%s,%s",
                         entry->chapter, entry->kernel, context->problem, context->shape,
                         input_scale, largest_logit, entry->check.rel_l2_error,
                         entry->check.max_abs_error, context->gpu.name,
                         context->gpu.cuda_version, measured_commit(), date);
        if (n < 0 || (size_t)n >= sizeof line || csv_append_line(path, CSV_ACCURACY_HEADER, line))
            return -1;
    }
    return 0;
}
