/* Pattern evaluation of 8x8 Reversi: the native twin of ``service/engines/reversi/patterns.py``.
 *
 * The sum of a weights table's entries over the 47 pattern instances of a position (edges with their
 * X-squares, corner 3x3 and 2x5 blocks, rows 2 to 4, the diagonals of 8 to 4 squares, and a bias by the
 * number of empty squares), in the table of the position's stage (its number of empty squares in buckets of
 * STAGE_WIDTH): the learned estimate of the final disc margin for the seat to move, in 1/SCALE discs
 * (patterns.py's docstring has the layout).
 * The Python ``pattern_sum`` is the reference this file is tested against (tests/games/test_reversi_patterns.py)
 * and the fallback when it is not built. Two users: the Python search's leaves call ``gr_reversi_pattern_sum``
 * with a table they hold (service/levels/reversi_learned.py), and the native search's Reversi kernel
 * (reversi.c) calls ``gr_reversi_learned`` for a state packed with its learned flag, over the one table
 * handed in by ``gr_reversi_set_weights`` (Python reads the weights file; C never parses it).
 *
 * Boards are bitboards numbered as the engine's (service/engines/reversi/bitboards.py): bit ``row * 8 + col``,
 * a1 = bit 0. ``me`` holds the discs of the seat to move, ``opp`` the other seat's. A pattern's index is
 * ``sum(digit(square_k) * 3^k)``, digit 0 empty, 1 ``me``, 2 ``opp``. INSTANCES is the list patterns.py builds
 * (``INSTANCES``: each family at every place the board's symmetries take it), written out: the twin test fails
 * if the two ever differ. Portable C99, no library, no state: reentrant.
 */

#include <stdint.h>

#include "reversi_patterns.h"

#define SCALE 32.0       /* a weight's unit: 1/SCALE disc (patterns.SCALE) */
#define BOUND 63.0       /* an estimate's largest margin (patterns.BOUND) */
#define STAGE_WIDTH 6     /* empty squares per stage (patterns.STAGE_WIDTH) */
#define STAGES 10         /* patterns.STAGES */
#define STAGE_SIZE 167271 /* weights per stage (patterns.STAGE_SIZE) */
#define INSTANCE_COUNT 47
#define MAX_SQUARES 10

typedef struct {
    int32_t offset; /* the family's table within a stage */
    int32_t count;  /* its squares */
    int8_t squares[MAX_SQUARES];
} Instance;

static const Instance INSTANCES[INSTANCE_COUNT] = {
    {0, 10, {0, 1, 2, 3, 4, 5, 6, 7, 9, 14}},
    {0, 10, {56, 57, 58, 59, 60, 61, 62, 63, 49, 54}},
    {0, 10, {0, 8, 16, 24, 32, 40, 48, 56, 9, 49}},
    {0, 10, {7, 15, 23, 31, 39, 47, 55, 63, 14, 54}},
    {59049, 9, {0, 1, 2, 8, 9, 10, 16, 17, 18}},
    {59049, 9, {7, 6, 5, 15, 14, 13, 23, 22, 21}},
    {59049, 9, {56, 57, 58, 48, 49, 50, 40, 41, 42}},
    {59049, 9, {63, 62, 61, 55, 54, 53, 47, 46, 45}},
    {78732, 10, {0, 1, 2, 3, 4, 8, 9, 10, 11, 12}},
    {78732, 10, {7, 6, 5, 4, 3, 15, 14, 13, 12, 11}},
    {78732, 10, {56, 57, 58, 59, 60, 48, 49, 50, 51, 52}},
    {78732, 10, {63, 62, 61, 60, 59, 55, 54, 53, 52, 51}},
    {78732, 10, {0, 8, 16, 24, 32, 1, 9, 17, 25, 33}},
    {78732, 10, {7, 15, 23, 31, 39, 6, 14, 22, 30, 38}},
    {78732, 10, {56, 48, 40, 32, 24, 57, 49, 41, 33, 25}},
    {78732, 10, {63, 55, 47, 39, 31, 62, 54, 46, 38, 30}},
    {137781, 8, {8, 9, 10, 11, 12, 13, 14, 15}},
    {137781, 8, {48, 49, 50, 51, 52, 53, 54, 55}},
    {137781, 8, {1, 9, 17, 25, 33, 41, 49, 57}},
    {137781, 8, {6, 14, 22, 30, 38, 46, 54, 62}},
    {144342, 8, {16, 17, 18, 19, 20, 21, 22, 23}},
    {144342, 8, {40, 41, 42, 43, 44, 45, 46, 47}},
    {144342, 8, {2, 10, 18, 26, 34, 42, 50, 58}},
    {144342, 8, {5, 13, 21, 29, 37, 45, 53, 61}},
    {150903, 8, {24, 25, 26, 27, 28, 29, 30, 31}},
    {150903, 8, {32, 33, 34, 35, 36, 37, 38, 39}},
    {150903, 8, {3, 11, 19, 27, 35, 43, 51, 59}},
    {150903, 8, {4, 12, 20, 28, 36, 44, 52, 60}},
    {157464, 8, {0, 9, 18, 27, 36, 45, 54, 63}},
    {157464, 8, {7, 14, 21, 28, 35, 42, 49, 56}},
    {164025, 7, {1, 10, 19, 28, 37, 46, 55}},
    {164025, 7, {6, 13, 20, 27, 34, 41, 48}},
    {164025, 7, {57, 50, 43, 36, 29, 22, 15}},
    {164025, 7, {62, 53, 44, 35, 26, 17, 8}},
    {166212, 6, {2, 11, 20, 29, 38, 47}},
    {166212, 6, {5, 12, 19, 26, 33, 40}},
    {166212, 6, {58, 51, 44, 37, 30, 23}},
    {166212, 6, {61, 52, 43, 34, 25, 16}},
    {166941, 5, {3, 12, 21, 30, 39}},
    {166941, 5, {4, 11, 18, 25, 32}},
    {166941, 5, {59, 52, 45, 38, 31}},
    {166941, 5, {60, 51, 42, 33, 24}},
    {167184, 4, {4, 13, 22, 31}},
    {167184, 4, {3, 10, 17, 24}},
    {167184, 4, {60, 53, 46, 39}},
    {167184, 4, {59, 50, 41, 32}},
    {167265, 0, {0}},
};

static int count(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
#endif
}

/* Reading an instance square by square costs ~10 bit operations per square, ~450 per position, which would
 * halve the search's node rate. Instead each instance is cut once (init_pieces) into runs of squares that lie
 * side by side, in either order, in one of a few views of the board: the board itself (runs along a row), its
 * transpose (runs along a column) and each diagonal gathered into a byte by a multiplication. A run of up to 8
 * squares is then one shift and mask per colour and one table lookup turning its bits into base-3 digits: about
 * 70 runs per position. */
#define VIEWS 20 /* the board, its transpose, 9 diagonals and 9 anti-diagonals of 4 to 8 squares */
#define MAX_PIECES 128 /* runs of all instances (about 70) */
#define MAX_RUN 8

typedef struct {
    uint8_t view, shift, len, reversed;
    int32_t weight; /* 3^k of the run's first square */
} Piece;

/* A run as the sum reads it: the digits table of its order and length, and, on an instance's last run, the
 * table entry it closes (the family's offset + 1; 0 on the other runs). */
typedef struct {
    const uint16_t *digits;
    uint32_t mask;
    int32_t weight;
    int32_t closes;
    uint8_t view, shift;
} Step;

static uint64_t DIAGONALS[VIEWS]; /* the squares of a gathered view (views 2..) */
static Step STEPS[MAX_PIECES];
static int STEP_COUNT;
static int32_t SQUARELESS[INSTANCE_COUNT]; /* the offsets of instances without squares (the bias), indexed by
                                            * the empty squares within the stage (patterns.within) */
static int SQUARELESS_COUNT;
static uint16_t ASCENDING[256];           /* bits -> sum(bit_j * 3^j) */
static uint16_t DESCENDING[MAX_RUN + 1][256]; /* [len][bits] -> sum(bit_j * 3^(len-1-j)) */

static uint64_t transpose(uint64_t x) { /* square (r, c) to (c, r) */
    uint64_t t;
    t = 0x0f0f0f0f00000000ULL & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = 0x3333000033330000ULL & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = 0x5500550055005500ULL & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    return x;
}

/* A diagonal's squares, each on its own column, gathered into the top byte by a carry-free multiplication:
 * bit c of the result is the diagonal's square on column c. */
static inline uint64_t gather(uint64_t board, uint64_t diagonal) {
    return ((board & diagonal) * 0x0101010101010101ULL) >> 56;
}

static void views(uint64_t board, uint64_t *out) {
    int v;
    out[0] = board;
    out[1] = transpose(board);
    for (v = 2; v < VIEWS; v++) out[v] = gather(board, DIAGONALS[v]);
}

/* Where square s lies in view v (its bit), -1 when the view does not hold it. */
static int position_in(int v, int s) {
    uint64_t w[VIEWS];
    views(1ULL << s, w);
    return w[v] && count(w[v]) == 1 ? __builtin_ctzll(w[v]) : -1;
}

static void init_pieces(void) {
    int v = 2, d, i, k, n = 0;
    for (d = -4; d <= 4; d++) { /* the diagonals row - col = d and the anti-diagonals row + col = 7 + d */
        uint64_t diag = 0, anti = 0;
        int r;
        for (r = 0; r < 8; r++) {
            if (r - d >= 0 && r - d < 8) diag |= 1ULL << (r * 8 + r - d);
            if (7 + d - r >= 0 && 7 + d - r < 8) anti |= 1ULL << (r * 8 + 7 + d - r);
        }
        DIAGONALS[v++] = diag;
        DIAGONALS[v++] = anti;
    }
    for (i = 0; i < 256; i++) {
        int j, len, a = 0, p = 1;
        for (j = 0; j < 8; j++, p *= 3) a += ((i >> j) & 1) * p;
        ASCENDING[i] = (uint16_t)a;
        for (len = 1; len <= MAX_RUN; len++) {
            int b = 0;
            for (j = 0, p = 1; j < len; j++) b = b * 3 + ((i >> j) & 1);
            DESCENDING[len][i] = (uint16_t)(i < (1 << len) ? b : 0);
        }
    }
    for (i = 0; i < INSTANCE_COUNT; i++) {
        const Instance *p = &INSTANCES[i];
        int32_t weight = 1;
        for (k = 0; k < p->count && n < MAX_PIECES;) { /* the longest run from square k, every view and way */
            Piece best = {0, 0, 0, 0, weight};
            int view, dir;
            for (view = 0; view < VIEWS; view++) {
                int at = position_in(view, p->squares[k]);
                if (at < 0) continue;
                for (dir = -1; dir <= 1; dir += 2) {
                    int len = 1;
                    while (k + len < p->count && len < MAX_RUN &&
                           position_in(view, p->squares[k + len]) == at + dir * len && at + dir * len >= 0)
                        len++;
                    if (len > best.len) {
                        best.view = (uint8_t)view;
                        best.len = (uint8_t)len;
                        best.reversed = (uint8_t)(dir < 0);
                        best.shift = (uint8_t)(dir < 0 ? at - len + 1 : at);
                    }
                }
            }
            STEPS[n].digits = best.reversed ? DESCENDING[best.len] : ASCENDING;
            STEPS[n].mask = (1u << best.len) - 1;
            STEPS[n].weight = best.weight;
            STEPS[n].view = best.view;
            STEPS[n].shift = best.shift;
            STEPS[n].closes = k + best.len == p->count ? p->offset + 1 : 0;
            n++;
            for (d = 0; d < best.len; d++) weight *= 3;
            k += best.len;
        }
        if (p->count == 0) SQUARELESS[SQUARELESS_COUNT++] = p->offset;
    }
    STEP_COUNT = n;
}

/* With BMI2 (x86 from 2013 on), ``pext`` gathers an instance's squares of a colour into the low bits in one
 * instruction, in square order; a table per instance turns those bits into its base-3 digits in the instance's own
 * order. Two gathers and lookups per instance: about half the runs' cost, which keeps the learned search's node
 * rate (the runs stay for other machines; both are tested against the Python sum). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define GATHER_PATH 1
#define DIGIT_POOL_SIZE 20000 /* 2^count summed over the instances: 18,880 */

typedef struct {
    uint64_t mask;
    const uint16_t *digits; /* pext bits -> sum(bit_j * 3^k), k the instance's order of the j-th lowest square */
    int32_t offset;
} Gather;

static Gather GATHERS[INSTANCE_COUNT];
static int GATHER_COUNT;
static uint16_t DIGIT_POOL[DIGIT_POOL_SIZE];

static int init_gathers(void) { /* 1 when every instance has its gather */
    int i, used = 0;
    for (i = 0; i < INSTANCE_COUNT; i++) {
        const Instance *p = &INSTANCES[i];
        int32_t power[64];
        int k, bits;
        uint64_t mask = 0;
        int32_t p3 = 1;
        if (p->count == 0) continue;
        if (used + (1 << p->count) > DIGIT_POOL_SIZE) return 0; /* cannot happen: keeps the runs */
        for (k = 0; k < p->count; k++, p3 *= 3) {
            mask |= 1ULL << p->squares[k];
            power[p->squares[k]] = p3;
        }
        for (bits = 0; bits < 1 << p->count; bits++) {
            int32_t digits = 0;
            uint64_t rest = mask;
            for (k = 0; rest; k++, rest &= rest - 1)
                if ((bits >> k) & 1) digits += power[__builtin_ctzll(rest)];
            DIGIT_POOL[used + bits] = (uint16_t)digits;
        }
        GATHERS[GATHER_COUNT++] = (Gather){mask, DIGIT_POOL + used, p->offset};
        used += 1 << p->count;
    }
    return 1;
}

__attribute__((target("bmi2"))) static int32_t sum_gathered(uint64_t me, uint64_t opp, const int16_t *table) {
    int32_t total = 0;
    int q;
    for (q = 0; q < GATHER_COUNT; q++) {
        const Gather *g = &GATHERS[q];
        total += table[g->offset + g->digits[_pext_u64(me, g->mask)] + 2 * g->digits[_pext_u64(opp, g->mask)]];
    }
    return total;
}
#endif

static int32_t sum_runs(uint64_t me, uint64_t opp, const int16_t *table);

/* The instances' part of the sum: by gathers where the CPU has them, else by runs; chosen once at load. */
static int32_t (*sum_instances)(uint64_t, uint64_t, const int16_t *) = sum_runs;

__attribute__((constructor)) static void init_patterns(void) {
    init_pieces();
#ifdef GATHER_PATH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("bmi2") && init_gathers()) sum_instances = sum_gathered;
#endif
}

/* 1 when the sum gathers with BMI2, 0 when it reads runs (the tests check both against the Python sum). */
int gr_reversi_pattern_path(void) { return sum_instances != sum_runs; }

static int32_t sum_runs(uint64_t me, uint64_t opp, const int16_t *table) {
    uint64_t mine[VIEWS], theirs[VIEWS];
    int32_t total = 0, index = 0;
    int q;
    views(me, mine);
    views(opp, theirs);
    for (q = 0; q < STEP_COUNT; q++) {
        const Step *p = &STEPS[q];
        uint32_t a = (uint32_t)(mine[p->view] >> p->shift) & p->mask;
        uint32_t b = (uint32_t)(theirs[p->view] >> p->shift) & p->mask;
        index += (p->digits[a] + 2 * p->digits[b]) * p->weight;
        if (p->closes) {
            total += table[p->closes - 1 + index];
            index = 0;
        }
    }
    return total;
}

static const int16_t *stage_table(int empties, const int16_t *weights) {
    int stage = empties / STAGE_WIDTH;
    return weights + (int64_t)(stage > STAGES - 1 ? STAGES - 1 : stage) * STAGE_SIZE;
}

/* The bias's entry for a count of empty squares (patterns.within). */
static int within(int empties) { return empties % STAGE_WIDTH; }

static int32_t squareless(int empties, const int16_t *table) {
    int32_t total = 0;
    int q;
    for (q = 0; q < SQUARELESS_COUNT; q++) total += table[SQUARELESS[q] + within(empties)];
    return total;
}

/* The weights' sum for ``me`` to move; ``weights`` is the whole table (STAGES * STAGE_SIZE int16). */
int32_t gr_reversi_pattern_sum(uint64_t me, uint64_t opp, const int16_t *weights) {
    int empties = 64 - count(me | opp);
    const int16_t *table = stage_table(empties, weights);
    return sum_instances(me, opp, table) + squareless(empties, table);
}

/* The same sum by runs whatever the CPU (the tests compare it with the Python sum where gathers are chosen). */
int32_t gr_reversi_pattern_sum_runs(uint64_t me, uint64_t opp, const int16_t *weights) {
    int empties = 64 - count(me | opp);
    const int16_t *table = stage_table(empties, weights);
    return sum_runs(me, opp, table) + squareless(empties, table);
}

/* The table the native search's kernel evaluates with: set once, before any search, by the Python that loaded
 * it (service/native/reversi.py), and only read afterwards (the caller keeps it alive and unchanged while
 * searches run). NULL until then: a learned state then keeps the hand-written estimate. */
static const int16_t *volatile SEARCH_WEIGHTS;

void gr_reversi_set_weights(const int16_t *weights) { SEARCH_WEIGHTS = weights; }

int gr_reversi_has_weights(void) { return SEARCH_WEIGHTS != 0; }

/* The learned estimate (patterns.estimate): the hand-written one (``base``, already clamped) corrected by the
 * weights' sum, clamped short of a proved wipe-out, for ``me`` to move on 8x8. */
double gr_reversi_learned(uint64_t me, uint64_t opp, double base) {
    const int16_t *weights = SEARCH_WEIGHTS;
    double value;
    if (!weights) return base;
    value = base + (double)gr_reversi_pattern_sum(me, opp, weights) / SCALE;
    return value > BOUND ? BOUND : value < -BOUND ? -BOUND : value;
}
