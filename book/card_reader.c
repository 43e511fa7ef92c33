/* card_reader.c - see card_reader.h. */
#include "card_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/gpu_peaks.h"
#include "harness/csv.h"
#include "plain_csv.h"

enum { C_GPU, C_CAPABILITY, C_SMS, C_CLOCK, C_MEMORY_CLOCK, C_BUS, C_SHARED, C_L2, C_CUDA,
       C_DATE, C_FIELDS };

/* The memory clocks and bus widths of the cards learned, for the source note. */
static struct {
    char gpu[256];
    int memory_clock_mhz, bus_width_bits;
} learned[64];
static int learned_count;


/* A whole number in [low, high], or -1. */
static long whole(const char *text, long low, long high)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && value >= low && value <= high ? value : -1;
}

/* One row (plain_csv_row): 0, or -1 with the message. */
static int learn_row(char **field, const char *path, int number, void *context, char *error,
                     size_t capacity)
{
    (void)context;
    if (!field[C_GPU][0] || strlen(field[C_GPU]) >= sizeof learned[0].gpu || strchr(field[C_GPU], '"'))
        return plain_csv_fail(error, capacity, path, number, "no card name, or a quoted one");
    int major = -1, minor = -1, end = 0;
    if (sscanf(field[C_CAPABILITY], "%d.%d%n", &major, &minor, &end) != 2 ||
        field[C_CAPABILITY][end] != '\0' || major < 0 || minor < 0 || minor > 9)
        return plain_csv_fail(error, capacity, path, number, "compute_capability is not MAJOR.MINOR");
    long sms = whole(field[C_SMS], 1, 100000), clock = whole(field[C_CLOCK], 1, 100000),
         memory_clock = whole(field[C_MEMORY_CLOCK], 0, 1000000),
         bus = whole(field[C_BUS], 0, 1000000), shared = whole(field[C_SHARED], 0, 1 << 20),
         l2 = whole(field[C_L2], 0, 1 << 30);
    if (sms < 0 || clock < 0 || memory_clock < 0 || bus < 0 || shared < 0 || l2 < 0)
        return plain_csv_fail(error, capacity, path, number,
                    "sm_count, clock_mhz, memory_clock_mhz, bus_width_bits, shared_per_block_kb "
                    "or l2_kb is not a whole number in its range");
    /* A card that reports no memory clock keeps its data sheet's bandwidth, if any. */
    double memory_gbps = gpu_memory_gbps_from((int)memory_clock * 1000, (int)bus);
    if (memory_gbps == 0)
        memory_gbps = gpu_card_memory_gbps(field[C_GPU]);
    gpu_card card = {field[C_GPU], (int)sms, (double)clock, major, minor,
                     gpu_name_is_geforce(field[C_GPU]), memory_gbps, 1};
    if (gpu_card_learn(&card) != 0)
        return plain_csv_fail(error, capacity, path, number,
                    "a compute capability before 7.5 (no card the workbook serves), or too many cards");
    int slot = 0;
    while (slot < learned_count && strcmp(learned[slot].gpu, field[C_GPU]) != 0)
        slot++;
    if (slot == learned_count && learned_count < (int)(sizeof learned / sizeof learned[0]))
        learned_count++;
    if (slot < learned_count) {
        snprintf(learned[slot].gpu, sizeof learned[slot].gpu, "%s", field[C_GPU]);
        learned[slot].memory_clock_mhz = (int)memory_clock;
        learned[slot].bus_width_bits = (int)bus;
    }
    return 0;
}

int card_reader_learn(const char *path, char *error, size_t capacity)
{
    int status = plain_csv_read(path, CSV_CARD_HEADER, C_FIELDS, learn_row, NULL, error, capacity);
    return status == 1 ? 0 : status; /* no file: nothing to learn */
}

const char *card_reader_source(const char *gpu, char *buffer, size_t capacity)
{
    const gpu_card *card = gpu_card_find(gpu);
    if (!card)
        return NULL;
    if (!card->reported) {
        snprintf(buffer, capacity, "its data sheet");
        return buffer;
    }
    int slot = 0;
    while (slot < learned_count && strcmp(learned[slot].gpu, gpu) != 0)
        slot++;
    int n = snprintf(buffer, capacity, "what CUDA reported on it: %d SMs at %.2f GHz, compute "
                     "capability %d.%d", card->sm_count, card->clock_mhz / 1000, card->major,
                     card->minor);
    if (n >= 0 && (size_t)n < capacity && slot < learned_count && card->memory_gbps > 0)
        snprintf(buffer + n, capacity - (size_t)n, ", a %d-bit memory bus at %.2f GHz",
                 learned[slot].bus_width_bits, learned[slot].memory_clock_mhz / 1000.0);
    return buffer;
}
