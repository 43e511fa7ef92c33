/* shape_count.h - a count the prose writes as a formula of a shape's sizes
 * ("10*B*S*N*D*D", the projections' operations at "B=1 S=512 N=256 D=256
 * H=8 mask=kept"), so that a part of the work, or the bytes of an
 * intermediate, is computed for the shape the sentence names and never
 * typed. Host C11.
 */
#ifndef WORKBOOK_SHAPE_COUNT_H
#define WORKBOOK_SHAPE_COUNT_H

#include <stddef.h>

/* Evaluates formula over the sizes of shape: whole numbers, the names of
 * the shape's sizes (B, S, N, D, H; B, T, C, NH), + - * / and parentheses.
 * 0 with the value in *value; -1 with why in error (a name the shape does
 * not have or whose value is not a number, a character the formula may not
 * hold, an unclosed parenthesis, a division by zero, nothing to evaluate). */
int shape_count(const char *formula, const char *shape, double *value, char *error,
                size_t capacity);

#endif
