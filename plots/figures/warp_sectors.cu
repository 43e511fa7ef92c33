/* plots/figures/warp_sectors.cu - the data of the figure `warp-sectors`
 * (chapter 4): the addresses that one warp's load or store instruction
 * presents, and the 32-byte sectors they fall in, for chapter 3's kernel
 * (4-byte accesses) and chapter 4's (16-byte accesses).
 *
 * Drawn from the functions the two kernels call to place a thread's rows
 * and columns: registers_first_query and registers_first_key
 * (chapters/03-registers/registers.cuh), vectorized_first_query and
 * vectorized_first_key (chapters/04-vectorized/vectorized.cuh). A row's
 * address is the packed layout of the input, the same in every chapter:
 * the query of head h of token t of sequence b at ((b T + t) 3 + 0) C + h HS,
 * its key C further on; score (i, j) of head (b, h) at ((b NH + h) T + i) T + j.
 *
 *   build/figures/bin/warp_sectors OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/03-registers/registers.cuh"
#include "../../chapters/04-vectorized/vectorized.cuh"
#include "figure.h"

#include <string.h>

/* The default size, a tile below the diagonal (every thread works), warp 0. */
#define FIGURE_T 1024
#define FIGURE_C 768
#define FIGURE_NH 12
#define FIGURE_TILE_ROW 1
#define FIGURE_TILE_COL 0
#define SECTOR 32

static long input_offset(int t, int part)
{
    return ((long)t * 3 + part) * FIGURE_C; /* sequence 0, head 0 */
}

static long score_offset(int i, int j)
{
    return (long)i * FIGURE_T + j; /* sequence 0, head 0 */
}

typedef struct {
    const char *what;
    long byte[32]; /* the first byte each lane asks for */
    int row[32];   /* the token (a load) or the query row (a store) of each lane */
    int width;     /* bytes per lane */
    const char *rows; /* what `row` counts: "keys", "rows of scores" */
    long row_bytes;   /* from one row to the next */
} access;

/* 73728 -> "73,728" */
static const char *thousands(long value, char *text)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%ld", value);
    const int length = (int)strlen(digits);
    int out = 0;
    for (int d = 0; d < length; d++) {
        if (d > 0 && (length - d) % 3 == 0)
            text[out++] = ',';
        text[out++] = digits[d];
    }
    text[out] = 0;
    return text;
}

/* Writes one index of data: for every word of every sector the access
 * touches, "slot word who", who = 0 unused, 1 lanes 0-15 only, 2 lanes 16-31
 * only, 3 both halves; and, in vars, what the figure prints of it. Returns
 * the number of sectors. */
static int write_access(FILE *data, FILE *vars, int index, const access *a)
{
    long sectors[64];
    int count = 0;
    for (int lane = 0; lane < 32; lane++)
        for (long byte = a->byte[lane]; byte < a->byte[lane] + a->width; byte += 4) {
            const long sector = byte / SECTOR;
            int seen = 0;
            for (int s = 0; s < count; s++)
                seen |= sectors[s] == sector;
            if (!seen)
                sectors[count++] = sector;
        }
    for (int s = 1; s < count; s++) /* address order */
        for (int t = s; t > 0 && sectors[t - 1] > sectors[t]; t--) {
            const long swap = sectors[t];
            sectors[t] = sectors[t - 1];
            sectors[t - 1] = swap;
        }
    int useful = 0;
    for (int s = 0; s < count; s++) {
        for (int word = 0; word < SECTOR / 4; word++) {
            const long byte = sectors[s] * SECTOR + 4 * word;
            int who = 0;
            for (int lane = 0; lane < 32; lane++)
                if (byte >= a->byte[lane] && byte < a->byte[lane] + a->width)
                    who |= lane < 16 ? 1 : 2;
            useful += who ? 4 : 0;
            fprintf(data, "%d %d %d\n", s, word, who);
        }
    }
    fprintf(data, "\n\n");
    fprintf(vars, "what%d = \"%s\"\nsectors%d = %d\nuseful%d = %d\nwidth%d = %d\n", index,
            a->what, index, count, index, useful, index, a->width);
    /* The rows the lanes ask for: how many, and how far apart. */
    int rows[32], row_count = 0;
    for (int lane = 0; lane < 32; lane++) {
        int seen = 0;
        for (int r = 0; r < row_count; r++)
            seen |= rows[r] == a->row[lane];
        if (!seen)
            rows[row_count++] = a->row[lane];
    }
    int shared = 1; /* lanes l and l + 16 ask for the same bytes */
    for (int lane = 0; lane < 16; lane++)
        shared &= a->byte[lane] == a->byte[lane + 16];
    const int apart = row_count > 1 ? rows[1] - rows[0] : 0;
    char bytes_apart[32];
    fprintf(vars, "note%d = \"%d %s, %d apart (%s bytes)%s\"\n", index, row_count, a->rows,
            apart, thousands((long)apart * a->row_bytes, bytes_apart),
            shared ? "; lanes l and l + 16 ask for the same bytes" : "");
    return count;
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes warp-sectors.dat, .vars.gp, .caption");
    access accesses[4];
    memset(accesses, 0, sizeof accesses);
    accesses[0].what = "chapter 3: a load of keys, 4 bytes a lane";
    accesses[1].what = "chapter 4: a load of keys, 16 bytes a lane";
    accesses[2].what = "chapter 3: a store of scores, 4 bytes a lane";
    accesses[3].what = "chapter 4: a store of scores, 16 bytes a lane";
    /* Warp 0 of a block of 16 x 16 threads: lane = tx + 16 ty, ty = 0, 1.
     * The first instruction of each kind: key c = 0 of the thread's keys at
     * k = 0; its first score (row 0 of its patch, its first column). */
    for (int lane = 0; lane < 32; lane++) {
        const unsigned tx = lane % 16, ty = lane / 16;
        const int key3 = registers_first_key(tx, FIGURE_TILE_COL);
        const int query3 = registers_first_query(ty, FIGURE_TILE_ROW);
        const int key4 = vectorized_first_key(tx, FIGURE_TILE_COL);
        const int query4 = vectorized_first_query(ty, FIGURE_TILE_ROW);
        const int key[4] = {key3, key4, query3, query4};
        for (int i = 0; i < 4; i++) {
            accesses[i].row[lane] = key[i];
            accesses[i].width = i % 2 ? 16 : 4;
            accesses[i].rows = i < 2 ? "keys" : "rows of scores";
            accesses[i].row_bytes = i < 2 ? 3L * FIGURE_C * 4 : (long)FIGURE_T * 4;
        }
        accesses[0].byte[lane] = 4 * input_offset(key3, 1);
        accesses[1].byte[lane] = 4 * input_offset(key4, 1);
        accesses[2].byte[lane] = 4 * score_offset(query3, key3);
        accesses[3].byte[lane] = 4 * score_offset(query4, key4);
    }

    FILE *data = figure_open(dir, "warp-sectors.dat");
    FILE *vars = figure_open(dir, "warp-sectors.vars.gp");
    int sectors[4];
    for (int i = 0; i < 4; i++)
        sectors[i] = write_access(data, vars, i, &accesses[i]);
    fprintf(vars, "token_bytes = %d\n", 3 * FIGURE_C * 4);
    figure_close(data, "warp-sectors.dat");
    figure_close(vars, "warp-sectors.vars.gp");
    figure_write_line(dir, "warp-sectors.caption",
                      "The 32-byte sectors one warp instruction touches, at C = %d: a load of "
                      "keys touches %d sectors in chapter 3 and %d in chapter 4, which uses four "
                      "times as many of their bytes; a store of scores touches %d sectors, 4 "
                      "bytes of each, in chapter 3, and %d whole sectors in chapter 4",
                      FIGURE_C, sectors[0], sectors[1], sectors[2], sectors[3]);
    return 0;
}
