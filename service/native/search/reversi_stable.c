/* Reversi's stable discs on 8x8 (reversi.c's proofs cut with them): discs no sequence of moves can turn.
 *
 * A lower bound on the stable discs, computed as Edax does: an edge's stable discs from a table of every
 * content of an 8-square line (a disc the line's own plays never turn; nothing else can turn a disc on the edge),
 * then, from those, the discs that in each of the four directions lie on a full line or next to a stable disc of
 * their own colour, until no more are found. A stable disc stays its owner's to the end of the game, so the final
 * margin of the seat to move is at most 64 less twice the other seat's stable discs (empty squares count for
 * nobody). tests/native/test_reversi_stable.py plays random games on from random positions: no disc this marks
 * ever turns.
 */
#include <stdint.h>

#include "reversi_stable.h"

static uint8_t EDGE[256 * 256]; /* [mine * 256 + theirs]: the squares of the line whose discs are stable */
static uint8_t EDGE_DONE[256 * 256];
static uint64_t LINES[4][16]; /* rows, columns, the a1-h8 and the h1-a8 diagonals (at most 15 each) */
static int N_LINES[4];

/* The discs of o a disc of p placed on square x of a line turns (along the line). */
static uint8_t line_flips(unsigned p, unsigned o, int x) {
    unsigned turned = 0, run = 0;
    int i = x + 1;
    while (i < 8 && (o >> i & 1)) run |= 1u << i++;
    if (i < 8 && (p >> i & 1)) turned |= run;
    run = 0;
    i = x - 1;
    while (i >= 0 && (o >> i & 1)) run |= 1u << i--;
    if (i >= 0 && (p >> i & 1)) turned |= run;
    return (uint8_t)turned;
}

/* The stable squares of a line with discs p and o: those no play on its empty squares, by either colour and in
 * any order, ever turns (a disc placed may turn nothing on the line: it may turn discs the other ways). */
static uint8_t edge_stable(unsigned p, unsigned o) {
    unsigned at = p * 256 + o;
    if (EDGE_DONE[at]) return EDGE[at];
    unsigned stable = p | o, empty = ~(p | o) & 0xff;
    for (int x = 0; x < 8; x++) {
        if (!(empty >> x & 1)) continue;
        unsigned bit = 1u << x, f = line_flips(p, o, x);
        stable &= ~f & edge_stable(p | bit | f, o & ~f);
        f = line_flips(o, p, x);
        stable &= ~f & edge_stable(p & ~f, o | bit | f);
    }
    EDGE_DONE[at] = 1;
    EDGE[at] = (uint8_t)stable;
    return (uint8_t)stable;
}

__attribute__((constructor)) static void init_stable(void) {
    for (unsigned p = 0; p < 256; p++)
        for (unsigned o = 0; o < 256; o++)
            if (!(p & o)) edge_stable(p, o);
    for (int r = 0; r < 8; r++) LINES[0][r] = 0xffULL << (8 * r);
    for (int c = 0; c < 8; c++) LINES[1][c] = 0x0101010101010101ULL << c;
    for (int d = -7; d <= 7; d++) { /* col - row = d, then col + row = d + 7 */
        uint64_t down = 0, up = 0;
        for (int r = 0; r < 8; r++) {
            int c = r + d, c2 = d + 7 - r;
            if (c >= 0 && c < 8) down |= 1ULL << (r * 8 + c);
            if (c2 >= 0 && c2 < 8) up |= 1ULL << (r * 8 + c2);
        }
        LINES[2][d + 7] = down;
        LINES[3][d + 7] = up;
    }
    N_LINES[0] = N_LINES[1] = 8;
    N_LINES[2] = N_LINES[3] = 15;
}

static inline uint64_t full(int kind, uint64_t discs) {
    uint64_t out = 0;
    for (int i = 0; i < N_LINES[kind]; i++)
        if ((discs & LINES[kind][i]) == LINES[kind][i]) out |= LINES[kind][i];
    return out;
}

/* Column c (0: a, 7: h) as a line byte, row r at bit r; and back. */
static inline unsigned column(uint64_t x, int c) {
    return (unsigned)((((x >> c) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
}

static inline uint64_t unpack_column(unsigned line, int c) {
    uint64_t out = 0;
    for (int r = 0; r < 8; r++)
        if (line >> r & 1) out |= 1ULL << (r * 8 + c);
    return out;
}

uint64_t gr_reversi_stable(uint64_t me, uint64_t opp) {
    uint64_t stable = (uint64_t)EDGE[(me & 0xff) * 256 + (opp & 0xff)];
    stable |= (uint64_t)EDGE[(me >> 56) * 256 + (opp >> 56)] << 56;
    unsigned a = EDGE[column(me, 0) * 256 + column(opp, 0)], h = EDGE[column(me, 7) * 256 + column(opp, 7)];
    if (a) stable |= unpack_column(a, 0);
    if (h) stable |= unpack_column(h, 7);
    stable &= me;
    uint64_t discs = me | opp, central = me & 0x007e7e7e7e7e7e00ULL;
    uint64_t fh = full(0, discs), fv = full(1, discs), f9 = full(2, discs), f7 = full(3, discs);
    stable |= central & fh & fv & f9 & f7;
    if (!stable) return 0;
    uint64_t old;
    do {
        old = stable;
        uint64_t h_ok = (stable >> 1) | (stable << 1) | fh;
        uint64_t v_ok = (stable >> 8) | (stable << 8) | fv;
        uint64_t d9_ok = (stable >> 9) | (stable << 9) | f9;
        uint64_t d7_ok = (stable >> 7) | (stable << 7) | f7;
        stable |= h_ok & v_ok & d9_ok & d7_ok & central;
    } while (stable != old);
    return stable;
}
