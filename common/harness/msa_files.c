/* msa_files.c - see msa_files.h. Moved whole out of msa_runner.cu: the
 * messages are the ones the suites (60, 65) look for. */
#include "harness/msa_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/npy.h"
#include "harness/paths.h"

/* The path of input `which` in dir; 0, or -1 when it does not fit. */
static int input_path(char *path, size_t path_capacity, const char *dir, int which, char *message,
                      size_t capacity)
{
    char name[32];
    snprintf(name, sizeof name, "%s.npy", msa_input_names[which]);
    return path_join(path, path_capacity, dir, name, message, capacity);
}

int msa_load_shapes(const char *dir, const int *size_given, long *sizes, char *message,
                    size_t capacity)
{
    static const char *const keys[4] = {"B", "S", "N", "D"};
    char path[PATHS_MAX];
    for (int which = 0; which < MSA_INPUT_COUNT; which++) {
        npy_array array;
        if (input_path(path, sizeof path, dir, which, message, capacity) != 0 ||
            npy_read_header(path, &array, message, capacity) != 0)
            return -1;
        if (which == MSA_IN_MSA) {
            if (array.ndim != 4) {
                char shape[128];
                npy_format_shape(shape, sizeof shape, array.ndim, array.shape);
                snprintf(message, capacity, "%s has shape %s, expected 4 dimensions (B, S, N, D)",
                         path, shape);
                return -1;
            }
            for (int k = 0; k < 4; k++) {
                long extent = array.shape[k];
                if (extent < 1 || extent > INT_MAX) {
                    snprintf(message, capacity, "%s: %s=%ld is not a usable size (1 to %d)", path,
                             keys[k], extent, INT_MAX);
                    return -1;
                }
                if (size_given[k] && sizes[k] != extent) {
                    snprintf(message, capacity,
                             "%s=%ld on the command line, but %s has %s=%ld (shape B, S, N, D)",
                             keys[k], sizes[k], path, keys[k], extent);
                    return -1;
                }
                sizes[k] = extent;
            }
        } else {
            msa_size z = {(int)sizes[0], (int)sizes[1], (int)sizes[2], (int)sizes[3], 1};
            long shape[4];
            int ndim = msa_input_shape(z, which, shape);
            if (npy_expect_shape(&array, path, ndim, shape, message, capacity) != 0)
                return -1;
        }
    }
    return 0;
}

int msa_load_data(const char *dir, msa_size size, msa_inputs *inputs, char *message,
                  size_t capacity)
{
    char path[PATHS_MAX];
    memset(inputs, 0, sizeof *inputs);
    for (int which = 0; which < MSA_INPUT_COUNT; which++) {
        npy_array array;
        long shape[4];
        int ndim = msa_input_shape(size, which, shape);
        if (input_path(path, sizeof path, dir, which, message, capacity) != 0 ||
            npy_read_f32(path, &array, message, capacity) != 0)
            goto fail;
        *msa_input_slot(inputs, which) = array.data;
        if (npy_expect_shape(&array, path, ndim, shape, message, capacity) != 0)
            goto fail;
        if (which == MSA_IN_MASK && msa_check_mask(array.data, size, path, message, capacity) != 0)
            goto fail;
    }
    return 0;

fail:
    msa_inputs_free(inputs);
    return -1;
}

/* DIR itself, unless it is there: only its parent was checked before the
 * run (msa_check_save_directory), so that a refused run creates nothing. */
static int make_directory(const char *dir, char *message, size_t capacity)
{
    struct stat info;
    if (stat(dir, &info) == 0 && S_ISDIR(info.st_mode))
        return 0;
    if (mkdir(dir, 0777) != 0) {
        snprintf(message, capacity, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int msa_check_save_directory(const char *dir, char *message, size_t capacity)
{
    char path[PATHS_MAX], name[32];
    for (int which = 0; which <= MSA_INPUT_COUNT; which++) {
        snprintf(name, sizeof name, "%s.npy",
                 which < MSA_INPUT_COUNT ? msa_input_names[which] : MSA_OUTPUT_NAME);
        if (path_join(path, sizeof path, dir, name, message, capacity) != 0)
            return -1;
    }
    struct stat info;
    if (stat(dir, &info) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return path_check_parent(dir, message, capacity);
        snprintf(message, capacity, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(info.st_mode)) {
        snprintf(message, capacity, "%s is not a directory%s", dir,
                 S_ISREG(info.st_mode) ? " (it is a regular file)" : "");
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(message, capacity, "%s: cannot write in it: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int msa_loaded_mask_kind(const float *mask, msa_size size)
{
    const size_t count = (size_t)size.B * size.S * size.N;
    float *model = (float *)malloc(count * sizeof(float));
    int kind = MSA_MASK_DRAWN;
    for (int candidate = MSA_MASK_KEPT; model && candidate <= MSA_MASK_PAD; candidate++) {
        msa_apply_mask_kind(model, size, (msa_mask_kind)candidate);
        size_t i = 0;
        while (i < count && (model[i] != 0.0f) == (mask[i] != 0.0f))
            i++;
        if (i == count) {
            kind = candidate;
            break;
        }
    }
    free(model);
    return kind;
}

int msa_save_tensors(const char *dir, msa_inputs *inputs, msa_size size, const char *shape_text,
                     const float *out, char *message, size_t capacity)
{
    if (make_directory(dir, message, capacity) != 0)
        return -1;
    char path[PATHS_MAX], name[32];
    long shape[4];
    for (int which = 0; which < MSA_INPUT_COUNT; which++) {
        snprintf(name, sizeof name, "%s.npy", msa_input_names[which]);
        if (path_join(path, sizeof path, dir, name, message, capacity) != 0)
            return -1;
        int ndim = msa_input_shape(size, which, shape);
        if (npy_write_f32(path, *msa_input_slot(inputs, which), ndim, shape, message, capacity))
            return -1;
    }
    if (out) {
        if (path_join(path, sizeof path, dir, MSA_OUTPUT_NAME ".npy", message, capacity) != 0)
            return -1;
        int ndim = msa_input_shape(size, MSA_IN_MSA, shape);
        if (npy_write_f32(path, out, ndim, shape, message, capacity))
            return -1;
    }
    if (path_join(path, sizeof path, dir, "shape.txt", message, capacity) != 0)
        return -1;
    FILE *file = fopen(path, "w");
    if (!file || fprintf(file, "%s\n", shape_text) < 0 || fclose(file) != 0) {
        snprintf(message, capacity, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
