/* solutions/host/12-roles-schedule.cu - the host check of exercise 12.1:
 * the schedule walked unit by unit, against the properties the statement
 * gives, counted the slow way.
 *
 * For every H from 1 to 32 with every n from 1 to 64, and for larger
 * schedules (1000 x 512, 999 x 511 and two drawn from the grading's seed),
 * every unit: schedule_units against the work of all the rows in units of
 * n + 1 (rounded up); each unit 1 or 2 rows, inside the heads and rows, no
 * row twice, its work n + 1 (the last (n + 1) / 2 where H n is odd), its
 * longer row first, the head never decreasing along the walk; every row
 * in some unit. For schedules up to H (n + 1) near 2^31, whose units are
 * too many to walk, stretches of units (the first, the last and some drawn
 * between): the same properties within the sample, the head never
 * decreasing from one stretch to the next, no row twice among them. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define schedule_units PROBED(schedule_units)
#define unit_at PROBED(unit_at)

#define STRETCH 2000 /* units a stretch of a sampled schedule */
#define STRETCHES 24 /* stretches a sampled schedule: the first, the last and 22 drawn */

/* The units there must be: the heads' work, row r counting r + 1, in units
 * of n + 1, rounded up. */
static long units_wanted(long heads, long rows)
{
    long work = 0;
    for (long r = 0; r < rows && rows <= 4096; r++)
        work += r + 1;
    if (rows > 4096)
        work = rows * (rows + 1) / 2; /* (too many rows to add up one by one) */
    const long whole = rows + 1;
    return (heads * work + whole - 1) / whole;
}

/* One unit against the statement's properties, and against the head the
 * walk reached (*last_head, updated). 0 when right, else 1 with why. */
static int check_unit(long unit, long units, long heads, long rows, const schedule_unit &u,
                      long *last_head, char *why, size_t capacity)
{
    char where[96];
    snprintf(where, sizeof where, "%ld heads of %ld rows, unit %ld of %ld", heads, rows, unit,
             units);
    if (u.count != 1 && u.count != 2) {
        snprintf(why, capacity, "%s: count is %d; a unit has 1 or 2 rows", where, u.count);
        return 1;
    }
    long work = 0;
    for (int k = 0; k < u.count; k++) {
        if (u.head[k] < 0 || u.head[k] >= heads || u.tile_row[k] < 0 || u.tile_row[k] >= rows) {
            snprintf(why, capacity, "%s: row %d is head %d row %d, outside the %ld heads of %ld "
                     "rows", where, k, u.head[k], u.tile_row[k], heads, rows);
            return 1;
        }
        if (u.head[k] < *last_head) {
            snprintf(why, capacity, "%s: row %d is of head %d, after a row of head %ld: the head "
                     "decreases along the walk (not head-major)", where, k, u.head[k], *last_head);
            return 1;
        }
        *last_head = u.head[k];
        work += u.tile_row[k] + 1L;
    }
    if (u.count == 2 && u.tile_row[0] < u.tile_row[1]) {
        snprintf(why, capacity, "%s: its rows are row %d (work %d) then row %d (work %d): the "
                 "longer row comes first", where, u.tile_row[0], u.tile_row[0] + 1, u.tile_row[1],
                 u.tile_row[1] + 1);
        return 1;
    }
    const int odd = heads % 2 == 1 && rows % 2 == 1;
    const long want = odd && unit == units - 1 ? (rows + 1) / 2 : rows + 1;
    if (work != want) {
        if (u.count == 2)
            snprintf(why, capacity, "%s: rows %d and %d (heads %d, %d) have work %ld; %s %ld",
                     where, u.tile_row[0], u.tile_row[1], u.head[0], u.head[1], work,
                     want == rows + 1 ? "every unit has n + 1 =" : "the last unit has", want);
        else
            snprintf(why, capacity, "%s: row %d of head %d alone has work %ld; %s %ld%s", where,
                     u.tile_row[0], u.head[0], work,
                     want == rows + 1 ? "every unit has n + 1 =" : "the last unit has", want,
                     want == rows + 1 && rows % 2 == 1 && u.tile_row[0] == (rows - 1) / 2
                         ? " (a middle row is paired with another head's)" : "");
        return 1;
    }
    return 0;
}

/* Every unit of a schedule. 0 when right, else 1 with why. */
static int check_schedule(int heads, int rows, char *why, size_t capacity)
{
    const long want = units_wanted(heads, rows);
    const long units = schedule_units(heads, rows);
    if (units != want) {
        snprintf(why, capacity, "schedule_units(%d, %d) is %ld; the %d heads hold work %ld (row r: "
                 "r + 1), which in units of n + 1 = %d makes %ld", heads, rows, units, heads,
                 (long)heads * rows * (rows + 1) / 2, rows + 1, want);
        return 1;
    }
    unsigned char *seen = (unsigned char *)calloc((size_t)heads * rows, 1);
    long last_head = 0;
    for (long unit = 0; unit < units; unit++) {
        const schedule_unit u = unit_at((int)unit, heads, rows);
        if (check_unit(unit, units, heads, rows, u, &last_head, why, capacity)) {
            free(seen);
            return 1;
        }
        for (int k = 0; k < u.count; k++) {
            unsigned char *row = &seen[(size_t)u.head[k] * rows + u.tile_row[k]];
            if (*row || (k == 1 && u.head[0] == u.head[1] && u.tile_row[0] == u.tile_row[1])) {
                snprintf(why, capacity, "%d heads of %d rows, unit %ld of %ld: head %d row %d is "
                         "in an earlier unit too", heads, rows, unit, units, u.head[k],
                         u.tile_row[k]);
                free(seen);
                return 1;
            }
            *row = 1;
        }
    }
    for (long r = 0; r < (long)heads * rows; r++)
        if (!seen[r]) {
            snprintf(why, capacity, "%d heads of %d rows: head %ld row %ld is in no unit", heads,
                     rows, r / rows, r % rows);
            free(seen);
            return 1;
        }
    free(seen);
    return 0;
}

static int by_number(const void *a, const void *b)
{
    const long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Stretches of a schedule too large to walk. 0 when right, else 1 with why. */
static int check_sampled(int heads, int rows, unsigned long long *state, char *why,
                         size_t capacity)
{
    const long want = units_wanted(heads, rows);
    const long units = schedule_units(heads, rows);
    if (units != want) {
        snprintf(why, capacity, "schedule_units(%d, %d) is %ld; the %d heads' work, in units of "
                 "n + 1 = %d, makes %ld", heads, rows, units, heads, rows + 1, want);
        return 1;
    }
    long starts[STRETCHES];
    starts[0] = 0, starts[1] = units > STRETCH ? units - STRETCH : 0;
    for (int s = 2; s < STRETCHES; s++)
        starts[s] = units > STRETCH ? host_draw(state, 0, units - STRETCH) : 0;
    qsort(starts, STRETCHES, sizeof starts[0], by_number);
    long *keys = (long *)malloc(sizeof(long) * 2 * STRETCH * STRETCHES);
    long count = 0, last_head = 0, next = 0; /* next: the first unit not yet walked */
    int failed = 0;
    for (int s = 0; s < STRETCHES && !failed; s++) {
        for (long unit = starts[s] > next ? starts[s] : next;
             unit < starts[s] + STRETCH && unit < units && !failed; unit++) {
            const schedule_unit u = unit_at((int)unit, heads, rows);
            failed = check_unit(unit, units, heads, rows, u, &last_head, why, capacity);
            for (int k = 0; k < u.count && !failed; k++)
                keys[count++] = (long)u.head[k] * rows + u.tile_row[k];
            next = unit + 1;
        }
    }
    if (!failed) {
        qsort(keys, count, sizeof keys[0], by_number);
        for (long k = 1; k < count && !failed; k++)
            if (keys[k] == keys[k - 1]) {
                snprintf(why, capacity, "%d heads of %d rows: head %ld row %ld is in two units "
                         "(of %ld units sampled)", heads, rows, keys[k] / rows, keys[k] % rows,
                         count);
                failed = 1;
            }
    }
    free(keys);
    return failed;
}

int host_check_main(int, char **)
{
    char why[320] = "";
    int failed = 0;
    unsigned long long state = host_seed();

    /* Every unit of every small schedule, rows first (the chapter's own
     * schedule goes wrong at the first odd n of two heads). */
    for (int heads = 1; heads <= 32 && !failed; heads++)
        for (int rows = 1; rows <= 64 && !failed; rows++)
            failed = check_schedule(heads, rows, why, sizeof why);
    int full[][2] = {{1000, 512}, {999, 511}, {1, 4095}, {0, 0}, {0, 0}};
    for (int k = 3; k < 5; k++) {
        full[k][0] = (int)host_draw(&state, 33, 1000);
        full[k][1] = (int)host_draw(&state, 65, 512);
    }
    for (int k = 0; k < 5 && !failed; k++)
        failed = check_schedule(full[k][0], full[k][1], why, sizeof why);
    if (failed)
        host_check(0, "schedule", "%s", why);
    else
        host_check(1, "schedule", "every unit of H = 1 to 32 heads of n = 1 to 64 rows, and of "
                   "1000 x 512, 999 x 511, 1 x 4095, %d x %d and %d x %d (drawn): every row once, "
                   "every unit of work n + 1 (the last (n + 1) / 2 where H n is odd), the longer "
                   "row first, the head never decreasing", full[3][0], full[3][1], full[4][0],
                   full[4][1]);

    /* Samples of the largest: H (n + 1) up to 2^31 - 1. */
    const int drawn_heads = (int)host_draw(&state, 2, 65536);
    const int drawn_rows = (int)host_draw(&state, 1, 2147483647L / drawn_heads - 1);
    const int sampled[][2] = {{1, 2147483646}, {1, 2147483645}, {3, 715827881},
                              {1048575, 2047},  {1073741823, 1}, {65535, 32767},
                              {drawn_heads, drawn_rows}};
    failed = 0;
    for (int k = 0; k < 7 && !failed; k++)
        failed = check_sampled(sampled[k][0], sampled[k][1], &state, why, sizeof why);
    if (failed)
        host_check(0, "schedule (large)", "%s", why);
    else
        host_check(1, "schedule (large)", "%d stretches of %d units of each of 1 x 2147483646, "
                   "1 x 2147483645, 3 x 715827881, 1048575 x 2047, 1073741823 x 1, 65535 x 32767 "
                   "and %d x %d (drawn): the same properties within the sample, no row twice",
                   STRETCHES, STRETCH, drawn_heads, drawn_rows);
    return host_check_status();
}
