/* headline.h - what the book shows each problem at, and on which cards: the
 * problem's default and headline sizes, whether a card can run a kernel (the
 * list's `needs` against the card's compute capability), and the cards that
 * measured a problem in the order the book shows them, from the rows the CSV
 * reader read (csv_reader.h). Host C11; tested by tests/test_csv_reader.c.
 */
#ifndef WORKBOOK_HEADLINE_H
#define WORKBOOK_HEADLINE_H

#include "csv_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default size of a problem ("trimul", "msa"), as the programs take it
 * (B=8 T=1024 C=768 NH=12, B=1 S=512 N=256 D=256 H=8), or NULL. */
const char *headline_default_shape(const char *problem);

/* The size the headline table and the plots show a problem at: its default
 * size, with " mask=kept" where the problem's first champion in the list
 * was measured so (every key kept, as the benchmarks run the MSA layer).
 * Written into shape (capacity 128); NULL for an unknown problem. */
const char *headline_shape(const result_set *set, const kernel_list *kernels,
                                      const char *problem, char shape[128]);

/* Whether a card of that name can run a kernel: its compute capability
 * (common/device/gpu_peaks.c's table) against the `needs` of the list. A card the
 * table does not know is taken to run every kernel here; headline_cards
 * asks its rows instead (it runs what needs no more than the most any
 * kernel it measured needs). */
int headline_card_runs(const char *gpu, const kernel_entry *kernel);

/* The cards that measured a problem, in the order the book shows them.
 * A card has a full headline when it has a row, at the headline shape, of
 * every champion and best kernel of the problem (PyTorch aside: torch may
 * be missing) that some card measured at that shape and that it can run.
 * First the cards with a full headline, the newest first (the card of the
 * newest row: after `make bench` on a new card, that card); then the
 * others, the most headline rows first, then the newest. So one row from
 * an unknown card never comes before a card measured in full. Returns how
 * many cards there are, with *full set to how many of them lead with a full
 * headline, and *cards a NULL-ended array the caller frees (NULL and -1
 * when out of memory). n log n in the rows. */
int headline_cards(const result_set *set, const kernel_list *kernels, const char *problem,
                     const char ***cards, int *full);

#ifdef __cplusplus
}
#endif

#endif
