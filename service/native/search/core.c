/* The native search core: one iterative-deepening principal variation search over any kernel (kernel.h).
 *
 * It is the C twin of service/search/alphabeta.py and keeps its semantics:
 * - negamax where a seat may move several times in a row: a child's value changes sign only when the seat
 *   to move changes; a finished child (to_move 0) is worth final_value(parent's seat);
 * - fail-soft PVS (null windows after the first move, re-search on a fail high), aspiration windows at the
 *   root from the third iteration on, doubling on each failure;
 * - every value carries a "proved" flag, true when only finished games (or proved table entries, or the
 *   kernel's exact endgame) decided it; an iteration whose root value is proved ends the search (solved);
 * - solve mode: after solve_lead shallow iterations the next one goes straight to the end of the game
 *   (the kernel's plies_left, capped by max_depth);
 * - ordering: the table's move, two killers per ply, then the kernel's order re-sorted (stably) by history;
 *   at the frontier (depth 1) the kernel's order as it is;
 * - a node searched to the end of the game (solve mode, or a depth reaching past its plies left) is a proof:
 *   the kernel's endgame hook may answer it exactly, and its moves keep the kernel's solving order (the
 *   table's move first), which proves faster than history. Neither changes a value, only the cost.
 * - the proof iteration (solve mode, to the end of the game) plays every child of a node first: a child whose
 *   table entry already reaches beta cuts the node off, one proved no better than alpha is not searched
 *   (enhanced transposition cutoffs: fewer nodes on the proofs of ``python -m bench.native``); and it keys its
 *   table by the kernel's proof key where it has one (Kalah: the pits alone, the store margin added back,
 *   which shares one entry among positions that differ only by seeds already stored).
 *
 * Unlike the Python search the table is an array of entries keyed by the kernel's 64-bit hash, allocated
 * at the start of a call and freed at its end (nothing survives a call: the service is stateless); it starts
 * small and doubles while it fills, up to the caller's size, so a short search does not pay for a big one. The
 * search polls a deadline (CLOCK_MONOTONIC seconds, the clock of Python's time.monotonic) and a stop flag
 * that another thread may set while the call runs; a stop unwinds to the root, which answers with the last
 * finished iteration. The call holds no Python object, so ctypes runs it with the GIL released.
 */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kernel.h"

extern const gr_kernel gr_reversi_kernel;
extern const gr_kernel gr_kalah_kernel;
extern const gr_kernel gr_petak_sawah_kernel;
extern const gr_kernel gr_dots_and_boxes_kernel;
extern const gr_kernel gr_strands_kernel;

static const gr_kernel *const KERNELS[] = {&gr_reversi_kernel, &gr_kalah_kernel, &gr_petak_sawah_kernel,
                                           &gr_dots_and_boxes_kernel, &gr_strands_kernel};

#define MAX_PLY 1024
#define PV_MAX 256
#define LINE_PLIES 64
#define PATHS 1024 /* the kept lines of exact nodes (path_keep), a direct-mapped table */
#define ALT_MAX 64
#define ALT_PV_MAX PV_MAX /* an alternative's line: as long as the answer's */
#define ITER_MAX 128
#define ASPIRATION_FROM 3
#define POLL_EVERY 1024
#define TT_FIRST (1 << 16) /* the table's first size in entries (it grows: tt_grow) */
#define TT_MIN_DEPTH 3 /* faster on Reversi midgames than storing every node (``python -m bench.native``) */

/* A table entry's bounds (EMPTY: a free slot; BOUNDS: a lower and an upper one). */
enum { EMPTY = 0, EXACT = 1, LOWER = 2, UPPER = 3, BOUNDS = 4 };
/* Why a search ended, as gr_result.stop_reason (the binding maps them to the Python words). */
enum { R_NONE = 0, R_DEPTH = 1, R_TIME = 2, R_NODES = 3, R_CANCELLED = 4, R_SOLVED = 5 };

typedef struct {
    int32_t max_depth;   /* 0: none */
    int32_t solve;       /* solve mode */
    int32_t solve_lead;  /* shallow iterations before the leap to the end */
    int32_t top_n;       /* root moves scored exactly (multi-PV) */
    uint64_t max_nodes;  /* 0: none */
    double stop_at;      /* the search's own time limit, CLOCK_MONOTONIC seconds; 0: none */
    double end_at;       /* the caller's end (its stop signal's), the same clock; 0: none */
    double aspiration;   /* first half-width of the root window; 0 disables */
    uint64_t tt_entries; /* table size (rounded down to a power of two); 0: no table */
    double spend_at;     /* before this gr_now() instant every iteration is begun (the caller's time used); 0: none */
    const double *selective; /* multi-ProbCut's rows (service/core/selectivity.py's table()); NULL: none */
    int32_t sel_stages;      /* the rows' stages: plies_left 0 .. sel_stages - 1, SEL_DEPTHS rows each */
    int32_t pad;
} gr_limits;

#define SEL_DEPTHS 64 /* selectivity.MAX_DEPTH */
#define SEL_FIELDS 4  /* shallow depth, a, b, margin */

typedef struct {
    int32_t depth;
    int32_t move;
    double value;
    int32_t proved;
    int32_t pad;
    uint64_t nodes;
    double seconds; /* since the call began */
} gr_iteration;

typedef struct {
    int32_t move;
    int32_t exact;
    int32_t depth;
    int32_t stop_reason;
    double value;
    uint64_t nodes;
    int32_t pv_len;
    int32_t n_alt;
    int32_t n_iter;
    int32_t error; /* 1: unknown game, 2: game over, 3: no moves, 4: out of memory */
    int32_t pv[PV_MAX];
    int32_t alt_move[ALT_MAX];
    double alt_value[ALT_MAX];
    int32_t alt_exact[ALT_MAX];
    gr_iteration iter[ITER_MAX];
    int32_t alt_pv_len[ALT_MAX];
    int32_t alt_pv[ALT_MAX][ALT_PV_MAX]; /* each alternative's own line, starting with its move (the first: pv) */
} gr_result;

typedef struct {
    uint64_t key;
    double lo, hi; /* the value's bounds (-INFINITY, INFINITY when not known); flag says which are known */
    int32_t move;
    int16_t depth;
    uint8_t flag;
    uint8_t proved;
} tt_entry;
_Static_assert(sizeof(tt_entry) == 32, "engine.py's TT_ENTRY_BYTES");

/* The line below a node whose exact value went into the table (the "hash path"): a later probe that takes
 * that value inside its window has no line of its own to keep, so it takes this one. It stands for the
 * entry it was kept with: same key, depth, value and proof. */
typedef struct {
    uint64_t key;
    double value; /* as the table holds it (net of decided) */
    int16_t depth;
    uint8_t proved;
    uint8_t len;
    int32_t move[LINE_PLIES];
} pv_path;

typedef struct {
    const gr_kernel *k;
    tt_entry *tt;
    uint64_t tt_mask;
    uint64_t tt_max;  /* the size the table may grow to (the caller's tt_entries) */
    uint64_t tt_used; /* slots taken */
    uint64_t nodes;
    uint64_t max_nodes;
    double stop_at;
    double end_at;
    volatile int32_t *stop;
    int countdown;
    int reason;
    int solve;
    int proving; /* the iteration that goes to the end of the game, uncapped: every value in it is proved */
    const double *sel; /* multi-ProbCut's rows, NULL: no selective pruning (never in solve mode) */
    int sel_stages;
    int32_t killers[MAX_PLY][2];
    /* The principal variation below each ply of the current search (the triangular table): a line kept
     * whenever a move lands inside a node's window, and a node the table answers inside its window takes the
     * line kept with that entry (paths). Proofs by null windows alone (MTD) leave it short; the table's best
     * moves then continue it. None of it changes what the search does. */
    int32_t line[LINE_PLIES][LINE_PLIES];
    int32_t line_len[LINE_PLIES];
    pv_path paths[PATHS];
    uint64_t history[3][GR_MOVE_RANGE]; /* depth * depth per cutoff: a proof at depth 1000 would overflow 32 bits */
    jmp_buf unwind;
} ctx;

double gr_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const gr_kernel *gr_find(const char *name) {
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++)
        if (strcmp(KERNELS[i]->name, name) == 0) return KERNELS[i];
    return NULL;
}

/* The node budget every node, the stop flag and the clock every POLL_EVERY nodes; the search's own time from its
 * first node on, so a time given is searched with however late the search began (a loaded machine). */
static int expired(ctx *c) {
    if (c->reason) return 1;
    if (c->max_nodes && c->nodes >= c->max_nodes) {
        c->reason = R_NODES;
        return 1;
    }
    if (--c->countdown > 0) return 0;
    c->countdown = POLL_EVERY;
    if (c->stop && *c->stop) {
        c->reason = R_CANCELLED;
        return 1;
    }
    double now = gr_now();
    if (c->stop_at > 0 && c->nodes > 0 && now >= c->stop_at) {
        c->reason = R_TIME;
        return 1;
    }
    if (c->end_at > 0 && now >= c->end_at) { /* the caller's end: its stop signal gives the reason */
        c->reason = R_CANCELLED;
        return 1;
    }
    return 0;
}

static void check(ctx *c) {
    if (expired(c)) longjmp(c->unwind, 1);
}

/* The table: buckets of two entries (the index's low bit cleared). A new position takes the bucket's empty or
 * shallower entry, so the entries near the root of a long proof survive the flood of shallow ones. */
static tt_entry *tt_probe(ctx *c, uint64_t key) {
    if (!c->tt) return NULL;
    tt_entry *e = &c->tt[key & c->tt_mask & ~1ULL];
    if (e[0].key == key && e[0].flag != EMPTY) return &e[0];
    if (e[1].key == key && e[1].flag != EMPTY) return &e[1];
    return NULL;
}

/* A zeroed table of size entries, in huge pages where the system gives them: a proof's probes land all over
 * a table of tens or hundreds of megabytes, and with small pages nearly each one also misses the TLB
 * (a large share of a long proof's time, ``python -m bench.native``'s Kalah proof). Pages come lazily, zeroed. */
static tt_entry *tt_alloc(uint64_t size) {
    size_t bytes = (size_t)size * sizeof(tt_entry);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= (2u << 20)) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static void tt_free(tt_entry *tt, uint64_t size) { munmap(tt, (size_t)size * sizeof(tt_entry)); }

/* The slot a new position takes in its bucket: the matching or empty entry, else the shallower one. */
static tt_entry *tt_slot(tt_entry *b, uint64_t key) {
    if (b[0].key == key && b[0].flag != EMPTY) return &b[0];
    if (b[1].key == key && b[1].flag != EMPTY) return &b[1];
    return b[0].flag == EMPTY || (b[1].flag != EMPTY && b[0].depth <= b[1].depth) ? &b[0] : &b[1];
}

/* Twice the table, its entries moved over. The table starts small and grows while it fills (up to the
 * caller's size), so a short search does not pay for touching the pages of a big one. */
static void tt_grow(ctx *c) {
    uint64_t size = (c->tt_mask + 1) * 2;
    tt_entry *grown = tt_alloc(size);
    if (!grown) {
        c->tt_max = c->tt_mask + 1; /* no memory for more: keep this one */
        return;
    }
    uint64_t used = 0;
    for (uint64_t i = 0; i <= c->tt_mask; i++) {
        tt_entry *old = &c->tt[i];
        if (old->flag == EMPTY) continue;
        tt_entry *e = tt_slot(&grown[old->key & (size - 1) & ~1ULL], old->key);
        if (e->flag == EMPTY) used++;
        if (e->flag == EMPTY || e->depth < old->depth) *e = *old;
    }
    tt_free(c->tt, c->tt_mask + 1);
    c->tt = grown;
    c->tt_mask = size - 1;
    c->tt_used = used;
}

/* A search's bound on a position's value. An entry of the same position and standing (proved, or the same
 * depth) keeps its other bound, so the null windows of MTD(f) at different values add up in one entry
 * instead of overwriting each other. */
static int tt_store(ctx *c, uint64_t key, int depth, double value, int flag, int move, int proved) {
    if (!c->tt) return 0;
    if (c->tt_used * 2 > c->tt_mask && c->tt_mask + 1 < c->tt_max) tt_grow(c);
    tt_entry *b = &c->tt[key & c->tt_mask & ~1ULL], *e;
    e = tt_slot(b, key);
    int same = e->key == key && e->flag != EMPTY;
    /* Keep a deeper (or proved) entry of the same position. */
    if (same && !proved && (e->proved || e->depth > depth)) return 0;
    if (e->flag == EMPTY) c->tt_used++;
    double lo = flag == UPPER ? -INFINITY : value, hi = flag == LOWER ? INFINITY : value;
    if (same && e->proved == proved && (proved || e->depth == depth) && flag != EXACT) {
        if (flag == LOWER && e->hi >= value) hi = e->hi;
        if (flag == UPPER && e->lo <= value) lo = e->lo, move = e->move;
    }
    e->key = key;
    e->lo = lo;
    e->hi = hi;
    e->move = move;
    e->depth = (int16_t)(depth > 32767 ? 32767 : depth);
    e->flag = (uint8_t)(lo == hi ? EXACT : hi == INFINITY ? LOWER : lo == -INFINITY ? UPPER : BOUNDS);
    e->proved = (uint8_t)proved;
    return 1;
}

/* The table's key of a position: in a proof the kernel's proof key when it has one (the entry then keeps the
 * value less *decided, exact in a proof, where values are whole final margins), else its hash (less what the
 * kernel's held says the hash leaves out). */
static inline uint64_t table_key(const ctx *c, const void *pos, double *decided) {
    if (c->proving && c->k->proof_key) return c->k->proof_key(pos, decided);
    /* A kernel whose hash leaves out a part of every value (k->held) has the table hold values net of it. */
    *decided = c->k->held ? c->k->held(pos) : 0.0;
    return c->k->hash(pos);
}

static void move_to(int *moves, int n, int from, int to) {
    int m = moves[from];
    if (from > to)
        memmove(moves + to + 1, moves + to, (size_t)(from - to) * sizeof(int));
    else
        memmove(moves + from, moves + from + 1, (size_t)(to - from) * sizeof(int));
    moves[to] = m;
    (void)n;
}

static int index_of(const int *moves, int n, int m) {
    for (int i = 0; i < n; i++)
        if (moves[i] == m) return i;
    return -1;
}

/* A move's history slot: the move itself below GR_MOVE_RANGE; above it (Strands numbers a cover by its rank) a
 * slot drawn by a hash. Moves that share a slot share their history, which changes the order of moves and so
 * the cost of a search, never a value. */
static inline int history_slot(int move) {
    if (move < GR_MOVE_RANGE) return move;
    return (int)(((uint32_t)move * 2654435761u) >> 22); /* the top 10 bits: 0 .. GR_MOVE_RANGE-1 */
}
_Static_assert(GR_MOVE_RANGE == 1 << 10, "history_slot keeps 10 bits of the hash");

/* Table move, killers, then the kernel's order re-sorted (stably) by history: the Python search's order. */
static void order(ctx *c, int *moves, int n, int seat, int tt_move, int ply, int kernel_order) {
    const uint64_t *hist = c->history[seat];
    /* kernel_order: the table's move first, then the kernel's order as it is (no history, no killers). */
    if (!kernel_order && n > 1) { /* stable insertion sort, highest history first (the keys read once) */
        uint64_t key[GR_MAX_MOVES];
        key[0] = hist[history_slot(moves[0])];
        for (int i = 1; i < n; i++) {
            int m = moves[i];
            uint64_t h = hist[history_slot(m)];
            int j = i - 1;
            while (j >= 0 && key[j] < h) {
                moves[j + 1] = moves[j];
                key[j + 1] = key[j];
                j--;
            }
            moves[j + 1] = m;
            key[j + 1] = h;
        }
    }
    if (n <= 1) return;
    int front = 0;
    if (tt_move >= 0) {
        int i = index_of(moves, n, tt_move);
        if (i >= 0) {
            move_to(moves, n, i, 0);
            front = 1;
        } else {
            tt_move = -1;
        }
    }
    for (int k = 0; k < (kernel_order ? 0 : 2); k++) {
        int m = c->killers[ply][k];
        if (m < 0 || m == tt_move) continue;
        int i = index_of(moves, n, m);
        if (i < 0) continue;
        if (i != front) move_to(moves, n, i, front);
        front++;
    }
}

static double node(ctx *c, const void *pos, int depth, double alpha, double beta, int ply, int *proved);

/* The line at ply: move, then the line found below it (at ply + 1). */
static void keep_line(ctx *c, int ply, int move) {
    if (ply >= LINE_PLIES) return;
    int below = ply + 1 < LINE_PLIES ? c->line_len[ply + 1] : 0;
    c->line[ply][0] = move;
    if (below > LINE_PLIES - 1) below = LINE_PLIES - 1;
    memcpy(&c->line[ply][1], c->line[ply + 1], (size_t)below * sizeof(int32_t));
    c->line_len[ply] = 1 + below;
}

static inline void clear_line(ctx *c, int ply) {
    if (ply < LINE_PLIES) c->line_len[ply] = 0;
}

static inline pv_path *path_slot(ctx *c, uint64_t key) { return &c->paths[(key ^ (key >> 32)) & (PATHS - 1)]; }

/* The path of the entry e (key), when the one kept is e's own; NULL otherwise. */
static const pv_path *path_of(ctx *c, uint64_t key, const tt_entry *e) {
    const pv_path *p = path_slot(c, key);
    if (p->len == 0 || p->key != key || p->depth != e->depth || p->proved != e->proved || p->value != e->lo)
        return NULL;
    return p;
}

/* The line at ply goes with the exact entry just stored for key (value net of decided). */
static void path_keep(ctx *c, int ply, int move, uint64_t key, int depth, double value, int proved) {
    if (ply >= LINE_PLIES || c->line_len[ply] == 0 || c->line[ply][0] != move) return;
    pv_path *p = path_slot(c, key);
    p->key = key;
    p->value = value;
    p->depth = (int16_t)(depth > 32767 ? 32767 : depth);
    p->proved = (uint8_t)proved;
    p->len = (uint8_t)c->line_len[ply];
    memcpy(p->move, c->line[ply], (size_t)p->len * sizeof(int32_t));
}

/* A node the table answered inside its window: its line is the one kept with the entry (none when lost). */
static void path_take(ctx *c, int ply, uint64_t key, const tt_entry *e) {
    if (ply >= LINE_PLIES) return;
    const pv_path *p = path_of(c, key, e);
    if (!p) return;
    memcpy(c->line[ply], p->move, (size_t)p->len * sizeof(int32_t));
    c->line_len[ply] = p->len;
}

/* Value of a child for the parent's seat, PVS style (a null window first unless full). */
static double child_value(ctx *c, const void *child, int seat, int depth, double alpha, double beta, int ply,
                          int full, int *proved) {
    const gr_kernel *k = c->k;
    int cs = k->to_move(child);
    double v;
    if (cs == 0) {
        check(c);
        c->nodes++;
        *proved = 1;
        return k->final_value(child, seat);
    }
    if (cs == seat) {
        if (!full) {
            v = node(c, child, depth, alpha, nextafter(alpha, INFINITY), ply, proved);
            if (!(alpha < v && v < beta)) return v;
        }
        return node(c, child, depth, alpha, beta, ply, proved);
    }
    if (!full) {
        v = node(c, child, depth, -nextafter(alpha, INFINITY), -alpha, ply, proved);
        if (!(alpha < -v && -v < beta)) return -v;
    }
    return -node(c, child, depth, -beta, -alpha, ply, proved);
}

/* What a child's end or proved table entry says of its value for the parent's seat: *lo <= value <= *hi
 * (infinite where nothing is known). */
static void etc_bounds(ctx *c, const void *child, uint64_t key, double decided, int seat, double *lo, double *hi) {
    const gr_kernel *k = c->k;
    int cs = k->to_move(child);
    *lo = -INFINITY, *hi = INFINITY;
    if (cs == 0) {
        *lo = *hi = k->final_value(child, seat);
        return;
    }
    tt_entry *e = tt_probe(c, key);
    if (!e || !e->proved) return;
    if (cs == seat)
        *lo = e->lo + decided, *hi = e->hi + decided;
    else
        *lo = -(e->hi + decided), *hi = -(e->lo + decided);
}

/* Multi-ProbCut (service/core/selectivity.py): whether a shallow search shows the node's value so far outside
 * (alpha, beta) that the deep one cannot come back inside: 1 to cut the node at beta, -1 at alpha, 0 to search
 * it; stage is the node's plies_left. The Python twin is Tree.probcut. */
static int probcut(ctx *c, const void *pos, int stage, int depth, double alpha, double beta, int ply) {
    int p;
    if (stage >= c->sel_stages) stage = c->sel_stages - 1;
    const double *row = c->sel + ((size_t)stage * SEL_DEPTHS + (depth < SEL_DEPTHS ? depth : SEL_DEPTHS - 1)) *
                                     SEL_FIELDS;
    int shallow = (int)row[0];
    if (shallow <= 0) return 0;
    double a = row[1], b = row[2], margin = row[3];
    if (isfinite(beta)) {
        double bound = (beta + margin - b) / a;
        if (node(c, pos, shallow, nextafter(bound, -INFINITY), bound, ply, &p) >= bound) return 1;
    }
    if (isfinite(alpha)) {
        double bound = (alpha - margin - b) / a;
        if (node(c, pos, shallow, bound, nextafter(bound, INFINITY), ply, &p) <= bound) return -1;
    }
    clear_line(c, ply);
    return 0;
}

static double node(ctx *c, const void *pos, int depth, double alpha, double beta, int ply, int *proved) {
    const gr_kernel *k = c->k;
    check(c);
    c->nodes++;
    clear_line(c, ply);
    int seat = k->to_move(pos);
    if (depth <= 0) {
        *proved = 0;
        return k->evaluate(pos, seat);
    }
    /* A node searched to the end of the game (solve mode, or a depth past the plies left) is being proved:
     * the kernel's exact endgame may answer it, and its moves come in the kernel's solving order. */
    int left = k->plies_left(pos), solving = c->solve || depth >= left;
    if (solving && k->endgame) {
        double v;
        uint64_t n = 0;
        if (k->endgame(pos, alpha, beta, &v, &n)) {
            c->nodes += n;
            *proved = 1;
            return v;
        }
    }
    /* Nodes near the leaves skip the table: a probe there costs a cache miss and saves less. */
    int use_tt = depth >= TT_MIN_DEPTH || solving;
    if (solving && k->bounds) { /* a proof may stop where the game's bounds already decide the window */
        double lo, hi;
        k->bounds(pos, alpha, beta, &lo, &hi);
        if (lo >= beta || hi <= alpha) {
            *proved = 1;
            return lo >= beta ? lo : hi;
        }
    }
    double decided = 0.0; /* the table keeps value - decided (table_key) */
    uint64_t key = use_tt ? table_key(c, pos, &decided) : 0;
    int tt_move = -1;
    tt_entry *e = use_tt ? tt_probe(c, key) : NULL;
    if (e) {
        tt_move = e->move;
        if (e->proved || e->depth >= depth) {
            double lo = e->lo + decided, hi = e->hi + decided;
            if (lo >= beta || lo == hi || hi <= alpha) {
                *proved = e->proved;
                if (lo == hi && alpha < lo && lo < beta) path_take(c, ply, key, e);
                return lo >= beta || lo == hi ? lo : hi;
            }
        }
    }
    int cut = c->sel && !solving ? probcut(c, pos, left, depth, alpha, beta, ply) : 0;
    if (cut) {
        *proved = 0;
        return cut < 0 ? alpha : beta;
    }
    int moves[GR_MAX_MOVES];
    int n = k->moves(pos, moves, solving);
    if (n == 0) {
        *proved = 0;
        return k->evaluate(pos, seat);
    }
    int next_ply = ply + 1 < MAX_PLY ? ply + 1 : MAX_PLY - 1;
    /* The kernel's own order stands in a proof that has one, and at the frontier, where its cheap hints
     * beat history and killers (Reversi midgames at depth 9: 3% fewer nodes, and no sort). */
    order(c, moves, n, seat, tt_move, ply, (solving && k->solving_order) || depth == 1);
    /* In a proof every child is played first: one whose table entry (or end) already reaches beta cuts the
     * node off before any is searched (enhanced transposition cutoffs). */
    int etc = c->proving && use_tt && c->tt;
    uint64_t kids[etc ? n : 1][(etc ? k->state_size + 7 : GR_STATE_MAX) / 8]; /* states, 8-byte aligned */
    double upper[GR_MAX_MOVES]; /* each child's proved upper bound (ETC), INFINITY when unknown */
    if (etc) {
        uint64_t keys[GR_MAX_MOVES];
        double decideds[GR_MAX_MOVES];
        for (int i = 0; i < n; i++) { /* the children's buckets fetched at once: their misses overlap */
            k->play(pos, moves[i], kids[i]);
            keys[i] = table_key(c, kids[i], &decideds[i]);
            __builtin_prefetch(&c->tt[keys[i] & c->tt_mask & ~1ULL]);
        }
        for (int i = 0; i < n; i++) {
            double lo;
            etc_bounds(c, kids[i], keys[i], decideds[i], seat, &lo, &upper[i]);
            if (lo >= beta) {
                tt_store(c, key, depth, lo - decided, LOWER, moves[i], 1);
                *proved = 1;
                return lo;
            }
        }
    }
    double alpha0 = alpha, best = -INFINITY;
    int best_move = moves[0], all_proved = 1;
    for (int i = 0; i < n; i++) {
        int m = moves[i], p;
        void *child = kids[etc ? i : 0];
        if (etc && upper[i] <= alpha) { /* proved no better than alpha: its bound stands for its value */
            if (upper[i] > best) best = upper[i], best_move = m;
            continue;
        }
        if (!etc) k->play(pos, m, child);
        clear_line(c, next_ply);
        double v = child_value(c, child, seat, depth - 1, alpha, beta, next_ply, i == 0, &p);
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) {
                if (v < beta) keep_line(c, ply, m);
                if (v >= beta) {
                    int32_t *kill = c->killers[ply];
                    if (kill[0] != m) {
                        kill[1] = kill[0];
                        kill[0] = m;
                    }
                    c->history[seat][history_slot(m)] += (uint64_t)depth * (uint64_t)depth;
                    if (use_tt) tt_store(c, key, depth, v - decided, LOWER, m, p);
                    *proved = p;
                    return v;
                }
                alpha = v;
            }
        }
        if (!p) all_proved = 0;
    }
    if (use_tt && tt_store(c, key, depth, best - decided, best <= alpha0 ? UPPER : EXACT,
                           best <= alpha0 && tt_move >= 0 ? tt_move : best_move, all_proved) &&
        best > alpha0)
        path_keep(c, ply, best_move, key, depth, best - decided, all_proved); /* best_move's line (keep_line) */
    *proved = all_proved;
    return best;
}

/* --- the root ------------------------------------------------------------------------------------- */

typedef struct {
    int move;
    unsigned char state[GR_STATE_MAX];
} root_child;

typedef struct {
    double value;
    int index;
    int proved;
    int line_len;
    int32_t line[LINE_PLIES]; /* the move's line as its child's search left it (root_multi) */
} scored;

static double root_single(ctx *c, root_child *root, int n, int seat, int depth, double alpha, double beta,
                          int *best_i, int *proved) {
    double best = -INFINITY;
    int all_proved = 1;
    *best_i = 0;
    clear_line(c, 0); /* this pass's line (a null window keeps none: MTD's proofs take the table's moves) */
    for (int i = 0; i < n; i++) {
        int p;
        clear_line(c, 1);
        double v = child_value(c, root[i].state, seat, depth - 1, alpha, beta, 1, i == 0, &p);
        if (v > best) {
            best = v;
            *best_i = i;
            if (v > alpha && v < beta) keep_line(c, 0, root[i].move);
            if (v > alpha) {
                if (v >= beta) {
                    *proved = p;
                    return v;
                }
                alpha = v;
            }
        }
        if (!p) all_proved = 0;
    }
    *proved = all_proved;
    return best;
}

/* Scores the top_n best root moves exactly; moves outside the top are only shown to be no better. A move that
 * enters the top lands inside its window, so its child's search leaves its line at ply 1: the score keeps it. */
static int root_multi(ctx *c, root_child *root, int n, int seat, int depth, int top_n, scored *out, int *proved) {
    int count = 0, all_proved = 1;
    double floor_v = -INFINITY;
    clear_line(c, 0);
    for (int i = 0; i < n; i++) {
        int p;
        clear_line(c, 1);
        double v = child_value(c, root[i].state, seat, depth - 1, floor_v, INFINITY, 1, i < top_n, &p);
        if (!p) all_proved = 0;
        if (count == 0 || v > out[0].value) keep_line(c, 0, root[i].move);
        if (v > floor_v) {
            int j = count < top_n ? count++ : top_n - 1;
            /* insert keeping (-value, index) order; the last one falls out when full */
            while (j > 0 && (out[j - 1].value < v)) {
                out[j] = out[j - 1];
                j--;
            }
            out[j].value = v;
            out[j].index = i;
            out[j].proved = p;
            int below = c->line_len[1] < LINE_PLIES - 1 ? c->line_len[1] : LINE_PLIES - 1;
            out[j].line[0] = root[i].move;
            memcpy(&out[j].line[1], c->line[1], (size_t)below * sizeof(int32_t));
            out[j].line_len = 1 + below;
            if (count == top_n) floor_v = out[top_n - 1].value;
        }
    }
    *proved = all_proved;
    return count;
}

/* The principal variation as it is walked: the position reached, the positions before it (a line never goes
 * through one twice), and the value of the position for its seat to move at the depth left there, while it is
 * known (the root's value is: an iteration ends with it inside its window; so are the values along the line the
 * search kept, and along an exact entry's of that depth). */
typedef struct {
    unsigned char a[GR_STATE_MAX];
    uint64_t seen[PV_MAX + 1];
    int nseen;
    int32_t *pv;
    int len, limit;
    int depth; /* the iteration's: depth - len plies are left below a */
    int proof; /* the iteration proved its value: every value known is a final margin */
    int known; /* v is the value of a */
    double v;
} pv_walk;

/* The next move of the line, checked: played and taken in when there is room, the game goes on, it is one of
 * the position's moves and it leads to no position of the line before. Returns 0 where the line must stop. */
static int pv_step(ctx *c, pv_walk *w, int move) {
    const gr_kernel *k = c->k;
    unsigned char b[GR_STATE_MAX];
    int moves[GR_MAX_MOVES];
    int seat = k->to_move(w->a);
    if (w->len >= w->limit || seat == 0) return 0;
    int n = k->moves(w->a, moves, 0);
    if (index_of(moves, n, move) < 0) return 0; /* a hash collision or a stale line: not this position's move */
    k->play(w->a, move, b);
    uint64_t h = k->hash(b);
    for (int i = 0; i < w->nseen; i++)
        if (w->seen[i] == h) return 0;
    w->seen[w->nseen++] = h;
    memcpy(w->a, b, (size_t)k->state_size);
    w->pv[w->len++] = move;
    if (k->to_move(b) != seat) w->v = -w->v;
    return 1;
}

/* Whether a child (left plies below it) is shown worth at least v for seat, the parent's: by its end, or the
 * table's entry of it at that depth (or proved); in a proof also by the kernel's bounds, or (ask_endgame) the
 * kernel's exact endgame asked with a null window (its nodes are not the search's). */
static int shown_best(ctx *c, const void *child, int left, int seat, double v, int proof, int ask_endgame) {
    const gr_kernel *k = c->k;
    int cs = k->to_move(child);
    if (cs == 0) return k->final_value(child, seat) >= v;
    double decided;
    tt_entry *e = tt_probe(c, table_key(c, child, &decided));
    if (e && (e->proved || (!proof && e->depth == left)) &&
        (cs == seat ? e->lo + decided : -(e->hi + decided)) >= v)
        return 1;
    if (!proof) return 0;
    if (k->bounds) {
        double lo, hi;
        k->bounds(child, -INFINITY, INFINITY, &lo, &hi);
        if ((cs == seat ? lo : -hi) >= v) return 1;
    }
    if (ask_endgame && k->endgame) {
        double found;
        uint64_t nodes = 0;
        if (cs == seat) return k->endgame(child, nextafter(v, -INFINITY), v, &found, &nodes) && found >= v;
        return k->endgame(child, -v, nextafter(-v, INFINITY), &found, &nodes) && -found >= v;
    }
    return 0;
}

/* A move of the walk's position whose child is shown worth at least the position's known value, which makes it
 * a best move: the only move, or one shown_best shows (the kernel's endgame asked last); -1 when none is. */
static int known_best(ctx *c, const pv_walk *w) {
    const gr_kernel *k = c->k;
    int seat = k->to_move(w->a), moves[GR_MAX_MOVES], n = k->moves(w->a, moves, 0);
    if (n == 1) return moves[0]; /* forced */
    int left = w->depth - w->len - 1;
    for (int ask = 0; ask < (w->proof && k->endgame ? 2 : 1); ask++)
        for (int i = 0; i < n; i++) {
            unsigned char child[GR_STATE_MAX];
            k->play(w->a, moves[i], child);
            if (shown_best(c, child, left, seat, w->v, w->proof, ask)) return moves[i];
        }
    return -1;
}

/* The best line of the last plies below pos, where the table keeps nothing (nodes of depth below TT_MIN_DEPTH
 * skip it, and an exact entry made of two bounds met at one value has no line of its own): a full-window
 * negamax of depth plies (at most TT_MIN_DEPTH - 1) by the search's rules, in the kernel's order. It neither
 * counts nodes nor touches the table, killers or history, so the search is the same with it or without. */
static double tail_line(const gr_kernel *k, const void *pos, int depth, double alpha, double beta, int32_t *line,
                        int *len) {
    int seat = k->to_move(pos), moves[GR_MAX_MOVES], n;
    *len = 0;
    if (depth <= 0 || (n = k->moves(pos, moves, 0)) == 0) return k->evaluate(pos, seat);
    double best = -INFINITY;
    for (int i = 0; i < n; i++) {
        unsigned char child[GR_STATE_MAX];
        int32_t below[TT_MIN_DEPTH];
        int below_len = 0, cs;
        double v;
        k->play(pos, moves[i], child);
        cs = k->to_move(child);
        if (cs == 0)
            v = k->final_value(child, seat);
        else if (cs == seat)
            v = tail_line(k, child, depth - 1, alpha, beta, below, &below_len);
        else
            v = -tail_line(k, child, depth - 1, -beta, -alpha, below, &below_len);
        if (v > best) {
            best = v;
            line[0] = moves[i];
            memcpy(line + 1, below, (size_t)below_len * sizeof(int32_t));
            *len = 1 + below_len;
            if (v > alpha) alpha = v;
            if (v >= beta) break;
        }
    }
    return best;
}
_Static_assert(TT_MIN_DEPTH <= 8, "tail_line searches the plies the table leaves out: a few");

/* A root move's line: the move first, then the line the search kept below it (kept, kept_len: starting with
 * first; the triangular line, which takes the paths of the table's exact answers), then the table's: an exact
 * entry's path or move, else a move the table's bounds (in a proof also the kernel's) show best for the value
 * known, else a bound's move; last, the plies the table leaves out (tail_line). Every move is checked to be one
 * of its position's moves before it goes in (pv_step). value: the move's for root_seat, at depth (exact:
 * proved). The Python twin is Tree.principal_variation. */
static int principal_variation(ctx *c, int first, const void *after, int limit, int32_t *pv, int root_seat,
                               double value, int depth, int exact, const int32_t *kept, int kept_len) {
    const gr_kernel *k = c->k;
    pv_walk w;
    w.pv = pv;
    w.len = 0;
    w.limit = limit;
    pv[w.len++] = first;
    memcpy(w.a, after, (size_t)k->state_size);
    w.nseen = 0;
    w.seen[w.nseen++] = k->hash(w.a);
    w.depth = depth;
    w.proof = exact;
    w.known = 1;
    w.v = k->to_move(w.a) == root_seat ? value : -value;
    if (kept_len > 0 && kept[0] == first)
        for (int i = 1; i < kept_len && pv_step(c, &w, kept[i]); i++) continue;
    while (k->to_move(w.a) != 0 && w.len < limit) {
        double decided;
        uint64_t key = table_key(c, w.a, &decided);
        tt_entry *e = tt_probe(c, key);
        if (e && w.proof && !e->proved) e = NULL; /* an earlier iteration's: not the proof's */
        if (e && e->flag == EXACT && e->move >= 0) {
            if (!e->proved && e->depth != w.depth - w.len) w.known = 0; /* another depth's value */
            const pv_path *p = path_of(c, key, e);
            int taken = 0;
            if (p && p->move[0] == e->move) /* the entry's own line */
                while (taken < p->len && pv_step(c, &w, p->move[taken])) taken++;
            else
                taken = pv_step(c, &w, e->move);
            if (!taken) break;
            continue;
        }
        if (w.known) {
            int m = known_best(c, &w);
            if (m >= 0 && pv_step(c, &w, m)) continue;
        }
        if (!e || e->flag == UPPER || e->move < 0) break;
        w.known = 0; /* a bound's move: the value below it is not known */
        if (!pv_step(c, &w, e->move)) break;
    }
    /* Short of the depth by no more than the plies the table leaves out: those plies, as the search found them. */
    int rest = limit - w.len;
    if (rest > 0 && rest < TT_MIN_DEPTH && k->to_move(w.a) != 0) {
        int32_t line[TT_MIN_DEPTH];
        int n = 0;
        tail_line(k, w.a, rest, -INFINITY, INFINITY, line, &n);
        for (int i = 0; i < n && pv_step(c, &w, line[i]); i++) continue;
    }
    return w.len;
}

static int solve_depth(const gr_kernel *k, const void *state, int max_depth) {
    int bound = k->plies_left(state);
    return max_depth > 0 && max_depth < bound ? max_depth : bound;
}

static void record(gr_result *out, int depth, int move, double value, int proved, uint64_t nodes, double began) {
    if (out->n_iter >= ITER_MAX) memmove(out->iter, out->iter + 1, (ITER_MAX - 1) * sizeof(gr_iteration));
    int i = out->n_iter < ITER_MAX ? out->n_iter++ : ITER_MAX - 1;
    gr_iteration *it = &out->iter[i];
    it->depth = depth;
    it->move = move;
    it->value = value;
    it->proved = proved;
    it->nodes = nodes;
    it->seconds = gr_now() - began;
}

/* Called with the result after each finished iteration, while the search runs (streamed analysis): out then
 * holds that iteration's answer (move, value, exact, depth, nodes, pv, alternatives, the iterations so far). */
typedef void (*gr_report)(const gr_result *out);
int gr_search_reporting(const char *game, const void *state, const gr_limits *lim, volatile int32_t *stop,
                        gr_result *out, gr_report report);

/* The search of the module comment from state for its seat to move; answers into out (0, or an error). */
int gr_search(const char *game, const void *state, const gr_limits *lim, volatile int32_t *stop, gr_result *out) {
    return gr_search_reporting(game, state, lim, stop, out, NULL);
}

/* gr_search, calling report (when not NULL) after each finished iteration. */
int gr_search_reporting(const char *game, const void *state, const gr_limits *lim, volatile int32_t *stop,
                        gr_result *out, gr_report report) {
    memset(out, 0, sizeof *out);
    const gr_kernel *k = gr_find(game);
    if (!k) return out->error = 1;
    int seat = k->to_move(state);
    if (seat == 0) return out->error = 2;
    int moves[GR_MAX_MOVES];
    int n = k->moves(state, moves, lim->solve);
    if (n <= 0) return out->error = 3;
    double began = gr_now();

    ctx *c = calloc(1, sizeof(ctx));
    root_child *root = malloc((size_t)n * sizeof(root_child));
    scored *scores = malloc((size_t)n * sizeof(scored));
    if (!c || !root || !scores) {
        free(c), free(root), free(scores);
        return out->error = 4;
    }
    c->k = k;
    c->max_nodes = lim->max_nodes;
    c->stop_at = lim->stop_at;
    c->end_at = lim->end_at;
    c->stop = stop;
    c->countdown = 1;
    c->solve = lim->solve;
    if (!lim->solve && lim->selective && lim->sel_stages > 0) {
        c->sel = lim->selective;
        c->sel_stages = lim->sel_stages;
    }
    if (lim->tt_entries) {
        uint64_t size = 2;
        while (size * 2 <= lim->tt_entries) size *= 2;
        c->tt_max = size;
        if (size > TT_FIRST) size = TT_FIRST;
        c->tt = tt_alloc(size);
        if (!c->tt) {
            free(c), free(root), free(scores);
            return out->error = 4;
        }
        c->tt_mask = size - 1;
    }
    for (int p = 0; p < MAX_PLY; p++) c->killers[p][0] = c->killers[p][1] = -1;
    for (int i = 0; i < n; i++) {
        root[i].move = moves[i];
        k->play(state, moves[i], root[i].state);
    }
    int top_n = lim->top_n < 1 ? 1 : lim->top_n;
    if (top_n > ALT_MAX) top_n = ALT_MAX;
    if (top_n > n) top_n = n;
    int max_depth = lim->max_depth > 0 ? lim->max_depth : 0;

    /* Before any iteration: the first move, valued by its child's evaluation. */
    int cs0 = k->to_move(root[0].state);
    double best_value = cs0 == 0 ? k->final_value(root[0].state, seat) : k->evaluate(root[0].state, seat);
    out->move = root[0].move;
    out->value = best_value;
    out->n_alt = 1;
    out->alt_move[0] = root[0].move;
    out->alt_value[0] = best_value;
    out->alt_exact[0] = cs0 == 0;
    out->pv[0] = out->alt_pv[0][0] = root[0].move;
    out->pv_len = out->alt_pv_len[0] = 1;

    int depth = 0, completed = 0, exact = 0, reason = R_NONE;
    int leap = lim->solve ? solve_depth(k, state, max_depth) : 0;
    double iteration_began = began;
    volatile int attempt = 0; /* iterations begun, kept across the longjmp */
    while (1) {
        depth++;
        if (lim->solve && lim->solve_lead < depth && depth < leap) depth = leap;
        if (max_depth && depth > max_depth) {
            reason = R_DEPTH;
            break;
        }
        if (stop && *stop) { /* raised meanwhile (by a report, say): no new iteration */
            reason = R_CANCELLED;
            break;
        }
        if (lim->stop_at > 0 && depth > 1) {
            /* An iteration takes longer than the one before it: when that cannot fit, stop now, once the share
             * of the time to be spent is (a partial iteration answers nothing, but the time is the caller's). */
            double now = gr_now();
            if (now - iteration_began > lim->stop_at - now && now >= lim->spend_at) {
                reason = R_TIME;
                break;
            }
            iteration_began = now;
        }
        attempt++;
        c->proving = lim->solve && depth == leap && leap == k->plies_left(state);
        int proved = 0, count = 1;
        if (setjmp(c->unwind)) {
            reason = c->reason;
            break;
        }
        if (top_n == 1 && lim->solve && depth == leap && depth > 1) {
            /* The proof: MTD(f), null windows closing in on the value from the last guess. With every value
             * proved, a null window lets the game's bounds and the table's bounds cut far more than one wide
             * window does. */
            double lower = -INFINITY, upper = INFINITY, g = best_value, value = best_value;
            int best_i = 0;
            while (lower < upper) {
                double beta = g == lower ? nextafter(g, INFINITY) : g;
                int i;
                g = root_single(c, root, n, seat, depth, nextafter(beta, -INFINITY), beta, &i, &proved);
                if (g < beta) {
                    upper = g;
                } else {
                    lower = g;
                    best_i = i;
                    if (i) { /* the move that reached the bound goes first next time */
                        root_child tmp = root[i];
                        memmove(root + 1, root, (size_t)i * sizeof(root_child));
                        root[0] = tmp;
                        best_i = 0;
                    }
                }
                value = g;
            }
            scores[0].value = value;
            scores[0].index = best_i;
            scores[0].proved = proved;
        } else if (top_n == 1) {
            double delta = lim->aspiration, alpha = -INFINITY, beta = INFINITY, value;
            int best_i;
            if (depth >= ASPIRATION_FROM && lim->aspiration > 0 && isfinite(best_value)) {
                alpha = best_value - delta;
                beta = best_value + delta;
            }
            while (1) {
                value = root_single(c, root, n, seat, depth, alpha, beta, &best_i, &proved);
                if (value <= alpha) {
                    delta *= 2;
                    alpha = delta > 64 * lim->aspiration ? -INFINITY : value - delta;
                } else if (value >= beta) {
                    delta *= 2;
                    beta = delta > 64 * lim->aspiration ? INFINITY : value + delta;
                    if (best_i) { /* the move that failed high goes first next time */
                        root_child tmp = root[best_i];
                        memmove(root + 1, root, (size_t)best_i * sizeof(root_child));
                        root[0] = tmp;
                    }
                } else {
                    break;
                }
            }
            scores[0].value = value;
            scores[0].index = best_i;
            scores[0].proved = proved;
        } else {
            count = root_multi(c, root, n, seat, depth, top_n, scores, &proved);
        }
        best_value = scores[0].value;
        exact = proved;
        root_child *best = &root[scores[0].index];
        out->move = best->move;
        out->value = best_value;
        out->pv_len = principal_variation(c, best->move, best->state, exact ? PV_MAX : depth, out->pv, seat,
                                          best_value, depth, exact, c->line[0], c->line_len[0]);
        /* The sentinel's leap (a kernel without a bound) proved it: the depth is the proved line's plies, as
         * alphabeta.py answers. */
        completed = exact && lim->solve && depth == leap && leap == GR_NO_BOUND && out->pv_len < depth
                        ? out->pv_len
                        : depth;
        out->n_alt = count;
        for (int i = 0; i < count; i++) {
            root_child *r = &root[scores[i].index];
            out->alt_move[i] = r->move;
            out->alt_value[i] = scores[i].value;
            out->alt_exact[i] = scores[i].proved;
            if (i == 0) {
                memcpy(out->alt_pv[0], out->pv, (size_t)out->pv_len * sizeof(int32_t));
                out->alt_pv_len[0] = out->pv_len;
            } else {
                out->alt_pv_len[i] = principal_variation(c, r->move, r->state, scores[i].proved ? ALT_PV_MAX : depth,
                                                         out->alt_pv[i], seat, scores[i].value, depth,
                                                         scores[i].proved, scores[i].line, scores[i].line_len);
            }
        }
        record(out, completed, best->move, best_value, proved, c->nodes, began);
        if (report) {
            out->exact = exact;
            out->depth = completed;
            out->nodes = c->nodes;
            report(out);
        }
        /* The next iteration starts with this one's best moves, in their order. */
        for (int i = 0; i < count; i++) {
            int at = scores[i].index;
            root_child tmp = root[at];
            memmove(root + i + 1, root + i, (size_t)(at - i) * sizeof(root_child));
            root[i] = tmp;
            for (int j = i + 1; j < count; j++)
                if (scores[j].index < at && scores[j].index >= i) scores[j].index++;
        }
        if (exact) {
            reason = R_SOLVED;
            break;
        }
    }
    (void)attempt;
    out->exact = exact;
    out->depth = completed;
    out->nodes = c->nodes;
    out->stop_reason = reason;
    if (c->tt) tt_free(c->tt, c->tt_mask + 1);
    free(c);
    free(root);
    free(scores);
    return 0;
}

/* --- the kernel's functions one by one, for the binding and the twin tests --------------------------- */

int gr_state_size(const char *game) {
    const gr_kernel *k = gr_find(game);
    return k ? k->state_size : -1;
}

int gr_to_move(const char *game, const void *state) { return gr_find(game)->to_move(state); }

int gr_moves(const char *game, const void *state, int32_t *out, int solving) {
    return gr_find(game)->moves(state, out, solving);
}

void gr_play(const char *game, const void *state, int move, void *out) { gr_find(game)->play(state, move, out); }

uint64_t gr_hash(const char *game, const void *state) { return gr_find(game)->hash(state); }

double gr_evaluate(const char *game, const void *state, int seat) { return gr_find(game)->evaluate(state, seat); }

double gr_final_value(const char *game, const void *state, int seat) {
    return gr_find(game)->final_value(state, seat);
}

int gr_plies_left(const char *game, const void *state) { return gr_find(game)->plies_left(state); }
