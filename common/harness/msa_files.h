/* msa_files.h - the MSA layer's tensors as .npy files in one folder: the
 * eleven inputs read with --load DIR (msa.npy, mask.npy, ln_gamma.npy, ...,
 * named by msa_input_names), and the inputs, out.npy and shape.txt written
 * with --save DIR, so that a run can be handed to NumPy or PyTorch and back.
 *
 * Everything that can be refused is refused before any data is read or any
 * GPU work is done: the headers decide the sizes (msa_load_shapes), the
 * folder to save in is checked before the run (msa_check_save_directory).
 * Each function returns 0, or -1 with the reason in message (a path and
 * what is wrong with it); the programs print it after "--load: " or
 * "--save: " and exit 2.
 */
#ifndef WORKBOOK_MSA_FILES_H
#define WORKBOOK_MSA_FILES_H

#include <stddef.h>

#include "problems/msa_reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --load, first pass: the header of every input in dir, no data. B, S, N
 * and D (sizes[0..3]) come from msa.npy, each 1 to INT_MAX; a size also
 * given on the command line (size_given[k]) must agree. Every other file's
 * shape must match them. So that the sizes are checked (int limits,
 * memory) before gigabytes are read. */
int msa_load_shapes(const char *dir, const int *size_given, long *sizes, char *message,
                    size_t capacity);

/* --load, second pass, once the sizes are known to fit: the data of every
 * input into inputs, each shape checked again (a file may have changed
 * since the first pass), and the mask's values (finite: 0 masks a key,
 * anything else keeps it). On failure nothing is left allocated. */
int msa_load_data(const char *dir, msa_size size, msa_inputs *inputs, char *message,
                  size_t capacity);

/* The kind a mask read from a file is: MSA_MASK_KEPT or MSA_MASK_PAD when
 * it keeps and masks exactly the keys that kind does, MSA_MASK_DRAWN
 * otherwise (and when there is no memory to compare with). */
int msa_loaded_mask_kind(const float *mask, msa_size size);

/* --save DIR, before the run: every file's path fits the path buffer, and
 * DIR is a directory that can be written, or one that can be made (the
 * directory above it exists and is writable). Creates nothing. */
int msa_check_save_directory(const char *dir, char *message, size_t capacity);

/* --save DIR, after the run: makes DIR if need be, writes every input, the
 * output out (as out.npy, shaped as msa; skipped when out is NULL) and the
 * run's CSV shape as shape.txt (bench/torch_race.py names its rows by it). */
int msa_save_tensors(const char *dir, msa_inputs *inputs, msa_size size, const char *shape_text,
                     const float *out, char *message, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
