/* card_reader.h - reads the cards' facts the programs recorded as CUDA
 * reported them (plots/data/cards/cards.csv, the header CSV_CARD_HEADER,
 * written by `--card FILE`) and teaches them to gpu_peaks.h
 * (gpu_card_learn), so that the book's peaks, floors and bandwidths are
 * derived from what the card reported, not from a table of names:
 *
 *   char error[1024];
 *   if (card_reader_learn("plots/data/cards/cards.csv", error, sizeof error) != 0)
 *       fprintf(stderr, "%s\n", error);
 *
 * A card's later row replaces its earlier one. A missing file teaches
 * nothing and is no error (the data sheets stand in). Every row is checked;
 * the first one that is wrong stops the reading with "file:line: malformed
 * row: why". Host C11; tested by tests/test_card_reader.c (make test).
 */
#ifndef WORKBOOK_CARD_READER_H
#define WORKBOOK_CARD_READER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 (also for a missing file), or -1 with the message in error. */
int card_reader_learn(const char *path, char *error, size_t capacity);

/* How the card's facts were found, for the book's notes: "what CUDA
 * reported on it: 132 SMs at 1.98 GHz, compute capability 9.0, a
 * 5120-bit memory bus at 2.62 GHz", "its data sheet", or NULL for a card
 * known neither way. */
const char *card_reader_source(const char *gpu, char *buffer, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
