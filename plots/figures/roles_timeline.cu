/* plots/figures/roles_timeline.cu - the data of the figure `roles-timeline`
 * (chapter 12): one block of tf32+roles over time, role by role: the
 * loader's copies into the query buffers and the ring's slots, each
 * consumer group's products and how it sends each tile's scores (a stage,
 * the lanes, nothing), and the storer's box stores in flight until the
 * engine has read their stage.
 *
 * Drawn from the kernel's own scheduling (chapters/12-roles/roles.cuh):
 * roles_next_row, roles_row_at, roles_path_of, roles_full_parity,
 * roles_empty_parity, roles_storer_lag and roles_shape's SLOTS, STAGES and
 * QUERY_BUFFERS, in the order roles_load, roles_consume (roles_step,
 * send_tile) and roles_store call them. Each role is written out as the
 * list of its waits, arrivals and work, then the lists are run together
 * against a model of the mbarriers, in steps of time: a schedule, not a
 * measurement (a tile's products take PRODUCT steps, writing a stage one,
 * a copy in LAND, the engine's read of a stage READ).
 *
 * The model: a barrier completes a phase when its expected arrivals have
 * come (the engine's landing counts as the full barrier's one); a wait with
 * parity p passes once the barrier's completions so far are odd for p = 0,
 * even for p = 1. Besides the barriers the program keeps the truth of each
 * buffer, and counts a race where an action finds it wrong: a slot or a
 * query buffer filled again before both groups' products of its last use
 * are over, products of keys or queries that have not landed, a stage
 * written again before the engine has read it, a store of a stage the
 * group has not finished writing. A block that never finishes is a
 * deadlock. It also checks the schedule against the causal mask, score by
 * score, at the drawn size and at the default size on 132 multiprocessors
 * (every block run through the model): a kept score on no path, or on a
 * row no block walks, is lost; a masked score in a staged tile would be
 * written. The script refuses to draw a schedule with any of them.
 *
 *   build/figures/bin/roles_timeline OUTDIR    (plots/figures.mk runs it)
 */
#include "../../chapters/12-roles/roles.cuh"
#include "figure.h"

enum {
    FIGURE_HS = 64,
    PRODUCT = 2, /* steps of a tile's products on a group's tensor cores */
    WRITE = 1,   /* steps of writing a tile's scores (a stage, or the lanes') */
    LAND = 3,    /* steps from a copy's issue to its landing */
    READ = 2,    /* steps from a bulk group's commit to the engine's read of it */
    MAX_OPS = 4096,
    MAX_TILES = 256,
    MAX_ROWS = 32,
    MAX_BARRIERS = 64,
    MAX_ARRIVALS = 1024,
    NEVER = 1 << 30,
};
using S = roles_shape<FIGURE_HS, 1>;
constexpr int LAG = roles_storer_lag(S::STAGES);

enum op_kind {
    OP_WAIT,         /* a: barrier, b: parity */
    OP_ARRIVE,       /* a: barrier, b: arrivals */
    OP_COPY_QUERIES, /* a: buffer, b: the block's row */
    OP_COPY_KEYS,    /* a: slot, b: the block's tile */
    OP_PRODUCTS,     /* a: group, b: tile, c: row */
    OP_WAIT_PRODUCTS,/* a: group, b: tile */
    OP_STAGE,        /* a: group, b: the group's staged count, c: tile, d: stage */
    OP_LANES,        /* a: group, b: tile */
    OP_STORE,        /* a: group, b: the group's staged count, c: tile, d: stage */
    OP_COMMIT,
    OP_WAIT_READ,    /* a: bulk groups left unread */
};
struct op {
    op_kind kind;
    int a, b, c, d;
};
struct role {
    op ops[MAX_OPS];
    int count, pc, busy_until;
};

/* The block's barriers: their expected arrivals and the times of arrivals. */
struct barrier_model {
    int expected[MAX_BARRIERS];
    int arrivals[MAX_BARRIERS][MAX_ARRIVALS];
    int count[MAX_BARRIERS];
};
enum { KEY_FULL = 0, KEY_EMPTY = 8, QUERY_FULL = 16, QUERY_EMPTY = 18, STAGE_FULL = 20, STAGE_EMPTY = 28 };

static int completions(const barrier_model &m, int b, int now)
{
    int n = 0;
    for (int i = 0; i < m.count[b]; i++)
        n += m.arrivals[b][i] <= now;
    return n / m.expected[b];
}

/* Whether a wait with parity p passes, as the hardware decides it. */
static int passes(const barrier_model &m, int b, unsigned p, int now)
{
    return (unsigned)(completions(m, b, now) % 2) != p;
}

static void arrive(barrier_model &m, int b, int n, int at)
{
    for (int i = 0; i < n && m.count[b] < MAX_ARRIVALS; i++)
        m.arrivals[b][m.count[b]++] = at;
}

static void push(role &r, op_kind kind, int a = 0, int b = 0, int c = 0, int d = 0)
{
    if (r.count == MAX_OPS) {
        fprintf(stderr, "roles_timeline: more than %d operations in a role\n", MAX_OPS);
        exit(1);
    }
    r.ops[r.count++] = op{kind, a, b, c, d};
}

/* What a block walks: its rows (head, row of tiles) in order, from the kernel's scheduler. */
struct walk {
    int rows, head[MAX_ROWS], tile_row[MAX_ROWS], tiles[MAX_ROWS], first[MAX_ROWS];
    int total; /* tiles */
};

static walk walk_of(int block, int blocks, int heads, int T, int NH)
{
    walk w = {};
    roles_schedule schedule = {block, 0};
    int head, tile_row;
    while (roles_next_row(schedule, blocks, heads, T / WGMMA_QUERIES, head, tile_row)) {
        if (w.rows == MAX_ROWS)
            break;
        const roles_row r = roles_row_at<FIGURE_HS, 1>(head, tile_row, T, NH);
        w.head[w.rows] = head, w.tile_row[w.rows] = tile_row;
        w.tiles[w.rows] = r.tiles, w.first[w.rows] = r.first;
        w.total += r.tiles;
        w.rows++;
    }
    return w;
}

/* The three roles' lists, as roles_load, roles_consume and roles_store walk. */
static void loader_ops(role &r, const walk &w)
{
    int tile_count = 0;
    for (int row = 0; row < w.rows; row++) {
        const int q = row % S::QUERY_BUFFERS;
        push(r, OP_WAIT, QUERY_EMPTY + q, roles_empty_parity(row / S::QUERY_BUFFERS));
        push(r, OP_COPY_QUERIES, q, row);
        for (int c = 0; c < w.tiles[row]; c++, tile_count++) {
            const int s = tile_count % S::SLOTS;
            push(r, OP_WAIT, KEY_EMPTY + s, roles_empty_parity(tile_count / S::SLOTS));
            push(r, OP_COPY_KEYS, s, tile_count);
        }
    }
}

static void send_ops(role &r, int group, int c, int top, int tile, int &staged)
{
    const roles_path path = roles_path_of(c, S::KEYS, top);
    if (path == ROLES_STAGED) {
        const int stage = group * S::STAGES + staged % S::STAGES;
        push(r, OP_WAIT, STAGE_EMPTY + stage, roles_empty_parity(staged / S::STAGES));
        push(r, OP_STAGE, group, staged, tile, stage);
        push(r, OP_ARRIVE, STAGE_FULL + stage, 4);
        staged++;
    } else if (path == ROLES_BY_LANES) {
        push(r, OP_LANES, group, tile);
    }
}

static void consumer_ops(role &r, const walk &w, int group)
{
    int tile_count = 0, staged = 0;
    for (int row = 0; row < w.rows; row++) {
        const int q = row % S::QUERY_BUFFERS, top = w.first[row] + group * ROLES_GROUP_ROWS;
        push(r, OP_WAIT, QUERY_FULL + q, roles_full_parity(row / S::QUERY_BUFFERS));
        push(r, OP_WAIT, KEY_FULL + tile_count % S::SLOTS, roles_full_parity(tile_count / S::SLOTS));
        push(r, OP_PRODUCTS, group, tile_count, row);
        for (int c = 0;; c++) {
            const int tile = tile_count + c;
            if (c + 1 >= w.tiles[row]) {
                push(r, OP_WAIT_PRODUCTS, group, tile);
                push(r, OP_ARRIVE, KEY_EMPTY + tile % S::SLOTS, 4);
                push(r, OP_ARRIVE, QUERY_EMPTY + q, 4);
                send_ops(r, group, c, top, tile, staged);
                break;
            }
            push(r, OP_WAIT, KEY_FULL + (tile + 1) % S::SLOTS, roles_full_parity((tile + 1) / S::SLOTS));
            push(r, OP_PRODUCTS, group, tile + 1, row);
            push(r, OP_WAIT_PRODUCTS, group, tile);
            push(r, OP_ARRIVE, KEY_EMPTY + tile % S::SLOTS, 4);
            send_ops(r, group, c, top, tile, staged);
        }
        tile_count += w.tiles[row];
    }
}

static void storer_ops(role &r, const walk &w)
{
    int staged[ROLES_GROUPS] = {0, 0}, tile_count = 0;
    int history[8][ROLES_GROUPS]; /* the stages of the last LAG steps, oldest first */
    for (int i = 0; i < 8; i++)
        history[i][0] = history[i][1] = -1;
    for (int row = 0; row < w.rows; row++)
        for (int c = 0; c < w.tiles[row]; c++, tile_count++) {
            int now[ROLES_GROUPS] = {-1, -1};
            for (int g = 0; g < ROLES_GROUPS; g++) {
                const int top = w.first[row] + g * ROLES_GROUP_ROWS;
                if (roles_path_of(c, S::KEYS, top) != ROLES_STAGED)
                    continue;
                const int stage = g * S::STAGES + staged[g] % S::STAGES;
                push(r, OP_WAIT, STAGE_FULL + stage, roles_full_parity(staged[g] / S::STAGES));
                push(r, OP_STORE, g, staged[g], tile_count, stage);
                now[g] = stage;
                staged[g]++;
            }
            push(r, OP_COMMIT);
            push(r, OP_WAIT_READ, LAG);
            for (int g = 0; g < ROLES_GROUPS; g++) {
                if (LAG <= 0) { /* no history: free what was just sent */
                    if (now[g] >= 0)
                        push(r, OP_ARRIVE, STAGE_EMPTY + now[g], 1);
                    continue;
                }
                if (history[0][g] >= 0)
                    push(r, OP_ARRIVE, STAGE_EMPTY + history[0][g], 1);
                for (int i = 0; i + 1 < LAG && i + 1 < 8; i++)
                    history[i][g] = history[i + 1][g];
                history[(LAG < 8 ? LAG : 8) - 1][g] = now[g];
            }
        }
    push(r, OP_WAIT_READ, 0);
}

/* What running a block's roles gives: the times of everything, the counts of the checks. */
struct run {
    int races, deadlock, end;
    int landed[MAX_TILES], issued[MAX_TILES];             /* a tile's keys */
    int product_start[2][MAX_TILES], product_done[2][MAX_TILES];
    int query_issued[MAX_ROWS], query_landed[MAX_ROWS], row_done[2][MAX_ROWS];
    int written_start[2][MAX_TILES], written[2][MAX_TILES]; /* by staged count */
    int written_tile[2][MAX_TILES], stage_of[2][MAX_TILES];
    int lanes_start[2][MAX_TILES];                          /* by tile */
    int store_issued[2][MAX_TILES], store_read[2][MAX_TILES]; /* by staged count */
    int sent[2], stored[2];
    int commits, commit_read[4 * MAX_TILES];
    int key_freed[MAX_TILES];                               /* both groups' arrivals */
};

static barrier_model model;
static role roles[4];

static void check(run &x, int bad)
{
    x.races += bad != 0;
}

/* Runs the block's roles together until every one has finished or none can move. */
static void run_block(run &x, const walk &w)
{
    for (int i = 0; i < MAX_BARRIERS; i++)
        model.expected[i] = 1, model.count[i] = 0;
    for (int s = 0; s < 8; s++)
        model.expected[KEY_EMPTY + s] = ROLES_GROUPS * 4;
    for (int q = 0; q < 2; q++)
        model.expected[QUERY_EMPTY + q] = ROLES_GROUPS * 4;
    for (int s = 0; s < 8; s++)
        model.expected[STAGE_FULL + s] = 4;
    for (int i = 0; i < MAX_TILES; i++) {
        x.landed[i] = x.issued[i] = x.key_freed[i] = NEVER;
        for (int g = 0; g < 2; g++) {
            x.product_start[g][i] = x.product_done[g][i] = x.written[g][i] = NEVER;
            x.written_start[g][i] = x.lanes_start[g][i] = NEVER;
            x.store_issued[g][i] = x.store_read[g][i] = NEVER;
            x.written_tile[g][i] = x.stage_of[g][i] = -1;
        }
    }
    for (int i = 0; i < MAX_ROWS; i++)
        x.query_issued[i] = x.query_landed[i] = x.row_done[0][i] = x.row_done[1][i] = NEVER;
    x.races = x.deadlock = x.commits = 0;
    x.sent[0] = x.sent[1] = x.stored[0] = x.stored[1] = 0;
    for (int i = 0; i < 4; i++)
        roles[i].count = roles[i].pc = roles[i].busy_until = 0;
    loader_ops(roles[0], w);
    consumer_ops(roles[1], w, 0);
    consumer_ops(roles[2], w, 1);
    storer_ops(roles[3], w);
    if (w.total > MAX_TILES) {
        fprintf(stderr, "roles_timeline: a block of more than %d tiles\n", MAX_TILES);
        exit(1);
    }
    int core_free[2] = {0, 0}, key_frees[MAX_TILES] = {0};
    /* nothing that is pending (a landing, a read, products) is further
     * than this from the last step something moved in: past it, no role
     * ever will */
    const int patience = 4 * (PRODUCT + LAND + READ + WRITE);
    int now = 0, last_moved = 0;
    for (;; now++) {
        int done = 1;
        for (int moved = 1; moved;) { /* what happens at `now`, until nothing more does */
            moved = 0;
            for (int i = 0; i < 4; i++) {
                role &r = roles[i];
                while (r.pc < r.count && r.busy_until <= now) {
                    const op &o = r.ops[r.pc];
                    if (o.kind == OP_WAIT) {
                        if (!passes(model, o.a, (unsigned)o.b, now))
                            break;
                    } else if (o.kind == OP_ARRIVE) {
                        arrive(model, o.a, o.b, now);
                        if (o.a >= KEY_EMPTY && o.a < KEY_EMPTY + 8) {
                            /* the tile this arrival frees: the oldest of its slot not yet freed */
                            for (int t = o.a - KEY_EMPTY; t < w.total; t += S::SLOTS)
                                if (key_frees[t] < ROLES_GROUPS) {
                                    if (++key_frees[t] == ROLES_GROUPS)
                                        x.key_freed[t] = now;
                                    break;
                                }
                        }
                    } else if (o.kind == OP_COPY_QUERIES) {
                        const int before = o.b - S::QUERY_BUFFERS; /* the buffer's last row */
                        check(x, before >= 0 && (x.row_done[0][before] > now || x.row_done[1][before] > now));
                        x.query_issued[o.b] = now, x.query_landed[o.b] = now + LAND;
                        arrive(model, QUERY_FULL + o.a, 1, now + LAND);
                    } else if (o.kind == OP_COPY_KEYS) {
                        const int before = o.b - S::SLOTS; /* the slot's last tile */
                        check(x, before >= 0 && (x.product_done[0][before] > now ||
                                                 x.product_done[1][before] > now));
                        x.issued[o.b] = now, x.landed[o.b] = now + LAND;
                        arrive(model, KEY_FULL + o.a, 1, now + LAND);
                    } else if (o.kind == OP_PRODUCTS) {
                        check(x, x.landed[o.b] > now || x.query_landed[o.c] > now);
                        const int start = core_free[o.a] > now ? core_free[o.a] : now;
                        x.product_start[o.a][o.b] = start;
                        x.product_done[o.a][o.b] = core_free[o.a] = start + PRODUCT;
                        x.row_done[o.a][o.c] = start + PRODUCT;
                    } else if (o.kind == OP_WAIT_PRODUCTS) {
                        if (x.product_done[o.a][o.b] > now)
                            break;
                    } else if (o.kind == OP_STAGE) {
                        const int before = o.b - S::STAGES; /* the stage's last use */
                        check(x, before >= 0 && x.store_read[o.a][before] > now);
                        x.written_start[o.a][o.b] = now, x.written[o.a][o.b] = now + WRITE;
                        x.written_tile[o.a][o.b] = o.c, x.stage_of[o.a][o.b] = o.d;
                        x.sent[o.a]++;
                        r.busy_until = now + WRITE;
                    } else if (o.kind == OP_LANES) {
                        x.lanes_start[o.a][o.b] = now;
                        r.busy_until = now + WRITE;
                    } else if (o.kind == OP_STORE) {
                        check(x, x.written[o.a][o.b] > now);
                        x.store_issued[o.a][o.b] = now;
                        x.store_read[o.a][o.b] = now + READ; /* its bulk group's, committed now */
                        x.stored[o.a]++;
                    } else if (o.kind == OP_COMMIT) {
                        x.commit_read[x.commits++] = now + READ;
                    } else if (o.kind == OP_WAIT_READ) {
                        int unread = 0;
                        for (int k = 0; k < x.commits - o.a; k++)
                            unread += x.commit_read[k] > now;
                        if (unread)
                            break;
                    }
                    r.pc++;
                    moved = 1;
                    last_moved = now;
                }
                done &= r.pc == r.count;
            }
        }
        if (done)
            break;
        if (now > last_moved + patience) {
            x.deadlock = 1;
            break;
        }
    }
    x.end = now;
}

/* The schedule against the causal mask: every kept score of every row the
 * blocks walk on a path that writes it, no masked score in a staged tile,
 * every row walked once. */
struct coverage {
    int lost, masked_written, repeated;
};

static void check_rows(coverage &k, int heads, int T, int NH, int blocks)
{
    const int rows = T / WGMMA_QUERIES;
    static int walked[4096][MAX_ROWS];
    for (int h = 0; h < heads; h++)
        for (int r = 0; r < rows; r++)
            walked[h][r] = 0;
    for (int b = 0; b < blocks; b++) {
        const walk w = walk_of(b, blocks, heads, T, NH);
        for (int i = 0; i < w.rows; i++)
            walked[w.head[i]][w.tile_row[i]]++;
    }
    for (int h = 0; h < heads; h++)
        for (int r = 0; r < rows; r++) {
            const roles_row row = roles_row_at<FIGURE_HS, 1>(h, r, T, NH);
            k.repeated += walked[h][r] > 1;
            for (int g = 0; g < ROLES_GROUPS; g++) {
                const int top = row.first + g * ROLES_GROUP_ROWS;
                for (int c = 0; c * S::KEYS < T; c++) {
                    const roles_path path =
                        walked[h][r] && c < row.tiles ? roles_path_of(c, S::KEYS, top) : ROLES_NONE;
                    for (int q = 0; q < ROLES_GROUP_ROWS; q++)
                        for (int key = c * S::KEYS; key < c * S::KEYS + S::KEYS; key++) {
                            const int kept = key <= top + q;
                            k.lost += kept && path == ROLES_NONE;
                            k.masked_written += !kept && path == ROLES_STAGED;
                        }
                }
            }
        }
}

/* Every block of a launch through the model: races, deadlocks, staged tiles never stored. */
static void check_launch(int &races, int &deadlocks, int &unsent, int heads, int T, int NH, int sms)
{
    const int units = roles_units(heads, T / WGMMA_QUERIES);
    const int blocks = units < sms ? units : sms;
    static run x;
    for (int b = 0; b < blocks; b++) {
        const walk w = walk_of(b, blocks, heads, T, NH);
        run_block(x, w);
        races += x.races;
        deadlocks += x.deadlock;
        if (!x.deadlock)
            unsent += (x.sent[0] - x.stored[0]) + (x.sent[1] - x.stored[1]);
    }
}

int main(int argc, char **argv)
{
    const char *dir = figure_folder(argc, argv, "writes roles-timeline.dat, .vars.gp, .caption");
    /* drawn: block 0 of B=1 T=512 NH=1, the pair of rows 3 and 0 */
    enum { DRAWN_T = 512, DRAWN_HEADS = 1, SMS = 132 };
    int races = 0, deadlocks = 0, unsent = 0;
    coverage k = {0, 0, 0};
    check_launch(races, deadlocks, unsent, DRAWN_HEADS, DRAWN_T, 1, SMS);
    check_rows(k, DRAWN_HEADS, DRAWN_T, 1, roles_units(DRAWN_HEADS, DRAWN_T / WGMMA_QUERIES));
    check_launch(races, deadlocks, unsent, 8 * 12, 1024, 12, SMS); /* the default size */
    check_rows(k, 8 * 12, 1024, 12, SMS);
    check_launch(races, deadlocks, unsent, 2, 384, 1, SMS); /* a middle row alone */
    check_rows(k, 2, 384, 1, roles_units(2, 3));

    const int blocks = roles_units(DRAWN_HEADS, DRAWN_T / WGMMA_QUERIES);
    const walk w = walk_of(0, blocks < SMS ? blocks : SMS, DRAWN_HEADS, DRAWN_T, 1);
    static run x;
    run_block(x, w);

    /* The rows of the figure, top to bottom. */
    const int y_query = 0, y_slot = S::QUERY_BUFFERS, y_products = y_slot + S::SLOTS;
    const int y_stage = y_products + 2 * ROLES_GROUPS;
    FILE *data = figure_open(dir, "roles-timeline.dat");
    /* index 0, "y start end row c": a copy in flight (loader) */
    int row_of[MAX_TILES], c_of[MAX_TILES];
    for (int row = 0, t = 0; row < w.rows; row++)
        for (int c = 0; c < w.tiles[row]; c++, t++)
            row_of[t] = row, c_of[t] = c;
    for (int row = 0; row < w.rows; row++)
        fprintf(data, "%d %d %d %d -1\n", y_query + row % S::QUERY_BUFFERS, x.query_issued[row],
                x.query_landed[row], w.tile_row[row]);
    for (int t = 0; t < w.total; t++)
        fprintf(data, "%d %d %d %d %d\n", y_slot + t % S::SLOTS, x.issued[t], x.landed[t],
                w.tile_row[row_of[t]], c_of[t]);
    fprintf(data, "\n\n");
    /* index 1, "y start end": a buffer held, from its landing to its last reader's end */
    for (int row = 0; row < w.rows; row++) {
        const int end = x.row_done[0][row] > x.row_done[1][row] ? x.row_done[0][row] : x.row_done[1][row];
        fprintf(data, "%d %d %d\n", y_query + row % S::QUERY_BUFFERS, x.query_landed[row], end);
    }
    for (int t = 0; t < w.total; t++)
        fprintf(data, "%d %d %d\n", y_slot + t % S::SLOTS, x.landed[t], x.key_freed[t]);
    fprintf(data, "\n\n");
    /* index 2, "y start end row c": a group's products of a tile */
    for (int g = 0; g < ROLES_GROUPS; g++)
        for (int t = 0; t < w.total; t++)
            fprintf(data, "%d %d %d %d %d\n", y_products + 2 * g, x.product_start[g][t],
                    x.product_done[g][t], w.tile_row[row_of[t]], c_of[t]);
    fprintf(data, "\n\n");
    /* index 3, "y start end kind stage row c": a tile's scores sent by a group:
     * kind 0 into a stage (its number in the group), 1 by the lanes */
    int lanes = 0;
    for (int g = 0; g < ROLES_GROUPS; g++) {
        for (int n = 0; n < x.sent[g]; n++)
            fprintf(data, "%d %d %d 0 %d %d %d\n", y_products + 2 * g + 1, x.written_start[g][n],
                    x.written[g][n], x.stage_of[g][n] - g * S::STAGES,
                    w.tile_row[row_of[x.written_tile[g][n]]], c_of[x.written_tile[g][n]]);
        for (int t = 0; t < w.total; t++)
            if (x.lanes_start[g][t] != NEVER) {
                fprintf(data, "%d %d %d 1 -1 %d %d\n", y_products + 2 * g + 1, x.lanes_start[g][t],
                        x.lanes_start[g][t] + WRITE, w.tile_row[row_of[t]], c_of[t]);
                lanes++;
            }
    }
    fprintf(data, "\n\n");
    /* index 4, "y start end row c": a stage's box stores in flight, from the
     * storer's issue to the engine's read */
    int stores = 0;
    for (int g = 0; g < ROLES_GROUPS; g++)
        /* (a broken schedule may store what was never staged: no tile to name) */
        for (int n = 0; n < x.stored[g] && n < x.sent[g]; n++, stores++)
            fprintf(data, "%d %d %d %d %d\n", y_stage + x.stage_of[g][n], x.store_issued[g][n],
                    x.store_read[g][n], w.tile_row[row_of[x.written_tile[g][n]]],
                    c_of[x.written_tile[g][n]]);
    figure_close(data, "roles-timeline.dat");

    FILE *vars = figure_open(dir, "roles-timeline.vars.gp");
    fprintf(vars,
            "end = %d\nslots = %d\nquery_buffers = %d\nstages = %d\nlag = %d\ngroups = %d\n"
            "rows_walked = %d\nlong_row = %d\nlong_tiles = %d\nshort_row = %d\nshort_tiles = %d\ntiles = %d\nstores = %d\nlanes = %d\n"
            "product = %d\nland = %d\nread = %d\n"
            "races = %d\ndeadlocks = %d\nunsent = %d\nlost = %d\nmasked_written = %d\nrepeated = %d\n",
            x.end, S::SLOTS, S::QUERY_BUFFERS, S::STAGES, LAG, ROLES_GROUPS, w.rows,
            w.tile_row[0], w.tiles[0], w.rows > 1 ? w.tile_row[1] : -1, w.rows > 1 ? w.tiles[1] : 0, w.total, stores, lanes, PRODUCT, LAND,
            READ, races, deadlocks, unsent, k.lost, k.masked_written, k.repeated);
    figure_close(vars, "roles-timeline.vars.gp");
    figure_write_line(
        dir, "roles-timeline.caption",
        "One block of tf32+roles over time at T = %d, HS = %d: the pair of rows %d (%d tiles of %d "
        "keys) and %d (%d tiles) that roles_next_row gives block 0, drawn as a schedule run through "
        "a model of the barriers, not a measurement (a tile's products take %d steps, a copy lands "
        "%d steps after the loader issues it, the engine reads a stage %d steps after the storer's "
        "box stores). The loader fills the %d query buffers and the ring's %d slots as soon as "
        "their empty barriers complete; each consumer group multiplies tile after tile and writes "
        "each finished tile into one of its %d stages (roles_path_of: by the lanes on the "
        "diagonal, not at all above it); the storer sends each stage and frees it once the engine "
        "has read it, %d tile%s later (roles_storer_lag). The same model runs every block of the default size and finds no "
        "race, no deadlock and no lost score",
        DRAWN_T, FIGURE_HS, w.tile_row[0], w.tiles[0], S::KEYS, w.rows > 1 ? w.tile_row[1] : -1,
        w.rows > 1 ? w.tiles[1] : 0, PRODUCT, LAND, READ, S::QUERY_BUFFERS, S::SLOTS, S::STAGES,
        LAG, LAG == 1 ? "" : "s");
    return 0;
}
