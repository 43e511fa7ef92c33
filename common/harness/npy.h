/* npy.h - float32 arrays in NumPy's .npy format, so that any input or output
 * of the MSA chapters can be handed to NumPy or PyTorch and back.
 *
 * Only what the workbook exchanges is supported: little-endian float32
 * ('<f4'), C order, format versions 1.0, 2.0 and 3.0, up to NPY_MAX_DIMS
 * dimensions. Everything else is refused with a message that names the
 * file and what is wrong with it, never read halfway. In Python:
 *
 *   np.save("msa.npy", np.ascontiguousarray(x, dtype=np.float32))
 *   out = np.load("out.npy")
 */
#ifndef WORKBOOK_NPY_H
#define WORKBOOK_NPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAX_DIMS 8

typedef struct {
    int ndim;                   /* 0 for a scalar */
    long shape[NPY_MAX_DIMS];
    size_t count;               /* product of the shape (1 for a scalar) */
    float *data;                /* malloc'ed, count floats, C order */
} npy_array;

/* Reads path into array. Returns 0, or -1 with the reason in message
 * (array is then left empty and needs no npy_free). Only a regular file is
 * read (a directory, a device such as /dev/zero or a FIFO is refused, a
 * FIFO without waiting for a writer), and its header is checked, against
 * the file's size too, before any of the data is read. */
int npy_read_f32(const char *path, npy_array *array, char *message, size_t capacity);

/* The same checks, without reading the data: array gets ndim, shape and
 * count, data stays NULL (nothing to free). So that a program can decide
 * from the shapes whether it can run before reading gigabytes. */
int npy_read_header(const char *path, npy_array *array, char *message, size_t capacity);

/* Reads from memory (the whole file's bytes); path is only used in messages. */
int npy_parse_f32(const unsigned char *bytes, size_t length, const char *path, npy_array *array,
                  char *message, size_t capacity);

/* Writes count = product(shape) floats as a version 1.0 .npy file. Returns 0,
 * or -1 with the reason in message. */
int npy_write_f32(const char *path, const float *data, int ndim, const long *shape, char *message,
                  size_t capacity);

/* Returns 0 when array has exactly the given shape, otherwise -1 with a
 * message like "mask.npy has shape (2, 8, 31), expected (2, 8, 32)". */
int npy_expect_shape(const npy_array *array, const char *path, int ndim, const long *shape,
                     char *message, size_t capacity);

/* "(2, 8, 32, 64)", as NumPy prints a shape; "()" for a scalar. */
void npy_format_shape(char *buffer, size_t capacity, int ndim, const long *shape);

void npy_free(npy_array *array);

#ifdef __cplusplus
}
#endif

#endif
