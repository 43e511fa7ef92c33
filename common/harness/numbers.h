/* numbers.h - how the programs' command line (common/harness/cli.c) and the CSV
 * reader (book/csv_reader.c) read numbers, one parser for each kind. A whole
 * number is written in decimal digits only: no '+', no spaces, no leading
 * zero ("0" itself aside), no "0x", no exponent, and a '-' only where the
 * range admits a negative value. Anything else is malformed, never read as
 * "the digits up to the first surprise" or wrapped: strtol and strtoull take
 * " -1" for 2^64-1 and "+128" or " 20" for numbers. A decimal number is a
 * whole part, maybe a fraction and an exponent (3.9, 0.034100, 1e-3, -2.5E+4),
 * leading zeros allowed; strtod's hexadecimal (0x1p9), "inf", "nan" and
 * blanks are malformed.
 *
 *   long long reps;
 *   if (whole_number_parse(text, 20, 100000, &reps) != WHOLE_NUMBER_OK) ...
 *
 * Host C11; tested by tests/test_host.c (make test).
 */
#ifndef WORKBOOK_NUMBERS_H
#define WORKBOOK_NUMBERS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WHOLE_NUMBER_OK = 0,
    WHOLE_NUMBER_MALFORMED = -1,    /* not a whole number as spelled above */
    WHOLE_NUMBER_OUT_OF_RANGE = -2  /* well spelled, but outside [min, max] */
} whole_number_status;

/* Parses text into *value (untouched unless WHOLE_NUMBER_OK), in [min, max]. */
whole_number_status whole_number_parse(const char *text, long long min, long long max,
                                       long long *value);

/* The same for the unsigned 64-bit range (the programs' seeds): [0, max]. */
whole_number_status whole_number_parse_unsigned(const char *text, unsigned long long max,
                                                unsigned long long *value);

/* KEY=VALUE among argv[1] .. argv[argc - 1], a whole number in [min, max]:
 * how a small program reads its own sizes (the host-graded exercises'
 * mains: KEYS=16 HS=64). 1 with *value set where KEY is given, 0 where it
 * is not (*value untouched: set the default first), -1 where it is given
 * malformed or out of range. */
int whole_number_argument(int argc, char **argv, const char *key, int min, int max, int *value);

/* A decimal number as spelled above, finite as a double: 0 with *value set,
 * or -1 (malformed, or too large for a double). */
int decimal_number_parse(const char *text, double *value);

#ifdef __cplusplus
}
#endif

#endif
