/* solutions/host/10-wgmma-steps.cu - the host check of exercise 10.1: a
 * tile's part laid down by key_slot and read by a model of wgmma through
 * step_descriptor's fields.
 *
 * For every tile of keys = 8 to 256 and hs = 8 to 128 (multiples of 8: the
 * exercise's whole domain): every float of the part holds exactly one
 * key's value; every value of step j lies in the step's piece, floats
 * 8 keys j to 8 keys (j + 1) - 1; the fields are multiples of 16 in
 * [0, 2^18); and the byte the model reads for value k' of key n of step j,
 * start + (k' / 4) leading + (n / 8) stride + (n % 8) 16 + (k' % 4) 4 (the
 * non-swizzled K-major layout of wgmma's B, as common/device/wgmma.h's
 * wgmma_descriptor fills its fields), is the one key_slot gave. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define key_slot PROBED(key_slot)
#define step_descriptor PROBED(step_descriptor)

/* One tile's layout and its steps' descriptors. 0 when right, else 1 with why. */
static int check_tile(int keys, int hs, int *slots, unsigned char *seen, char *why,
                      size_t capacity)
{
    const int floats = keys * hs;
    memset(seen, 0, (size_t)floats);
    for (int n = 0; n < keys; n++)
        for (int k = 0; k < hs; k++) {
            const int slot = key_slot(n, k, keys, hs);
            slots[n * hs + k] = slot;
            if (slot < 0 || slot >= floats) {
                snprintf(why, capacity, "key_slot: a tile of %d keys, HS = %d: key %d value %d at "
                         "float %d, outside the part's %d floats", keys, hs, n, k, slot, floats);
                return 1;
            }
            if (seen[slot]) {
                snprintf(why, capacity, "key_slot: a tile of %d keys, HS = %d: key %d value %d at "
                         "float %d, which holds another value too", keys, hs, n, k, slot);
                return 1;
            }
            seen[slot] = 1;
        }
    for (int step = 0; step < hs / 8; step++) {
        const int first = 8 * keys * step, last = first + 8 * keys - 1;
        for (int n = 0; n < keys; n++)
            for (int kk = 0; kk < 8; kk++) {
                const int slot = slots[n * hs + 8 * step + kk];
                if (slot < first || slot > last) {
                    snprintf(why, capacity, "key_slot: a tile of %d keys, HS = %d: key %d value %d "
                             "(step %d) at float %d, outside the step's piece, floats %d to %d",
                             keys, hs, n, 8 * step + kk, step, slot, first, last);
                    return 1;
                }
            }
        const step_fields f = step_descriptor(step, keys, hs);
        const int fields[3] = {f.start, f.leading, f.stride};
        const char *names[3] = {"start", "leading", "stride"};
        for (int i = 0; i < 3; i++)
            if (fields[i] < 0 || fields[i] >= 1 << 18 || fields[i] % 16 != 0) {
                snprintf(why, capacity, "step_descriptor(%d, %d, %d): %s = %d bytes, not a "
                         "multiple of 16 in [0, 2^18)", step, keys, hs, names[i], fields[i]);
                return 1;
            }
        for (int n = 0; n < keys; n++)
            for (int kk = 0; kk < 8; kk++) {
                const long read = f.start + kk / 4 * (long)f.leading + n / 8 * (long)f.stride +
                                  n % 8 * 16 + kk % 4 * 4;
                const int slot = slots[n * hs + 8 * step + kk];
                if (read != 4L * slot) {
                    snprintf(why, capacity, "step_descriptor(%d, %d, %d) = {start %d, leading %d, "
                             "stride %d}: wgmma reads key %d value %d (k' = %d) at byte %ld, but "
                             "key_slot put it at float %d (byte %ld)", step, keys, hs, f.start,
                             f.leading, f.stride, n, 8 * step + kk, kk, read, slot, 4L * slot);
                    return 1;
                }
            }
    }
    return 0;
}

int host_check_main(int, char **)
{
    char why[320] = "";
    int failed = 0, tiles = 0;
    int *slots = (int *)malloc(sizeof(int) * 256 * 128);
    unsigned char *seen = (unsigned char *)malloc(256 * 128);
    for (int keys = 8; keys <= 256 && !failed; keys += 8)
        for (int hs = 8; hs <= 128 && !failed; hs += 8, tiles++)
            failed = check_tile(keys, hs, slots, seen, why, sizeof why);
    free(slots), free(seen);
    if (failed)
        host_check(0, "the layout", "%s", why);
    else
        host_check(1, "the layout", "%d tiles, keys 8 to 256 by HS 8 to 128: every float one "
                   "key's value, each step in one piece, every value read through the step's "
                   "descriptor where key_slot put it", tiles);
    return host_check_status();
}
