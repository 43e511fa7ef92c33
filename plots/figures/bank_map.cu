/* plots/figures/bank_map.cu - the data of the figure `bank-map` (chapter 5):
 * the shared-memory bank of every word that one warp writes into the
 * transposed tile, in step 1, with padding alone, in step 2 and in step 3's
 * asynchronous copy, and of every word it reads in the multiply loop.
 *
 * Drawn from the functions the kernels call (chapters/05-shared/shared.cuh):
 * shared_row_floats (the padding), shared_stage_place (which float4 of the
 * tile a copy moves, steps 1 and 2), shared_copy_destination (step 3's
 * copies) and shared_first_col (the columns a thread reads).
 *
 *   build/figures/bin/bank_map OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/05-shared/shared.cuh"
#include "figure.h"

#include <string.h>

#define FIGURE_HS 64
#define BANKS 32

typedef struct {
    char what[128];
    int words[32][4]; /* the words (float offsets in shared memory) each lane asks for */
    int count;        /* words per lane */
} access;

/* Writes one index of data, one line per distinct word: "bank slot lanes",
 * slot = how many distinct words of that bank come before it (a bank serves
 * one word a wavefront), and, in vars, what the figure prints of it. Returns
 * the wavefronts: the most words of one bank. */
static int write_access(FILE *data, FILE *vars, int index, const access *a)
{
    int words[128], lanes[128][32], lane_count[128], distinct = 0;
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < a->count; i++) {
            const int word = a->words[lane][i];
            int w = 0;
            while (w < distinct && words[w] != word)
                w++;
            if (w == distinct) {
                words[distinct] = word;
                lane_count[distinct++] = 0;
            }
            lanes[w][lane_count[w]++] = lane;
        }
    /* Lanes l and l + 16 asking for the same words: each word is labelled l. */
    int pairs = 1;
    for (int w = 0; w < distinct; w++)
        pairs &= lane_count[w] == 2 && lanes[w][1] == lanes[w][0] + 16;
    int slots[BANKS] = {0}, wavefronts = 0;
    for (int w = 0; w < distinct; w++) {
        const int bank = words[w] % BANKS, slot = slots[bank]++;
        char text[64] = "";
        if (lane_count[w] == 1 || pairs)
            snprintf(text, sizeof text, "%d", lanes[w][0]);
        else
            snprintf(text, sizeof text, "%d-%d", lanes[w][0], lanes[w][lane_count[w] - 1]);
        fprintf(data, "%d %d %s\n", bank, slot, text);
        if (slots[bank] > wavefronts)
            wavefronts = slots[bank];
    }
    fprintf(data, "\n\n");
    /* A wavefront moves at most 128 bytes: fewer are never enough. */
    const int fewest = (4 * distinct + 127) / 128;
    fprintf(vars, "what%d = \"%s\"\nwavefronts%d = %d\nfewest%d = %d\npairs%d = %d\nbytes%d = %d\n",
            index, a->what, index, wavefronts, index, fewest, index, pairs, index, 4 * distinct);
    return wavefronts;
}

/* Steps 1 and 2: the first of the four words a lane writes for copy number
 * e = lane (warp 0), into a tile of `stride` floats a row. */
template <int placement>
static void stage_words(access *a, int stride)
{
    for (int lane = 0; lane < 32; lane++) {
        int row, quad;
        shared_stage_place<placement>(lane, FIGURE_HS / 4, &row, &quad);
        a->words[lane][0] = 4 * quad * stride + row;
    }
    a->count = 1;
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes bank-map.dat, .vars.gp, .caption");
    access accesses[5];
    memset(accesses, 0, sizeof accesses);
    snprintf(accesses[0].what, sizeof accesses[0].what,
             "step 1: the copy's writes into the transposed tile, rows of %d floats",
             shared_row_floats(SHARED_STAGED));
    stage_words<SHARED_STAGED>(&accesses[0], shared_row_floats(SHARED_STAGED));
    snprintf(accesses[1].what, sizeof accesses[1].what,
             "padding alone: step 1's copy, rows of %d floats", shared_row_floats(SHARED_PADDED));
    stage_words<SHARED_STAGED>(&accesses[1], shared_row_floats(SHARED_PADDED));
    snprintf(accesses[2].what, sizeof accesses[2].what,
             "step 2: rows of %d floats, a warp copies 2 float4s of 16 rows",
             shared_row_floats(SHARED_PADDED));
    stage_words<SHARED_PADDED>(&accesses[2], shared_row_floats(SHARED_PADDED));
    snprintf(accesses[3].what, sizeof accesses[3].what,
             "step 3: cp.async, 4 bytes a lane, 8 values of k of 4 rows a warp");
    for (int lane = 0; lane < 32; lane++)
        accesses[3].words[lane][0] = shared_copy_destination<shared_row_floats(SHARED_ASYNC)>(lane);
    accesses[3].count = 1;
    snprintf(accesses[4].what, sizeof accesses[4].what,
             "steps 1 to 3: the multiply loop reads a float4 of keys a lane");
    /* (lanes l and l + 16 read the same float4: its words are labelled l) */
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++) /* value k = 0 of the tile: the same in every step */
            accesses[4].words[lane][i] = shared_first_col(lane) + i;
    accesses[4].count = 4;

    FILE *data = figure_open(dir, "bank-map.dat");
    FILE *vars = figure_open(dir, "bank-map.vars.gp");
    int wavefronts[5];
    for (int i = 0; i < 5; i++) {
        wavefronts[i] = write_access(data, vars, i, &accesses[i]);
    }
    figure_close(data, "bank-map.dat");
    figure_close(vars, "bank-map.vars.gp");
    figure_write_line(dir, "bank-map.caption",
                      "The bank of every word one warp writes into a tile of shared memory, or "
                      "reads from it, labelled with the lane that asks for it (in the read, lane "
                      "l + 16 asks for lane l's words); a bank serves one "
                      "word a wavefront: %d wavefronts in step 1, %d with padding alone, %d in "
                      "step 2 and %d in step 3, and %d for a read of keys in the multiply loop",
                      wavefronts[0], wavefronts[1], wavefronts[2], wavefronts[3], wavefronts[4]);
    return 0;
}
