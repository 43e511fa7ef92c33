/* solutions/host/probed_call.h - the student's functions called in one
 * process, the verdict given in another.
 *
 * A host check runs twice when the grader grades (solutions/grade.sh):
 *
 *   the probe     the check built with the student's file, run in the
 *                 sandbox with `--probe`: every call of a student function
 *                 runs the student's code and is written, its results only,
 *                 to descriptor 3, a pipe the grader owns;
 *   the referee   the same check built with the exercise as handed out (no
 *                 student code in it at all), run with `--referee`: every
 *                 such call reads the next record from its standard input
 *                 (the probe's pipe) instead of running any function.
 *
 * Both run the same check code from the same seed, and the referee's later
 * calls depend only on earlier results, which it replays, so it makes the
 * calls the probe made, in the same order. Only the referee's verdict
 * counts: whatever the student's code does in the probe (print a verdict,
 * exit early, crash, forge the records) reaches the grade only as answers
 * to the check's calls, which the referee judges with its own code. A
 * transcript that ends early or names another function fails the check.
 *
 * Run by hand without a role flag, a check is a plain self-check: the
 * functions run and the verdict is printed, as a student expects.
 *
 * A check names the student's functions once, after including the exercise:
 *
 *     #define tile_of_block PROBED(tile_of_block)
 *
 * and from then on every call of tile_of_block, or the name passed as a
 * callable, goes through the record. What a call's record holds: for each
 * argument that can carry a result back (a pointer or reference to
 * something not const) the object it points at after the call, then the
 * return value. A pointer to several objects says how many with
 * probed_span(pointer, count); one object is the default.
 */
#ifndef WORKBOOK_PROBED_CALL_H
#define WORKBOOK_PROBED_CALL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <type_traits>
#include <utility>

enum probed_role { PROBED_SELF_CHECK, PROBED_PROBE, PROBED_REFEREE };

/* The role of this run (main_check.cpp sets it from the command line), the
 * channel (the probe's descriptor 3, the referee's standard input, read and
 * written a buffer at a time: a check may make a hundred million calls) and
 * how many calls went through it. */
struct probed_state {
    probed_role role;
    int fd;
    long calls;
    size_t used, filled;
    unsigned char buffer[1 << 16];
};
inline probed_state probed_run = {PROBED_SELF_CHECK, -1, 0, 0, 0, {0}}; /* one for the program */

static void probed_flush(void);
static void probed_flush_at_exit(void) { probed_flush(); }

/* Sets the role: the probe writes to descriptor 3, which must be open. */
static int probed_begin(probed_role role)
{
    probed_run.role = role;
    probed_run.fd = role == PROBED_PROBE ? 3 : 0;
    if (role == PROBED_PROBE && write(3, "", 0) != 0) {
        fprintf(stderr, "--probe: descriptor 3 is not open for the record of the calls\n");
        return 2;
    }
    if (role == PROBED_PROBE)
        atexit(probed_flush_at_exit);
    return 0;
}

/* The referee cannot go on: the probe did not answer the check's calls. */
static void probed_fail(const char *why, const char *name)
{
    printf("FAIL the program's answers: %s (call %ld, %s): it ended early, crashed or wrote "
           "past its calls\n", why, probed_run.calls, name);
    printf("host checks done: 0 passed, 1 failed\n");
    fflush(stdout);
    exit(1);
}

/* The probe's buffer, written out (a closed pipe ends the probe: SIGPIPE). */
static void probed_flush(void)
{
    size_t done = 0;
    while (done < probed_run.used) {
        const ssize_t wrote = write(probed_run.fd, probed_run.buffer + done, probed_run.used - done);
        if (wrote <= 0)
            exit(3);
        done += (size_t)wrote;
    }
    probed_run.used = 0;
}

static void probed_put(const void *bytes, size_t size)
{
    const unsigned char *from = (const unsigned char *)bytes;
    while (size > 0) {
        if (probed_run.used == sizeof probed_run.buffer)
            probed_flush();
        size_t part = sizeof probed_run.buffer - probed_run.used;
        part = part < size ? part : size;
        memcpy(probed_run.buffer + probed_run.used, from, part);
        probed_run.used += part, from += part, size -= part;
    }
}

/* The referee's next bytes; 0 at the end of the record. */
static size_t probed_read(void *bytes, size_t size)
{
    unsigned char *to = (unsigned char *)bytes;
    size_t got = 0;
    while (got < size) {
        if (probed_run.used == probed_run.filled) {
            const ssize_t read_now = read(probed_run.fd, probed_run.buffer, sizeof probed_run.buffer);
            if (read_now <= 0)
                return got;
            probed_run.used = 0, probed_run.filled = (size_t)read_now;
        }
        size_t part = probed_run.filled - probed_run.used;
        part = part < size - got ? part : size - got;
        memcpy(to + got, probed_run.buffer + probed_run.used, part);
        probed_run.used += part, got += part;
    }
    return got;
}

static void probed_get(void *bytes, size_t size, const char *name)
{
    if (probed_read(bytes, size) != size)
        probed_fail("the record of the calls ended", name);
}

/* A record's first byte: the function's name, hashed (FNV-1a), enough to
 * tell one function's record from another's; one byte, because a check may
 * make a hundred million calls. */
static uint8_t probed_tag(const char *name)
{
    uint32_t hash = 2166136261u;
    for (const char *c = name; *c; c++)
        hash = (hash ^ (unsigned char)*c) * 16777619u;
    return (uint8_t)(hash ^ hash >> 8 ^ hash >> 16 ^ hash >> 24);
}

/* Whether the record was read to its end; the referee's last word (the
 * probe's: its record written out). */
static int probed_finished(void)
{
    if (probed_run.role == PROBED_PROBE)
        probed_flush();
    if (probed_run.role != PROBED_REFEREE)
        return 1;
    unsigned char more;
    return probed_read(&more, 1) == 0;
}

/* `count` objects at `data`, all of which the call may write. */
template <class T> struct probed_array {
    T *data;
    size_t count;
};
template <class T> static probed_array<T> probed_span(T *data, size_t count)
{
    return probed_array<T>{data, count};
}

template <class T> struct probed_is_span : std::false_type {};
template <class T> struct probed_is_span<probed_array<T>> : std::true_type {};

/* The argument as the function takes it (a span: its pointer). */
template <class A> static decltype(auto) probed_pass(A &&argument)
{
    if constexpr (probed_is_span<typename std::decay<A>::type>::value)
        return argument.data;
    else
        return std::forward<A>(argument);
}

/* One argument's share of the record: what the call left where it points. */
template <class T> static void probed_move(T *data, size_t count, const char *name)
{
    static_assert(std::is_trivially_copyable<T>::value, "a result must be plain bytes");
    if (!data || count == 0)
        return;
    if (probed_run.role == PROBED_PROBE)
        probed_put(data, sizeof(T) * count);
    else
        probed_get(data, sizeof(T) * count, name);
}
template <class P, class A> static void probed_result_of(A &argument, const char *name)
{
    using parameter = typename std::remove_reference<P>::type;
    if constexpr (probed_is_span<typename std::decay<A>::type>::value) {
        probed_move(argument.data, argument.count, name);     /* several objects */
    } else if constexpr (std::is_reference<P>::value && !std::is_const<parameter>::value) {
        probed_move(&argument, 1, name);                       /* T& or T (&)[N] */
    } else if constexpr (std::is_pointer<parameter>::value) {
        using pointee = typename std::remove_pointer<parameter>::type;
        if constexpr (!std::is_const<pointee>::value && !std::is_void<pointee>::value)
            probed_move(static_cast<pointee *>(argument), 1, name);
    }
}

/* A student's function as the check calls it. */
template <class R, class... P> struct probed_function {
    R (*function)(P...);
    const char *name;

    template <class... A> R operator()(A &&...arguments) const
    {
        static_assert(sizeof...(A) == sizeof...(P), "the call's arguments, one per parameter");
        if (probed_run.role == PROBED_SELF_CHECK)
            return function(probed_pass(std::forward<A>(arguments))...);
        probed_run.calls++;
        const uint8_t tag = probed_tag(name);
        if (probed_run.role == PROBED_PROBE) {
            probed_put(&tag, sizeof tag);
            if constexpr (std::is_void<R>::value) {
                function(probed_pass(arguments)...);
                (probed_result_of<P>(arguments, name), ...);
            } else {
                R result = function(probed_pass(arguments)...);
                (probed_result_of<P>(arguments, name), ...);
                probed_put(&result, sizeof result);
                return result;
            }
        } else {
            uint8_t recorded = 0;
            probed_get(&recorded, sizeof recorded, name);
            if (recorded != tag)
                probed_fail("the record names another function", name);
            (probed_result_of<P>(arguments, name), ...);
            if constexpr (!std::is_void<R>::value) {
                static_assert(std::is_trivially_copyable<R>::value, "a result must be plain bytes");
                R result;
                probed_get(&result, sizeof result, name);
                return result;
            }
        }
    }
};
template <class R, class... P>
static probed_function<R, P...> probed(R (*function)(P...), const char *name)
{
    return probed_function<R, P...>{function, name};
}
#define PROBED(function) probed(&(function), #function)

#endif
