/* Reversi's kernel for the native search core (kernel.h): the rules of service/engines/reversi on one
 * 64-bit bitboard per colour, so boards of side 4, 6 and 8 (larger boards stay on the Python search).
 *
 * Square row * size + col is bit row * size + col, as in the Python engine. play makes forced passes itself
 * (the mover moves again when the other seat has no placement), so a seat may move twice in a row. The
 * evaluation is the engine's _estimate, operation for operation, so both give the same doubles. The move
 * PASS_MOVE stands for the engine's PASS (-1). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "reversi_patterns.h"
#include "reversi_stable.h"

#define PASS_MOVE 64
/* From this many empty squares on, a solve-mode node is answered by solve_small (no table, int values). */
#define ENDGAME_EMPTIES 8
#define LAST_EMPTIES 4
/* From this many empty squares on, a proof with the learned evaluation also orders moves by it (rv_moves):
 * nearer the end a node's subtree is too small to repay the pattern sums. */
#define ORDER_BY_LEARNED 12

typedef struct {
    uint64_t black;
    uint64_t white;
    int32_t to_move;
    int32_t black_seat;
    int32_t size;
    int32_t learned; /* non-zero: evaluate with the learned patterns (8x8; reversi_patterns.c) */
} rv_state;

typedef struct {
    int n;
    uint64_t full;
    int shifts[4];
    uint64_t masks[4];
    int nshift[8];
    uint64_t nsrc[8];
    uint64_t corners;
    uint64_t x_corner[4], x_sq[4], c_sq[4];
    uint64_t order[5];
} geometry;

static geometry GEO[9]; /* by size: 4, 6, 8 */

static void init_geometry(int size) {
    geometry *g = &GEO[size];
    int n = size * size;
    g->n = n;
    g->full = n == 64 ? ~0ULL : (1ULL << n) - 1;
    uint64_t inner = 0, not_last = 0, not_first = 0;
    for (int i = 0; i < n; i++) {
        int c = i % size;
        if (c > 0 && c < size - 1) inner |= 1ULL << i;
        if (c != size - 1) not_last |= 1ULL << i;
        if (c != 0) not_first |= 1ULL << i;
    }
    int sh[4] = {1, size, size - 1, size + 1};
    uint64_t mk[4] = {inner, g->full, inner, inner};
    for (int d = 0; d < 4; d++) g->shifts[d] = sh[d], g->masks[d] = mk[d];
    int ns[8] = {1, -1, size, -size, size + 1, -(size + 1), size - 1, -(size - 1)};
    uint64_t src[8] = {not_last, not_first, g->full, g->full, not_last, not_first, not_first, not_last};
    for (int d = 0; d < 8; d++) g->nshift[d] = ns[d], g->nsrc[d] = src[d];
    int last = size - 1;
    int cr[4][2] = {{0, 0}, {0, last}, {last, 0}, {last, last}};
    uint64_t x_all = 0, c_all = 0, edges = 0;
    g->corners = 0;
    for (int i = 0; i < 4; i++) {
        int r = cr[i][0], c = cr[i][1];
        int dr = r == 0 ? 1 : -1, dc = c == 0 ? 1 : -1;
        g->x_corner[i] = 1ULL << (r * size + c);
        g->corners |= g->x_corner[i];
        g->x_sq[i] = 1ULL << ((r + dr) * size + c + dc);
        g->c_sq[i] = (1ULL << ((r + dr) * size + c)) | (1ULL << (r * size + c + dc));
        x_all |= g->x_sq[i];
        c_all |= g->c_sq[i];
    }
    for (int i = 0; i < n; i++) {
        int r = i / size, c = i % size;
        if (r == 0 || r == last || c == 0 || c == last) edges |= 1ULL << i;
    }
    edges &= ~(g->corners | c_all);
    uint64_t interior = g->full & ~(g->corners | c_all | x_all | edges);
    g->order[0] = g->corners;
    g->order[1] = edges;
    g->order[2] = interior;
    g->order[3] = c_all;
    g->order[4] = x_all;
}

__attribute__((constructor)) static void init_all(void) {
    init_geometry(4);
    init_geometry(6);
    init_geometry(8);
}

/* Bits set, by halves (portable: no popcnt instruction is assumed, and the library call costs more). */
static inline int popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* The squares a run of o's discs reaches from me's discs one way, by doubling (parallel prefix): runs of up
 * to six discs, the longest a side of 8 allows, in three steps without a branch. */
static inline uint64_t run_left(uint64_t me, uint64_t o, int s) {
    uint64_t t = o & (me << s), pre = o & (o << s);
    t |= o & (t << s);
    t |= pre & (t << 2 * s);
    t |= pre & (t << 2 * s);
    return t;
}

static inline uint64_t run_right(uint64_t me, uint64_t o, int s) {
    uint64_t t = o & (me >> s), pre = o & (o >> s);
    t |= o & (t >> s);
    t |= pre & (t >> 2 * s);
    t |= pre & (t >> 2 * s);
    return t;
}

/* The 8x8 board with its shifts known to the compiler (the board the service plays most). */
#define INNER8 0x7e7e7e7e7e7e7e7eULL
static inline uint64_t placements8(uint64_t me, uint64_t opp) {
    uint64_t o = opp & INNER8;
    uint64_t moves = run_left(me, o, 1) << 1 | run_right(me, o, 1) >> 1;
    moves |= run_left(me, opp, 8) << 8 | run_right(me, opp, 8) >> 8;
    moves |= run_left(me, o, 7) << 7 | run_right(me, o, 7) >> 7;
    moves |= run_left(me, o, 9) << 9 | run_right(me, o, 9) >> 9;
    return moves & ~(me | opp);
}

static uint64_t placements(uint64_t me, uint64_t opp, const geometry *g) {
    if (g->n == 64) return placements8(me, opp);
    uint64_t moves = 0;
    for (int d = 0; d < 4; d++) {
        int s = g->shifts[d];
        uint64_t o = opp & g->masks[d];
        moves |= run_left(me, o, s) << s | run_right(me, o, s) >> s;
    }
    return moves & g->full & ~(me | opp);
}

/* The discs a placement on bit turns: each way, the run of opp's discs from bit that me's disc closes. */
#define CLOSED_LEFT(t, s) (((t) << (s) | bit << (s)) & me ? (t) : 0)
#define CLOSED_RIGHT(t, s) (((t) >> (s) | bit >> (s)) & me ? (t) : 0)
static inline uint64_t flips8(uint64_t me, uint64_t opp, uint64_t bit) {
    uint64_t o = opp & INNER8, t, out;
    t = run_left(bit, o, 1), out = CLOSED_LEFT(t, 1);
    t = run_right(bit, o, 1), out |= CLOSED_RIGHT(t, 1);
    t = run_left(bit, opp, 8), out |= CLOSED_LEFT(t, 8);
    t = run_right(bit, opp, 8), out |= CLOSED_RIGHT(t, 8);
    t = run_left(bit, o, 7), out |= CLOSED_LEFT(t, 7);
    t = run_right(bit, o, 7), out |= CLOSED_RIGHT(t, 7);
    t = run_left(bit, o, 9), out |= CLOSED_LEFT(t, 9);
    t = run_right(bit, o, 9), out |= CLOSED_RIGHT(t, 9);
    return out;
}

static uint64_t flips(uint64_t me, uint64_t opp, uint64_t bit, const geometry *g) {
    if (g->n == 64) return flips8(me, opp, bit);
    uint64_t out = 0;
    for (int d = 0; d < 4; d++) {
        int s = g->shifts[d];
        uint64_t o = opp & g->masks[d], t = run_left(bit, o, s);
        if ((t << s | bit << s) & me) out |= t;
        t = run_right(bit, o, s);
        if ((t >> s | bit >> s) & me) out |= t;
    }
    return out;
}

static uint64_t neighbours(uint64_t discs, const geometry *g) {
    if (g->n == 64) {
        uint64_t a = discs & 0x7f7f7f7f7f7f7f7fULL, b = discs & 0xfefefefefefefefeULL; /* not on h, not on a */
        return a << 1 | b >> 1 | discs << 8 | discs >> 8 | a << 9 | b >> 9 | b << 7 | a >> 7;
    }
    uint64_t out = 0;
    for (int d = 0; d < 8; d++) {
        int s = g->nshift[d];
        out |= s > 0 ? (discs & g->nsrc[d]) << s : (discs & g->nsrc[d]) >> -s;
    }
    return out & g->full;
}

static inline void sides(const rv_state *p, uint64_t *me, uint64_t *opp) {
    if (p->to_move == 0 || p->to_move == p->black_seat) {
        *me = p->black;
        *opp = p->white;
    } else {
        *me = p->white;
        *opp = p->black;
    }
}

static int rv_to_move(const void *s) { return ((const rv_state *)s)->to_move; }

static int squares(uint64_t bits, int *out) {
    int n = 0;
    while (bits) {
        out[n++] = __builtin_ctzll(bits);
        bits &= bits - 1;
    }
    return n;
}

static double estimate(uint64_t me, uint64_t opp, uint64_t my_moves, const geometry *g);

static int rv_moves(const void *s, int *out, int solving) {
    const rv_state *p = s;
    if (p->to_move == 0) return 0;
    const geometry *g = &GEO[p->size];
    uint64_t me, opp;
    sides(p, &me, &opp);
    uint64_t moves = placements(me, opp, g);
    if (!moves) {
        out[0] = PASS_MOVE;
        return 1;
    }
    int n = 0;
    for (int k = 0; k < 5; k++) n += squares(moves & g->order[k], out + n);
    if (solving && n > 1) {
        /* Fewest replies first, a reply on a corner counting double and a corner of our own a little
         * better (fewer nodes than replies alone on the FFO proofs), plus the empty
         * squares next to our discs (the other seat's potential replies), at a quarter of a reply. Far from the
         * end, with the learned evaluation, its value of the reply position weighs in too (the hand-written one
         * misjudges too often to help). ``python -m bench.solve --games reversi --empties 18 20 22 --positions
         * 10 --no-baseline`` measures it against replies and corners alone. */
        int key[64], learned = p->learned && p->size == 8 && popcount(g->full & ~(me | opp)) >= ORDER_BY_LEARNED;
        for (int i = 0; i < n; i++) {
            uint64_t bit = 1ULL << out[i], f = flips(me, opp, bit, g), mine = me | bit | f, theirs = opp ^ f;
            uint64_t r = placements(theirs, mine, g), empty = g->full & ~(mine | theirs);
            key[i] = popcount(r) * 4 + popcount(r & g->corners) * 4 - ((bit & g->corners) ? 2 : 0) +
                     popcount(neighbours(mine, g) & empty);
            if (learned) key[i] = key[i] * 2 + (int)gr_reversi_learned(theirs, mine, estimate(theirs, mine, r, g));
        }
        for (int i = 1; i < n; i++) {
            int m = out[i], kv = key[i], j = i - 1;
            while (j >= 0 && key[j] > kv) {
                out[j + 1] = out[j];
                key[j + 1] = key[j];
                j--;
            }
            out[j + 1] = m;
            key[j + 1] = kv;
        }
    }
    return n;
}

static void rv_play(const void *s, int move, void *o) {
    const rv_state *p = s;
    rv_state *q = o;
    *q = *p;
    int seat = p->to_move;
    if (move == PASS_MOVE) {
        q->to_move = 3 - seat;
        return;
    }
    const geometry *g = &GEO[p->size];
    uint64_t me, opp;
    sides(p, &me, &opp);
    uint64_t bit = 1ULL << move, f = flips(me, opp, bit, g);
    me |= bit | f;
    opp ^= f;
    if (seat == p->black_seat) {
        q->black = me;
        q->white = opp;
    } else {
        q->black = opp;
        q->white = me;
    }
    if (placements(opp, me, g))
        q->to_move = 3 - seat;
    else if (placements(me, opp, g))
        q->to_move = seat; /* the other seat passes and the mover goes on */
    else
        q->to_move = 0;
}

static inline uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t rv_hash(const void *s) {
    const rv_state *p = s;
    return mix(p->black ^ mix(p->white + 0x9e3779b97f4a7c15ULL * (uint64_t)(p->to_move * 4 + p->black_seat)));
}

static double rv_final_value(const void *s, int seat) {
    const rv_state *p = s;
    int black = popcount(p->black), white = popcount(p->white);
    int mine = seat == p->black_seat ? black : white;
    int theirs = seat == p->black_seat ? white : black;
    return (double)(mine - theirs);
}

/* The engine's _estimate: heuristic final disc margin for the owner of me. */
static double estimate(uint64_t me, uint64_t opp, uint64_t my_moves, const geometry *g) {
    uint64_t empty = g->full & ~(me | opp);
    int empties = popcount(empty);
    int their_moves = popcount(placements(opp, me, g));
    int mobility = popcount(my_moves) - their_moves;
    int frontier = popcount(neighbours(opp, g) & empty) - popcount(neighbours(me, g) & empty);
    int corners = popcount(me & g->corners) - popcount(opp & g->corners);
    int x_squares = 0, c_squares = 0;
    for (int i = 0; i < 4; i++) {
        if (empty & g->x_corner[i]) {
            x_squares += (int)((me & g->x_sq[i]) != 0) - (int)((opp & g->x_sq[i]) != 0);
            c_squares += popcount(me & g->c_sq[i]) - popcount(opp & g->c_sq[i]);
        }
    }
    double late = 1.0 - 2.0 * empties / g->n;
    if (late < 0.0) late = 0.0;
    int discs = popcount(me) - popcount(opp);
    double value = 20.0 * corners - 10.0 * x_squares - 3.0 * c_squares + 2.0 * mobility + 0.75 * frontier +
                   late * discs;
    double bound = (double)(g->n - 1);
    return value > bound ? bound : value < -bound ? -bound : value;
}

static double rv_evaluate(const void *s, int seat) {
    const rv_state *p = s;
    if (p->to_move == 0) return rv_final_value(s, seat);
    const geometry *g = &GEO[p->size];
    uint64_t me, opp;
    sides(p, &me, &opp);
    double v = estimate(me, opp, placements(me, opp, g), g);
    if (p->learned && p->size == 8) v = gr_reversi_learned(me, opp, v);
    return seat == p->to_move ? v : -v;
}

static int rv_plies_left(const void *s) {
    const rv_state *p = s;
    if (!p->to_move) return 0;
    return GEO[p->size].n - popcount(p->black | p->white) + 1;
}

/* --- the exact solver of the last empty squares (the engine's _endgame and _last) --------------------- */

/* The 8x8 board's quadrants: in the last plies the empty squares of a quadrant with an odd count of them go
 * first (parity: the seat that fills a region last gains). parity's bit q is set while quadrant q has an odd
 * count; a move flips its quadrant's bit, so the count is taken once, where the last plies begin. */
static const uint64_t QUADRANT[4] = {0x000000000f0f0f0fULL, 0x00000000f0f0f0f0ULL, 0x0f0f0f0f00000000ULL,
                                     0xf0f0f0f000000000ULL};
static uint64_t ODD[16]; /* the squares of the quadrants of each parity */

__attribute__((constructor)) static void init_parity(void) {
    for (int parity = 0; parity < 16; parity++)
        for (int q = 0; q < 4; q++)
            if (parity >> q & 1) ODD[parity] |= QUADRANT[q];
}

static inline int quadrant_bit(uint64_t bit) {
    int square = __builtin_ctzll(bit);
    return 1 << (((square >> 2) & 1) | ((square >> 4) & 2));
}

static int parity_of(uint64_t empty, const geometry *g) {
    int parity = 0;
    if (g->n != 64) return 0;
    for (int q = 0; q < 4; q++)
        if (popcount(empty & QUADRANT[q]) & 1) parity |= 1 << q;
    return parity;
}

static int last(uint64_t me, uint64_t opp, uint64_t empty, int parity, int alpha, int beta, int passed,
                const geometry *g, uint64_t *nodes) {
    ++*nodes;
    int best = -g->n - 1;
    uint64_t first = empty & ODD[parity], order[2] = {first, empty & ~first};
    for (int i = 0; i < 2; i++) {
        for (uint64_t rest = order[i]; rest;) {
            uint64_t bit = rest & -rest;
            rest ^= bit;
            uint64_t f = flips(me, opp, bit, g);
            if (!f) continue;
            int v = -last(opp ^ f, me | bit | f, empty ^ bit, parity ^ quadrant_bit(bit), -beta, -alpha, 0, g, nodes);
            if (v > best) {
                best = v;
                if (v > alpha) {
                    if (v >= beta) return v;
                    alpha = v;
                }
            }
        }
    }
    if (best > -g->n - 1) return best;
    if (passed || !empty) return popcount(me) - popcount(opp);
    return -last(opp, me, empty, parity, -beta, -alpha, 1, g, nodes);
}

/* The least alpha, by empty squares, from which a proof's node asks the other seat's stable discs whether they
 * already hold it below alpha (Edax's thresholds: below them the count seldom cuts, and costs more than it
 * saves). */
static const int STABILITY_FROM[65] = {99, 99, 99, 99, 6,  8,  10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32,
                                       34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50, 52, 52, 54, 54, 56, 56,
                                       58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
                                       64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64};

static int small(uint64_t me, uint64_t opp, uint64_t moves, int alpha, int beta, const geometry *g,
                 uint64_t *nodes) {
    uint64_t empty = g->full & ~(me | opp);
    int empties = popcount(empty);
    if (empties <= LAST_EMPTIES) return last(me, opp, empty, parity_of(empty, g), alpha, beta, 0, g, nodes);
    ++*nodes;
    if (g->n == 64 && alpha >= STABILITY_FROM[empties]) {
        int hi = 64 - 2 * popcount(gr_reversi_stable(opp, me));
        if (hi <= alpha) return hi;
    }
    if (!moves) {
        uint64_t replies = placements(opp, me, g);
        if (!replies) return popcount(me) - popcount(opp);
        return -small(opp, me, replies, -beta, -alpha, g, nodes);
    }
    if (empties == LAST_EMPTIES + 1) /* the children are the last plies': by parity, no replies to count */
        return last(me, opp, empty, parity_of(empty, g), alpha, beta, 0, g, nodes);
    uint64_t mine[32], theirs[32], rep[32], odd = ODD[parity_of(empty, g)];
    int key[32], n = 0;
    while (moves) {
        uint64_t bit = moves & -moves;
        moves ^= bit;
        uint64_t f = flips(me, opp, bit, g);
        uint64_t a = me | bit | f, b = opp ^ f, r = placements(b, a, g);
        int kv = popcount(r) * 2 + !(bit & odd), j = n++; /* fewest replies first, an odd region's first among equals */
        while (j > 0 && key[j - 1] > kv) {
            mine[j] = mine[j - 1], theirs[j] = theirs[j - 1], rep[j] = rep[j - 1], key[j] = key[j - 1];
            j--;
        }
        mine[j] = a, theirs[j] = b, rep[j] = r, key[j] = kv;
    }
    int best = -g->n - 1;
    for (int i = 0; i < n; i++) {
        int v = -small(theirs[i], mine[i], rep[i], -beta, -alpha, g, nodes);
        if (v > best) {
            best = v;
            if (v > alpha) {
                if (v >= beta) return v;
                alpha = v;
            }
        }
    }
    return best;
}

static int rv_endgame(const void *s, double alpha, double beta, double *value, uint64_t *nodes) {
    const rv_state *p = s;
    const geometry *g = &GEO[p->size];
    if (g->n - popcount(p->black | p->white) > ENDGAME_EMPTIES) return 0;
    uint64_t me, opp;
    sides(p, &me, &opp);
    double lo_d = floor(alpha), hi_d = ceil(beta); /* the engine's integer window around (alpha, beta) */
    int lo = lo_d > -g->n - 1 ? (int)lo_d : -g->n - 1;
    int hi = hi_d < g->n + 1 ? (int)hi_d : g->n + 1;
    *value = (double)small(me, opp, placements(me, opp, g), lo, hi, g, nodes);
    return 1;
}

/* A proof's bounds on 8x8: the margin of the seat to move is at most 64 less twice the other seat's stable discs
 * (reversi_stable.c), asked only from an alpha where it may hold the node below it (STABILITY_FROM); the lower
 * bound is left at -64 (the other seat's cut-offs come from its own nodes). */
static void rv_bounds(const void *s, double alpha, double beta, double *lo, double *hi) {
    const rv_state *p = s;
    const geometry *g = &GEO[p->size];
    (void)beta;
    *lo = -(double)g->n;
    *hi = (double)g->n;
    if (p->size != 8 || p->to_move == 0) return;
    int empties = g->n - popcount(p->black | p->white);
    if (alpha < STABILITY_FROM[empties]) return;
    uint64_t me, opp;
    sides(p, &me, &opp);
    *hi = (double)(g->n - 2 * popcount(gr_reversi_stable(opp, me)));
}

const gr_kernel gr_reversi_kernel = {
    "reversi", sizeof(rv_state), rv_to_move, rv_moves, rv_play, rv_hash, rv_evaluate, rv_final_value,
    rv_plies_left, rv_endgame, 1, rv_bounds,
};
