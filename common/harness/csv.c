/* csv.c - see csv.h.
 *
 * Several runs may append to one file at once (make bench over chapters,
 * two machines writing to a shared plots/data/). Each row therefore reaches
 * the file in one write() to a descriptor opened with O_APPEND, and the
 * check for the header, the header itself and the repair of a missing final
 * newline happen under an exclusive flock() that every writer takes. */
#define _DEFAULT_SOURCE /* flock */
#include "harness/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/paths.h"

typedef struct {
    char *buffer;
    size_t capacity, length;
    int overflow;
} text_builder;

static void append(text_builder *text, const char *format, ...)
{
    if (text->overflow)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text->buffer + text->length, text->capacity - text->length, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= text->capacity - text->length)
        text->overflow = 1;
    else
        text->length += (size_t)n;
}

static void append_field(text_builder *text, const char *field)
{
    if (!strpbrk(field, ",\"\r\n")) {
        append(text, "%s,", field);
        return;
    }
    append(text, "\"");
    for (const char *c = field; *c; c++)
        append(text, *c == '"' ? "\"\"" : "%c", *c);
    append(text, "\",");
}

int csv_format_row(char *buffer, size_t capacity, const csv_row *row)
{
    if (!buffer || capacity == 0 || !row->kernel || !row->problem || !row->shape ||
        !row->gpu || !row->cuda || !row->commit || !row->date)
        return -1;
    text_builder text = {buffer, capacity, 0, 0};
    append(&text, "%d,", row->chapter);
    append_field(&text, row->kernel);
    append_field(&text, row->problem);
    append_field(&text, row->shape);
    append(&text, "%.6f,%.6f,%.6f,%.1f,%.1f,", row->median_ms, row->min_ms, row->max_ms,
           row->gflops, row->gbps);
    append_field(&text, row->gpu);
    append_field(&text, row->cuda);
    append_field(&text, row->commit);
    append_field(&text, row->date);
    if (text.overflow)
        return -1;
    buffer[--text.length] = '\0'; /* drop the last comma */
    return (int)text.length;
}

/* Writes all of text in one write(): with O_APPEND the kernel puts it at
 * the end as a whole, so a row never interleaves with another run's. */
static int write_whole(int fd, const char *text, size_t length)
{
    errno = 0;
    ssize_t written = write(fd, text, length);
    return written == (ssize_t)length ? 0 : -1;
}

/* Whether the first bytes of the file (read from fd at offset 0) are the
 * header, then a line break or (a file cut after it) nothing. Returns 1, 0,
 * or -1 when it cannot be read. */
static int starts_with_header(int fd, const char *header)
{
    const size_t header_length = strlen(header);
    char first[CSV_MAX_LINE + 1] = "";
    if (header_length >= CSV_MAX_LINE)
        return -1;
    ssize_t got = pread(fd, first, header_length + 1, 0);
    if (got < 0)
        return -1;
    return (size_t)got >= header_length && memcmp(first, header, header_length) == 0 &&
           ((size_t)got == header_length || first[header_length] == '\n' ||
            first[header_length] == '\r');
}

/* Called with the file locked. Checks the first line (to tell our file from
 * another one) and the last byte (a row cut before its newline gets one, so
 * that the next row starts a line of its own). *empty says whether the
 * header is still to be written. Returns 0, or -1 with a message on stderr. */
static int check_and_repair(int fd, const char *path, const char *header, int *empty)
{
    struct stat info;
    if (fstat(fd, &info) != 0) {
        fprintf(stderr, "csv: cannot stat %s: %s\n", path, strerror(errno));
        return -1;
    }
    *empty = info.st_size == 0;
    if (*empty)
        return 0;
    int ours = starts_with_header(fd, header);
    if (ours < 0) {
        fprintf(stderr, "csv: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!ours) {
        fprintf(stderr, "csv: %s does not start with the header\n  %s\n", path, header);
        return -1;
    }
    char last;
    if (pread(fd, &last, 1, info.st_size - 1) != 1) {
        fprintf(stderr, "csv: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (last != '\n' && write_whole(fd, "\n", 1) != 0) {
        fprintf(stderr, "csv: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int csv_check_destination(const char *path, char *message, size_t capacity)
{
    return csv_check_destination_for(path, CSV_HEADER, message, capacity);
}

int csv_check_destination_for(const char *path, const char *header, char *message,
                              size_t capacity)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return path_check_parent(path, message, capacity);
        snprintf(message, capacity, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(info.st_mode)) {
        snprintf(message, capacity, "%s is not a regular file", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || access(path, W_OK) != 0) {
        snprintf(message, capacity, "%s: cannot %s it: %s", path, fd < 0 ? "read" : "write",
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int ours = info.st_size == 0 ? 1 : starts_with_header(fd, header);
    close(fd);
    if (ours != 1) {
        snprintf(message, capacity, "%s does not start with the header, so no row would be "
                 "appended to it:\n  %s", path, header);
        return -1;
    }
    return 0;
}

int csv_append(const char *path, const csv_row *row)
{
    char line[2048];
    if (csv_format_row(line, sizeof line, row) < 0) {
        fprintf(stderr, "csv: cannot format the row for %s\n", path);
        return -1;
    }
    return csv_append_line(path, CSV_HEADER, line);
}

int csv_append_line(const char *path, const char *header, const char *line)
{
    /* The header and the row, so that a new file gets both in one write. */
    char text[2 * CSV_MAX_LINE + 2];
    const size_t header_length = strlen(header) + 1, row_length = strlen(line) + 1;
    if (header_length > CSV_MAX_LINE || row_length > CSV_MAX_LINE) {
        fprintf(stderr, "csv: a line for %s is longer than %d bytes\n", path, CSV_MAX_LINE);
        return -1;
    }
    snprintf(text, sizeof text, "%s\n%s\n", header, line);

    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "csv: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* Every run appending to this file takes the lock, so that deciding
     * whether the header is written yet and writing it are one step: two
     * runs finding the file empty at once would both write it. */
    if (flock(fd, LOCK_EX) != 0) {
        fprintf(stderr, "csv: cannot lock %s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    int empty, status = check_and_repair(fd, path, header, &empty);
    if (status == 0) {
        const char *start = empty ? text : text + header_length;
        status = write_whole(fd, start, empty ? header_length + row_length : row_length);
        if (status != 0)
            fprintf(stderr, "csv: cannot write %s: %s\n", path,
                    errno ? strerror(errno) : "short write");
    }
    flock(fd, LOCK_UN);
    if (close(fd) != 0 && status == 0) {
        fprintf(stderr, "csv: cannot write %s: %s\n", path, strerror(errno));
        status = -1;
    }
    return status;
}
