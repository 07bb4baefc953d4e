/* Exact endgame solver for 8x8 Reversi: the native twin of ``service/levels/reversi_endgame.py``.
 *
 * The rules are docs/games/reversi.md; the pure-Python ``_endgame``/``_last`` in reversi_endgame.py are the
 * reference this file is tested against (tests/games/test_reversi_endgame.py) and the fallback when it is not
 * built. The Makefile compiles it into service/gen/ with ``cc -O2 -shared -fPIC``; reversi_endgame.py loads it
 * with ctypes.
 *
 * Boards are bitboards of the 8x8 board as the engine (service/engines/reversi/bitboards.py) numbers squares: bit ``row * 8 + col``, a1 = bit 0,
 * b1 = bit 1, a2 = bit 8. ``me`` holds the discs of the seat to move, ``opp`` the other seat's.
 *
 * The value is the final disc margin for the seat to move with both sides perfect, empty squares counted for
 * nobody (``docs/games/reversi.md``): a seat with no placement passes, the game ends when
 * neither seat has one. Fail-soft negamax alpha-beta within (alpha, beta): a value <= alpha is an upper
 * bound, >= beta a lower bound, anything between is exact.
 *
 * Techniques: fastest-first move ordering (fewest opponent replies, then fewest potential replies; the
 * transposition table's move first), principal-variation null windows and a transposition table while many
 * squares are empty, and a stability bound (the opponent's stable discs are lost to us) when alpha is high;
 * from SMALL_EMPTIES down no move generation, each empty square next to an opponent disc tried, squares in
 * quadrants with an odd number of empties first (parity); the last empty square counted directly. Portable C99
 * and POSIX (the monotonic clock), no library, reentrant (no global state: ctypes releases the GIL, so several
 * threads may solve at once).
 *
 * A solve gives up at a time given on the monotonic clock (Python's ``time.monotonic()`` on Linux reads the
 * same clock), so that a best move answers before its caller's deadline: the search sees its deadline only
 * between calls, and a call on 16 empties can take a tenth of a second.
 */

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Thresholds and weights, chosen by measurement (nodes and CPU time on random 16- and 18-empty positions and
 * FFO #40, see tests/games/test_reversi_endgame.py). */
#define SMALL_EMPTIES 6   /* at and below this many empties: no move generation, parity order */
#define PVS_EMPTIES 10    /* at and above this many empties: null windows after the first move */
#define TABLE_EMPTIES 10  /* positions with at least this many empties go in the transposition table */
#define TABLE_BITS 18     /* its size: 2^18 entries of 24 bytes, 6 MB, allocated per call from 12 empties */
#define STABILITY_FROM 8  /* the stability bound is tried when alpha is at least this (it rarely cuts below) */
#define KEY_REPLIES 16    /* order key: an opponent reply weighs this much, a potential reply (an empty square
                             next to our discs) 1; replies on corners count twice, our own corner one fewer */
#define NO_VALUE (-65)    /* below every margin: -64 is a wipe-out */
#define MAX_MOVES 33      /* no 8x8 position has more placements */
#define CLOCK_EVERY 4095  /* the clock is read when the node count has none of these bits set */
#define GAVE_UP 1000      /* what gr_reversi_solve returns when it stopped at ``stop_at`` */

/* A transposition table entry: the position, the bounds proved on its value, the best move's square. */
typedef struct {
    uint64_t p, o;
    int8_t lower, upper;
    int8_t move; /* -1: none */
} Entry;

typedef struct {
    uint64_t nodes;
    Entry *table;   /* NULL: no table (a small solve, or no memory) */
    double stop_at; /* seconds on the monotonic clock; 0: never */
    int gave_up;    /* the clock passed stop_at: every value from then on is meaningless */
} Search;

static int out_of_time(Search *s) {
    struct timespec now;
    if (s->stop_at <= 0 || ((s->nodes & CLOCK_EVERY) && s->nodes != 1)) return s->gave_up;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)now.tv_sec + (double)now.tv_nsec * 1e-9 >= s->stop_at) s->gave_up = 1;
    return s->gave_up;
}

static const uint64_t NOT_A = 0xFEFEFEFEFEFEFEFEULL; /* every column but a */
static const uint64_t NOT_H = 0x7F7F7F7F7F7F7F7FULL; /* every column but h */
static const uint64_t INNER = 0x7E7E7E7E7E7E7E7EULL; /* columns b..g: a sideways line may run through them */
static const uint64_t CORNERS = 0x8100000000000081ULL;
static const uint64_t QUADRANTS[4] = {
    0x000000000F0F0F0FULL, 0x00000000F0F0F0F0ULL, 0x0F0F0F0F00000000ULL, 0xF0F0F0F000000000ULL};

static int count(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Squares where ``p`` may place a disc: bracketing at least one ``o`` disc in some direction. A line of
 * opponent discs is at most 6 long; sideways lines may only run through columns b..g (no wrapping). */
static uint64_t placements(uint64_t p, uint64_t o) {
    uint64_t in = o & INNER, moves = 0, t;
#define WALK(OP, S, M)                                                                                        \
    t = (M) & (p OP(S));                                                                                       \
    t |= (M) & (t OP(S));                                                                                      \
    t |= (M) & (t OP(S));                                                                                      \
    t |= (M) & (t OP(S));                                                                                      \
    t |= (M) & (t OP(S));                                                                                      \
    t |= (M) & (t OP(S));                                                                                      \
    moves |= t OP(S);
    WALK(<<, 1, in)
    WALK(>>, 1, in)
    WALK(<<, 8, o)
    WALK(>>, 8, o)
    WALK(<<, 7, in)
    WALK(>>, 7, in)
    WALK(<<, 9, in)
    WALK(>>, 9, in)
#undef WALK
    return moves & ~(p | o);
}

/* The ``o`` discs a ``p`` disc placed on ``bit`` flips: every bracketed line in every direction. */
static uint64_t flips(uint64_t p, uint64_t o, uint64_t bit) {
    uint64_t in = o & INNER, out = 0, line, x;
#define LINE(OP, S, M)                                                                                        \
    line = 0;                                                                                                  \
    x = bit OP(S);                                                                                             \
    while (x & (M)) {                                                                                          \
        line |= x;                                                                                             \
        x = x OP(S);                                                                                           \
    }                                                                                                          \
    if (x & p) out |= line;
    LINE(<<, 1, in)
    LINE(>>, 1, in)
    LINE(<<, 8, o)
    LINE(>>, 8, o)
    LINE(<<, 7, in)
    LINE(>>, 7, in)
    LINE(<<, 9, in)
    LINE(>>, 9, in)
#undef LINE
    return out;
}

/* The squares around ``b`` (8 directions): a square with no opponent disc next to it flips nothing. */
static uint64_t around(uint64_t b) {
    uint64_t row = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    uint64_t band = b | row;
    return row | (band << 8) | (band >> 8);
}

/* The discs of ``p`` that can never flip (a lower bound): on each of the four lines through it, the line is
 * full, or a neighbour on it is the board's edge or a stable disc of ``p``; grown until nothing changes. */
static uint64_t stable_discs(uint64_t p, uint64_t o) {
    uint64_t filled = p | o, full_h, full_v, full_d9, full_d7, t, stable = 0, grown;
    static const uint64_t EDGE = 0xFF818181818181FFULL;
    /* A square is on a full row when its whole row is filled; likewise columns and both diagonals. */
    t = filled & (filled >> 1) & (filled >> 2) & (filled >> 3) & (filled >> 4) & (filled >> 5) & (filled >> 6) &
        (filled >> 7) & 0x0101010101010101ULL;
    full_h = t * 0xFF;
    t = filled & (filled >> 8);
    t &= t >> 16;
    t &= t >> 32;
    full_v = (t & 0xFF) * 0x0101010101010101ULL;
    full_d9 = full_d7 = filled;
    for (t = 0; t < 7; t++) { /* a diagonal square stays when its neighbours along the diagonal do */
        full_d9 &= ((full_d9 >> 9) | 0xFF80808080808080ULL) & ((full_d9 << 9) | 0x01010101010101FFULL);
        full_d7 &= ((full_d7 >> 7) | 0xFF01010101010101ULL) & ((full_d7 << 7) | 0x80808080808080FFULL);
    }
    for (;;) {
        grown = p & (full_h | ((stable << 1) & NOT_A) | ((stable >> 1) & NOT_H) | 0x8181818181818181ULL) &
                (full_v | (stable << 8) | (stable >> 8) | 0xFF000000000000FFULL) &
                (full_d9 | ((stable << 9) & NOT_A) | ((stable >> 9) & NOT_H) | EDGE) &
                (full_d7 | ((stable << 7) & NOT_H) | ((stable >> 7) & NOT_A) | EDGE);
        if (grown == stable) return stable;
        stable = grown;
    }
}

/* One empty square left: whoever can use it does (the seat to move first); otherwise the game is over. */
static int last1(Search *s, uint64_t p, uint64_t o, uint64_t bit) {
    int diff = count(p) - count(o);
    uint64_t f;
    s->nodes++;
    f = flips(p, o, bit);
    if (f) return diff + 1 + 2 * count(f);
    f = flips(o, p, bit);
    if (f) return diff - 1 - 2 * count(f);
    return diff;
}

/* Few empty squares (``empty``, 2..SMALL_EMPTIES of them): no move generation, parity order. ``passed``:
 * the other seat has just passed, so having no placement either ends the game. */
static int solve_small(Search *s, uint64_t p, uint64_t o, uint64_t empty, int alpha, int beta, int passed) {
    int best = NO_VALUE, k, q, v;
    uint64_t odd = 0, order[2], rest, bit, f, left;
    s->nodes++;
    for (q = 0; q < 4; q++)
        if (count(empty & QUADRANTS[q]) & 1) odd |= QUADRANTS[q];
    order[0] = empty & odd;
    order[1] = empty & ~odd;
    for (k = 0; k < 2; k++) {
        for (rest = order[k]; rest; rest &= rest - 1) {
            bit = rest & (0 - rest);
            if (!(around(bit) & o)) continue;
            f = flips(p, o, bit);
            if (!f) continue;
            left = empty ^ bit;
            if (left & (left - 1))
                v = -solve_small(s, o ^ f, p | bit | f, left, -beta, -alpha, 0);
            else
                v = -last1(s, o ^ f, p | bit | f, left);
            if (v > best) {
                best = v;
                if (v > alpha) {
                    if (v >= beta) return v;
                    alpha = v;
                }
            }
        }
    }
    if (best != NO_VALUE) return best;
    if (passed) return count(p) - count(o);
    return -solve_small(s, o, p, empty, -beta, -alpha, 1);
}

typedef struct {
    uint64_t p, o; /* the position after the move, from the mover's side */
    int key;       /* the order key (KEY_REPLIES): lowest first; -1 for the table's move */
    int square;    /* where the move places its disc */
} Child;

static Entry *entry_of(Search *s, uint64_t p, uint64_t o) {
    uint64_t h = (p * 0x9E3779B97F4A7C15ULL) ^ (o * 0xC2B2AE3D27D4EB4FULL);
    return &s->table[(h ^ (h >> 29)) >> (64 - TABLE_BITS)];
}

/* Many empty squares (``empties`` of them, above SMALL_EMPTIES): fastest-first, null windows from
 * PVS_EMPTIES, the transposition table from TABLE_EMPTIES. */
static int solve_deep(Search *s, uint64_t p, uint64_t o, int empties, int alpha, int beta, int passed) {
    Child children[MAX_MOVES], c;
    uint64_t moves, bit, f, replies;
    int n = 0, i, j, v, best = NO_VALUE, best_move = -1, table_move = -1, square;
    Entry *e = NULL;
    s->nodes++;
    if (out_of_time(s)) return 0;
    if (s->table && empties >= TABLE_EMPTIES) {
        e = entry_of(s, p, o);
        if (e->p == p && e->o == o) {
            if (e->lower >= beta) return e->lower;
            if (e->upper <= alpha || e->lower == e->upper) return e->upper;
            if (e->lower > alpha) alpha = e->lower;
            if (e->upper < beta) beta = e->upper;
            table_move = e->move;
        }
    }
    if (alpha >= STABILITY_FROM) { /* every stable opponent disc is one we never get: a bound */
        v = 64 - 2 * count(stable_discs(o, p));
        if (v <= alpha) return v;
    }
    moves = placements(p, o);
    if (!moves) {
        if (passed) return count(p) - count(o);
        return -solve_deep(s, o, p, empties, -beta, -alpha, 1);
    }
    for (; moves; moves &= moves - 1) {
        bit = moves & (0 - moves);
        for (square = 0; !((bit >> square) & 1); square++) {
        }
        f = flips(p, o, bit);
        c.p = p | bit | f;
        c.o = o ^ f;
        replies = placements(c.o, c.p);
        c.key = KEY_REPLIES * (count(replies) + count(replies & CORNERS) - count(bit & CORNERS)) +
                count(around(c.p) & ~(c.p | c.o));
        c.square = square;
        if (square == table_move) c.key = -1;
        for (j = n; j > 0 && children[j - 1].key > c.key; j--) children[j] = children[j - 1];
        children[j] = c;
        n++;
    }
    {
        int alpha0 = alpha;
        for (i = 0; i < n; i++) {
            uint64_t mine = children[i].p, theirs = children[i].o;
            if (empties - 1 > SMALL_EMPTIES) {
                if (i > 0 && empties >= PVS_EMPTIES) {
                    v = -solve_deep(s, theirs, mine, empties - 1, -alpha - 1, -alpha, 0);
                    if (v > alpha && v < beta) v = -solve_deep(s, theirs, mine, empties - 1, -beta, -alpha, 0);
                } else {
                    v = -solve_deep(s, theirs, mine, empties - 1, -beta, -alpha, 0);
                }
            } else {
                v = -solve_small(s, theirs, mine, ~(mine | theirs), -beta, -alpha, 0);
            }
            if (s->gave_up) return 0; /* and nothing goes into the table */
            if (v > best) {
                best = v;
                best_move = children[i].square;
                if (v > alpha) {
                    if (v >= beta) break;
                    alpha = v;
                }
            }
        }
        if (e) {
            if (e->p != p || e->o != o) {
                e->p = p;
                e->o = o;
                e->lower = -64;
                e->upper = 64;
            }
            if (best >= beta) {
                if (best > e->lower) e->lower = (int8_t)best;
            } else if (best <= alpha0) {
                if (best < e->upper) e->upper = (int8_t)best;
            } else {
                e->lower = e->upper = (int8_t)best;
            }
            e->move = (int8_t)best_move;
        }
    }
    return best;
}

/* The exported entry point: the exact final disc margin for the owner of ``me`` (to move) fail-soft within
 * (alpha, beta) (use -65, 65 for a full window), or GAVE_UP when the monotonic clock reached ``stop_at``
 * (seconds; 0 or less: no limit) first; ``*nodes`` (when not NULL) receives the nodes visited. */
int gr_reversi_solve(uint64_t me, uint64_t opp, int alpha, int beta, double stop_at, uint64_t *nodes) {
    Search s;
    uint64_t empty = ~(me | opp);
    int empties = count(empty), v;
    s.nodes = 0;
    s.table = NULL;
    s.stop_at = stop_at;
    s.gave_up = 0;
    /* calloc: zeroed entries hold the empty board, which no solve meets (it has more than 60 empties) */
    if (empties >= TABLE_EMPTIES + 2) s.table = (Entry *)calloc((size_t)1 << TABLE_BITS, sizeof(Entry));
    if (empties == 0) {
        s.nodes = 1;
        v = count(me) - count(opp);
    } else if (empties == 1) {
        v = last1(&s, me, opp, empty);
    } else if (empties <= SMALL_EMPTIES) {
        v = solve_small(&s, me, opp, empty, alpha, beta, 0);
    } else {
        v = solve_deep(&s, me, opp, empties, alpha, beta, 0);
    }
    free(s.table);
    if (nodes) *nodes = s.nodes;
    return s.gave_up ? GAVE_UP : v;
}
