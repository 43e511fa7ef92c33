/* npy.c - see npy.h.
 *
 * The format (numpy.lib.format): the six bytes "\x93NUMPY", a major and a
 * minor version byte, the header's length (2 bytes little-endian in version
 * 1.0, 4 bytes in 2.0 and 3.0), then the header itself: a Python dict
 * literal such as
 *
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 8, 32), }
 *
 * padded with spaces and ended by a newline, so that the data that follows
 * starts on a 64-byte boundary. The data is the raw array, here float32
 * little-endian in C (row-major) order. The workbook runs on little-endian
 * hosts only (x86-64 and Arm), so floats are copied as they are.
 */
#include "harness/npy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest header read: NumPy's own headers are a few hundred bytes. */
#define NPY_MAX_HEADER_BYTES (1 << 20)

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

void npy_format_shape(char *buffer, size_t capacity, int ndim, const long *shape)
{
    size_t used = 0;
    int n = snprintf(buffer, capacity, "(");
    if (n < 0 || (size_t)n >= capacity)
        return;
    used = (size_t)n;
    for (int k = 0; k < ndim && used < capacity; k++) {
        n = snprintf(buffer + used, capacity - used, "%s%ld", k ? ", " : "", shape[k]);
        if (n < 0)
            return;
        used += (size_t)n;
    }
    if (used < capacity)
        snprintf(buffer + used, capacity - used, ndim == 1 ? ",)" : ")");
}

void npy_free(npy_array *array)
{
    free(array->data);
    memset(array, 0, sizeof *array);
}

/* The header's text, as a C string, is searched for a key written with
 * single or double quotes; returns the text after the key's colon, or NULL. */
static const char *value_of(const char *header, const char *key)
{
    char quoted[2][32];
    snprintf(quoted[0], sizeof quoted[0], "'%s'", key);
    snprintf(quoted[1], sizeof quoted[1], "\"%s\"", key);
    for (int q = 0; q < 2; q++) {
        const char *at = strstr(header, quoted[q]);
        if (!at)
            continue;
        at += strlen(quoted[q]);
        while (*at == ' ')
            at++;
        if (*at != ':')
            return NULL;
        at++;
        while (*at == ' ')
            at++;
        return at;
    }
    return NULL;
}

static int parse_header(const char *header, const char *path, npy_array *array, char *message,
                        size_t capacity)
{
    const char *descr = value_of(header, "descr");
    if (!descr || (*descr != '\'' && *descr != '"')) {
        snprintf(message, capacity, "%s: malformed .npy header: no 'descr' string", path);
        return -1;
    }
    char quote = *descr++;
    const char *end = strchr(descr, quote);
    if (!end) {
        snprintf(message, capacity, "%s: malformed .npy header: unterminated 'descr'", path);
        return -1;
    }
    size_t descr_length = (size_t)(end - descr);
    if (!(descr_length == 3 && strncmp(descr, "<f4", 3) == 0)) {
        snprintf(message, capacity,
                 "%s: dtype '%.*s' is not little-endian float32 '<f4' "
                 "(save it with x.astype(np.float32))",
                 path, (int)(descr_length < 32 ? descr_length : 32), descr);
        return -1;
    }

    const char *order = value_of(header, "fortran_order");
    if (!order) {
        snprintf(message, capacity, "%s: malformed .npy header: no 'fortran_order'", path);
        return -1;
    }
    if (strncmp(order, "True", 4) == 0) {
        snprintf(message, capacity,
                 "%s: the array is in Fortran order; save np.ascontiguousarray(x) instead", path);
        return -1;
    }
    if (strncmp(order, "False", 5) != 0) {
        snprintf(message, capacity, "%s: malformed .npy header: 'fortran_order' is not a boolean",
                 path);
        return -1;
    }

    const char *shape = value_of(header, "shape");
    if (!shape || *shape != '(') {
        snprintf(message, capacity, "%s: malformed .npy header: no 'shape' tuple", path);
        return -1;
    }
    const char *p = shape + 1;
    array->ndim = 0;
    array->count = 1;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')')
            break;
        if (!isdigit((unsigned char)*p)) {
            snprintf(message, capacity, "%s: malformed .npy header: bad 'shape' tuple", path);
            return -1;
        }
        if (array->ndim == NPY_MAX_DIMS) {
            snprintf(message, capacity, "%s: more than %d dimensions", path, NPY_MAX_DIMS);
            return -1;
        }
        errno = 0;
        char *after;
        long extent = strtol(p, &after, 10);
        if (errno || extent < 0) {
            snprintf(message, capacity, "%s: malformed .npy header: bad extent in 'shape'", path);
            return -1;
        }
        if (extent > 0 && array->count > SIZE_MAX / sizeof(float) / (size_t)extent) {
            snprintf(message, capacity, "%s: the shape is too large", path);
            return -1;
        }
        array->shape[array->ndim++] = extent;
        array->count *= (size_t)extent;
        p = after;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ')') {
            snprintf(message, capacity, "%s: malformed .npy header: bad 'shape' tuple", path);
            return -1;
        }
    }
    return 0;
}

/* The front of a .npy file: magic, version, header length and header, from
 * the first `length` bytes of the file (all of it, or at least the front).
 * Fills array's shape and count and *data_start, where the data begins.
 * Returns 0, or -1 with the reason in message. */
static int parse_front(const unsigned char *bytes, size_t length, const char *path,
                       npy_array *array, size_t *data_start, char *message, size_t capacity)
{
    memset(array, 0, sizeof *array);
    if (length < 10 || memcmp(bytes, npy_magic, sizeof npy_magic) != 0) {
        snprintf(message, capacity, "%s: not a .npy file (it does not start with \\x93NUMPY)", path);
        return -1;
    }
    int major = bytes[6];
    size_t header_length, header_start;
    if (major == 1) {
        header_length = (size_t)bytes[8] | (size_t)bytes[9] << 8;
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (length < 12) {
            snprintf(message, capacity, "%s: truncated .npy header", path);
            return -1;
        }
        header_length = (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 |
                        (size_t)bytes[11] << 24;
        header_start = 12;
    } else {
        snprintf(message, capacity, "%s: .npy format version %d.%d is not supported", path, major,
                 bytes[7]);
        return -1;
    }
    if (header_length > length - header_start) {
        snprintf(message, capacity, "%s: truncated .npy header (%zu bytes promised, %zu there)",
                 path, header_length, length - header_start);
        return -1;
    }
    char *header = (char *)malloc(header_length + 1);
    if (!header) {
        snprintf(message, capacity, "%s: out of memory", path);
        return -1;
    }
    memcpy(header, bytes + header_start, header_length);
    header[header_length] = '\0';
    if (strlen(header) != header_length || header_length == 0 || header[0] != '{' ||
        !strchr(header, '}')) {
        free(header);
        snprintf(message, capacity, "%s: malformed .npy header: not a dict", path);
        return -1;
    }
    int status = parse_header(header, path, array, message, capacity);
    free(header);
    if (status != 0) {
        memset(array, 0, sizeof *array);
        return -1;
    }
    *data_start = header_start + header_length;
    return 0;
}

/* The data must be exactly what the shape says: no more, no less. */
static int check_data_bytes(size_t data_bytes, const char *path, npy_array *array, char *message,
                            size_t capacity)
{
    if (data_bytes == array->count * sizeof(float))
        return 0;
    snprintf(message, capacity,
             "%s: holds %zu bytes of data, but its shape needs %zu (%zu float32 values)", path,
             data_bytes, array->count * sizeof(float), array->count);
    memset(array, 0, sizeof *array);
    return -1;
}

int npy_parse_f32(const unsigned char *bytes, size_t length, const char *path, npy_array *array,
                  char *message, size_t capacity)
{
    size_t data_start;
    if (parse_front(bytes, length, path, array, &data_start, message, capacity) != 0 ||
        check_data_bytes(length - data_start, path, array, message, capacity) != 0)
        return -1;
    array->data = (float *)malloc(array->count ? array->count * sizeof(float) : 1);
    if (!array->data) {
        snprintf(message, capacity, "%s: out of memory for %zu values", path, array->count);
        memset(array, 0, sizeof *array);
        return -1;
    }
    memcpy(array->data, bytes + data_start, array->count * sizeof(float));
    return 0;
}

/* Reads `length` bytes from fd at the current offset; 0, or -1 when the
 * file ends first or a read fails. */
static int read_exactly(int fd, void *buffer, size_t length)
{
    unsigned char *at = (unsigned char *)buffer;
    while (length > 0) {
        ssize_t got = read(fd, at, length > (1u << 30) ? (1u << 30) : length);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        at += got;
        length -= (size_t)got;
    }
    return 0;
}

/* What a path that is not a regular file is, for the message. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a file";
}

/* Opens path and reads its front: a regular file only (a FIFO is opened
 * without waiting for a writer, and refused), the header parsed, and the
 * file's size checked against the shape before any data is read. Returns
 * the descriptor, positioned at the data, or -1 with the reason in
 * message (array then empty). */
static int open_front(const char *path, npy_array *array, char *message, size_t capacity)
{
    memset(array, 0, sizeof *array);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(message, capacity, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat info;
    if (fstat(fd, &info) != 0) {
        snprintf(message, capacity, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(info.st_mode)) {
        snprintf(message, capacity, "%s: %s, not a regular file", path, kind_of(info.st_mode));
        close(fd);
        return -1;
    }
    const size_t file_bytes = (size_t)info.st_size;
    /* The preamble says how long the header is; then the header itself. */
    unsigned char preamble[12];
    size_t front_bytes = file_bytes < sizeof preamble ? file_bytes : sizeof preamble;
    if (read_exactly(fd, preamble, front_bytes) != 0) {
        snprintf(message, capacity, "%s: read error", path);
        close(fd);
        return -1;
    }
    size_t data_start, header_length = 0;
    if (front_bytes >= 10 && memcmp(preamble, npy_magic, sizeof npy_magic) == 0)
        header_length = preamble[6] == 1
                            ? ((size_t)preamble[8] | (size_t)preamble[9] << 8)
                            : front_bytes < 12 ? 0
                                               : ((size_t)preamble[8] | (size_t)preamble[9] << 8 |
                                                  (size_t)preamble[10] << 16 |
                                                  (size_t)preamble[11] << 24);
    if (header_length > NPY_MAX_HEADER_BYTES) {
        snprintf(message, capacity, "%s: a .npy header of %zu bytes (more than the %d this reader "
                 "takes)", path, header_length, NPY_MAX_HEADER_BYTES);
        close(fd);
        return -1;
    }
    /* The front: what the preamble promises, or the whole file if shorter
     * (parse_front then says what is missing). */
    size_t wanted = sizeof preamble + header_length;
    if (wanted > file_bytes)
        wanted = file_bytes;
    unsigned char *front = (unsigned char *)malloc(wanted ? wanted : 1);
    if (!front) {
        snprintf(message, capacity, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    memcpy(front, preamble, front_bytes);
    if (wanted > front_bytes && read_exactly(fd, front + front_bytes, wanted - front_bytes) != 0) {
        free(front);
        snprintf(message, capacity, "%s: read error", path);
        close(fd);
        return -1;
    }
    int status = parse_front(front, wanted, path, array, &data_start, message, capacity);
    free(front);
    if (status == 0)
        status = check_data_bytes(file_bytes - data_start, path, array, message, capacity);
    if (status == 0 && lseek(fd, (off_t)data_start, SEEK_SET) != (off_t)data_start) {
        snprintf(message, capacity, "%s: cannot seek to the data: %s", path, strerror(errno));
        status = -1;
    }
    if (status != 0) {
        close(fd);
        memset(array, 0, sizeof *array);
        return -1;
    }
    return fd;
}

int npy_read_header(const char *path, npy_array *array, char *message, size_t capacity)
{
    int fd = open_front(path, array, message, capacity);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int npy_read_f32(const char *path, npy_array *array, char *message, size_t capacity)
{
    int fd = open_front(path, array, message, capacity);
    if (fd < 0)
        return -1;
    array->data = (float *)malloc(array->count ? array->count * sizeof(float) : 1);
    if (!array->data) {
        snprintf(message, capacity, "%s: out of memory for %zu values", path, array->count);
        close(fd);
        memset(array, 0, sizeof *array);
        return -1;
    }
    if (read_exactly(fd, array->data, array->count * sizeof(float)) != 0) {
        snprintf(message, capacity, "%s: read error (the file changed while it was read?)", path);
        close(fd);
        npy_free(array);
        return -1;
    }
    close(fd);
    return 0;
}

int npy_write_f32(const char *path, const float *data, int ndim, const long *shape, char *message,
                  size_t capacity)
{
    if (ndim < 0 || ndim > NPY_MAX_DIMS) {
        snprintf(message, capacity, "%s: %d dimensions is not supported", path, ndim);
        return -1;
    }
    size_t count = 1;
    for (int k = 0; k < ndim; k++)
        count *= (size_t)shape[k];

    char shape_text[256], header[512];
    npy_format_shape(shape_text, sizeof shape_text, ndim, shape);
    int length = snprintf(header, sizeof header,
                          "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape_text);
    /* Pad with spaces so that magic (6) + version (2) + length (2) + header,
     * newline included, is a multiple of 64. */
    while ((10 + length + 1) % 64 != 0)
        header[length++] = ' ';
    header[length++] = '\n';

    FILE *file = fopen(path, "wb");
    if (!file) {
        snprintf(message, capacity, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    unsigned char preamble[10];
    memcpy(preamble, npy_magic, sizeof npy_magic);
    preamble[6] = 1;
    preamble[7] = 0;
    preamble[8] = (unsigned char)(length & 0xff);
    preamble[9] = (unsigned char)(length >> 8);
    int ok = fwrite(preamble, 1, sizeof preamble, file) == sizeof preamble &&
             fwrite(header, 1, (size_t)length, file) == (size_t)length &&
             fwrite(data, sizeof(float), count, file) == count;
    if (fclose(file) != 0)
        ok = 0;
    if (!ok) {
        snprintf(message, capacity, "%s: write error", path);
        return -1;
    }
    return 0;
}

int npy_expect_shape(const npy_array *array, const char *path, int ndim, const long *shape,
                     char *message, size_t capacity)
{
    int same = array->ndim == ndim;
    for (int k = 0; same && k < ndim; k++)
        same = array->shape[k] == shape[k];
    if (same)
        return 0;
    char got[128], want[128];
    npy_format_shape(got, sizeof got, array->ndim, array->shape);
    npy_format_shape(want, sizeof want, ndim, shape);
    snprintf(message, capacity, "%s has shape %s, expected %s", path, got, want);
    return -1;
}
