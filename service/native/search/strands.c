/* Strands' kernel for the native search core (kernel.h): the rules of service/engines/strands on 256-bit cell
 * masks, with the engine's search moves (the capped, group-aware candidate covers of moves.py, in their order),
 * its evaluation and final value, and the quick playout move of Monte Carlo playouts (the random_move hook)
 * with whole playouts of those moves placed in place (the playout hook).
 *
 * Cells are numbered 0 .. size-1 in board order (the engine's grid bits, sorted), so every order and tie-break
 * the engine takes by grid bit is the same here. The state holds the layout itself (the label of each cell in
 * three bit planes), so it needs no pointer: a side-9 board of 217 cells fits. The geometry of each side
 * (neighbours, rings) is computed once when the library loads.
 *
 * A move is one int: the colex rank of its cells among the layout's cells of its label, the number of cells,
 * the label (rank << 6 | count << 3 | label). The adapter (service/native/strands.py) refuses layouts whose
 * ranks would not fit 25 bits. Such moves are far above GR_MOVE_RANGE: in the alpha-beta core they share
 * history slots by a hash (core.c); the Monte Carlo tree search (mcts.c) takes them as they are.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define MIN_SIDE 2
#define MAX_SIDE 9
#define MAX_CELLS 217 /* 3 * 9 * 8 + 1 */
#define WORDS 4
/* The engine's constants (service/engines/strands/moves.py); the twin tests hold them equal. */
#define CANDIDATE_CAP 32
#define POOL 12
#define PER_LABEL 5
#define PLAYOUT_NEAR 0.75
static const double BLOCK_WEIGHT = 0.75, ROOM_WEIGHT = 0.1, CENTRE_WEIGHT = 0.05;

typedef struct {
    uint64_t w[WORDS];
} bits;

typedef struct {
    uint64_t plane[3][WORDS]; /* bit b of each cell's label */
    uint64_t black[WORDS];
    uint64_t white[WORDS];
    int32_t side;
    int32_t to_move; /* 1 Black, 2 White, 0 once the board is full */
    int32_t exact;   /* the exact_count rule */
    int32_t learned; /* non-zero: evaluate with the learned weights (gr_strands_set_weights) */
} st_state;

typedef struct {
    int size;
    uint8_t nb[MAX_CELLS][6];
    uint8_t nb_count[MAX_CELLS];
    uint8_t ring[MAX_CELLS];
    bits nb_mask[MAX_CELLS];
    bits board;
} geometry;

static geometry GEOMETRY[MAX_SIDE + 1];
static uint32_t BINOMIAL[MAX_CELLS + 1][7];

/* --- bit sets ----------------------------------------------------------------------------------------- */

static inline int has(const uint64_t *m, int i) { return (int)(m[i >> 6] >> (i & 63) & 1); }
static inline void put(uint64_t *m, int i) { m[i >> 6] |= 1ULL << (i & 63); }
static inline int count(const uint64_t *m) {
    return __builtin_popcountll(m[0]) + __builtin_popcountll(m[1]) + __builtin_popcountll(m[2]) +
           __builtin_popcountll(m[3]);
}
static inline int is_zero(const uint64_t *m) { return !(m[0] | m[1] | m[2] | m[3]); }

/* The cells of m in order into out; returns how many. */
static int cells_of(const uint64_t *m, uint8_t *out) {
    int n = 0;
    for (int w = 0; w < WORDS; w++)
        for (uint64_t x = m[w]; x; x &= x - 1) out[n++] = (uint8_t)(w * 64 + __builtin_ctzll(x));
    return n;
}

/* The index-th set cell of m (0-based). */
static int nth_cell(const uint64_t *m, int index) {
    for (int w = 0; w < WORDS; w++) {
        int c = __builtin_popcountll(m[w]);
        if (index < c) {
            uint64_t x = m[w];
            while (index--) x &= x - 1;
            return w * 64 + __builtin_ctzll(x);
        }
        index -= c;
    }
    return -1;
}

/* How many cells of m come before cell i. */
static int rank_in(const uint64_t *m, int i) {
    int n = 0;
    for (int w = 0; w < i >> 6; w++) n += __builtin_popcountll(m[w]);
    return n + __builtin_popcountll(m[i >> 6] & ((1ULL << (i & 63)) - 1));
}

/* --- geometry --------------------------------------------------------------------------------------- */

__attribute__((constructor)) static void st_init(void) {
    for (int n = 0; n <= MAX_CELLS; n++) {
        BINOMIAL[n][0] = 1;
        for (int k = 1; k < 7; k++) {
            uint64_t v = n == 0 ? 0 : (uint64_t)BINOMIAL[n - 1][k - 1] + BINOMIAL[n - 1][k];
            BINOMIAL[n][k] = v > 0xffffffffULL ? 0xffffffffU : (uint32_t)v;
        }
    }
    for (int side = MIN_SIDE; side <= MAX_SIDE; side++) {
        geometry *g = &GEOMETRY[side];
        int m = side - 1, index[2 * MAX_SIDE][2 * MAX_SIDE], n = 0;
        int cq[MAX_CELLS], cr[MAX_CELLS];
        for (int r = -m; r <= m; r++)
            for (int q = -m; q <= m; q++) index[r + m][q + m] = -1;
        for (int r = -m; r <= m; r++) /* board order: axial_cells of layouts.py */
            for (int q = (-m > -m - r ? -m : -m - r); q <= (m < m - r ? m : m - r); q++) {
                index[r + m][q + m] = n;
                cq[n] = q, cr[n] = r;
                n++;
            }
        g->size = n;
        memset(&g->board, 0, sizeof g->board);
        static const int dq[6] = {1, -1, 0, 0, 1, -1}, dr[6] = {0, 0, 1, -1, -1, 1};
        for (int i = 0; i < n; i++) {
            put(g->board.w, i);
            int q = cq[i], r = cr[i], s = -q - r;
            int a = q < 0 ? -q : q, b = r < 0 ? -r : r, c = s < 0 ? -s : s;
            g->ring[i] = (uint8_t)(a > b ? (a > c ? a : c) : (b > c ? b : c));
            g->nb_count[i] = 0;
            memset(&g->nb_mask[i], 0, sizeof(bits));
            for (int d = 0; d < 6; d++) {
                int q2 = q + dq[d], r2 = r + dr[d];
                if (q2 < -m || q2 > m || r2 < -m || r2 > m || index[r2 + m][q2 + m] < 0) continue;
                int j = index[r2 + m][q2 + m];
                g->nb[i][g->nb_count[i]++] = (uint8_t)j;
                put(g->nb_mask[i].w, j);
            }
        }
    }
}

static inline const geometry *geo(const st_state *p) { return &GEOMETRY[p->side]; }

static void label_mask(const st_state *p, int label, uint64_t *out) {
    for (int w = 0; w < WORDS; w++) {
        uint64_t x = geo(p)->board.w[w];
        for (int b = 0; b < 3; b++) x &= label >> b & 1 ? p->plane[b][w] : ~p->plane[b][w];
        out[w] = x;
    }
}

static void empty_mask(const st_state *p, uint64_t *out) {
    for (int w = 0; w < WORDS; w++) out[w] = geo(p)->board.w[w] & ~(p->black[w] | p->white[w]);
}

/* --- groups ------------------------------------------------------------------------------------------- */

/* The groups of stones: each cell's group id in group (-1 outside), their sizes; returns how many. */
static int find_groups(const geometry *g, const uint64_t *stones, int16_t *group, int *sizes) {
    uint64_t left[WORDS];
    memcpy(left, stones, sizeof left);
    int n = 0;
    uint8_t stack[MAX_CELLS];
    for (int i = 0; i < g->size; i++) group[i] = -1;
    for (int w = 0; w < WORDS; w++)
        while (left[w]) {
            int start = w * 64 + __builtin_ctzll(left[w]), top = 0, size = 0;
            left[w] &= left[w] - 1;
            group[start] = (int16_t)n;
            stack[top++] = (uint8_t)start;
            while (top) {
                int c = stack[--top];
                size++;
                for (int d = 0; d < g->nb_count[c]; d++) {
                    int j = g->nb[c][d];
                    if (has(left, j)) {
                        left[j >> 6] &= ~(1ULL << (j & 63));
                        group[j] = (int16_t)n;
                        stack[top++] = (uint8_t)j;
                    }
                }
            }
            sizes[n++] = size;
        }
    return n;
}

/* The sizes of the groups of stones, in find_groups' order, grown a ring at a time with the neighbour masks:
 * the final value's count, quicker than find_groups where no cell's group id is needed. */
static int group_sizes(const geometry *g, const uint64_t *stones, int *sizes) {
    uint64_t left[WORDS];
    memcpy(left, stones, sizeof left);
    int n = 0;
    for (int w = 0; w < WORDS; w++)
        while (left[w]) {
            uint64_t ring[WORDS] = {0};
            ring[w] = left[w] & -left[w];
            left[w] &= left[w] - 1;
            int size = 0;
            while (!is_zero(ring)) {
                uint64_t next[WORDS] = {0};
                for (int v = 0; v < WORDS; v++)
                    for (uint64_t x = ring[v]; x; x &= x - 1) {
                        const uint64_t *nb = g->nb_mask[v * 64 + __builtin_ctzll(x)].w;
                        size++;
                        next[0] |= nb[0], next[1] |= nb[1], next[2] |= nb[2], next[3] |= nb[3];
                    }
                for (int v = 0; v < WORDS; v++) ring[v] = next[v] & left[v], left[v] &= ~next[v];
            }
            sizes[n++] = size;
        }
    return n;
}

static int largest(const int *sizes, int n) {
    int best = 0;
    for (int i = 0; i < n; i++)
        if (sizes[i] > best) best = sizes[i];
    return best;
}

static int descending(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }

/* The margin of final_value for Black: largest groups, or ±0.5 when a later entry or the prefix rule decides. */
static double black_margin(const st_state *p) {
    const geometry *g = geo(p);
    int black[MAX_CELLS], white[MAX_CELLS];
    int nb = group_sizes(g, p->black, black), nw = group_sizes(g, p->white, white);
    int lb = largest(black, nb), lw = largest(white, nw);
    if (lb != lw) return (double)(lb - lw);
    qsort(black, (size_t)nb, sizeof(int), descending); /* equal largest groups: the sizes below decide */
    qsort(white, (size_t)nw, sizeof(int), descending);
    int winner = 0;
    for (int i = 0; i < nb && i < nw && !winner; i++)
        if (black[i] != white[i]) winner = black[i] > white[i] ? 1 : 2;
    if (!winner) winner = nb > nw ? 1 : nw > nb ? 2 : 0;
    return winner == 1 ? 0.5 : -0.5;
}

static double st_final_value(const void *s, int seat) {
    double margin = black_margin(s);
    return seat == 1 ? margin : -margin;
}

/* --- the learned evaluation (service/engines/strands/learned.py) ------------------------------------------ */

#define COLOUR_FEATURES 7
#define BASE_FEATURES (COLOUR_FEATURES + 2) /* the colour differences, tempo, the constant */
#define LEARNED_SIZE (BASE_FEATURES * 3)    /* each times e^0, e^1, e^2 */

static const double *WEIGHTS; /* the caller's array of LEARNED_SIZE doubles (the binding keeps it alive) */

/* Hand the kernel the learned weights, or NULL; returns LEARNED_SIZE so the binding can check its length. */
int32_t gr_strands_set_weights(const double *weights) {
    WEIGHTS = weights;
    return LEARNED_SIZE;
}

/* learned.colour_features: largest, second, room, liberties, join, groups, frontier. */
static void colour_features(const geometry *g, const uint64_t *stones, const uint64_t *empty, int *out) {
    int16_t group[MAX_CELLS];
    int sizes[MAX_CELLS];
    int n = find_groups(g, stones, group, sizes), first = 0, second = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] > first) second = first, first = sizes[i];
        else if (sizes[i] > second) second = sizes[i];
    }
    uint64_t near[MAX_CELLS][WORDS]; /* per group: its cells and their neighbours (only the largest are used) */
    uint64_t frontier[WORDS] = {0};
    for (int i = 0; i < n; i++)
        if (sizes[i] == first) memset(near[i], 0, sizeof near[i]);
    for (int c = 0; c < g->size; c++) {
        if (group[c] < 0) continue;
        for (int w = 0; w < WORDS; w++) frontier[w] |= g->nb_mask[c].w[w];
        if (sizes[group[c]] == first)
            for (int w = 0; w < WORDS; w++) near[group[c]][w] |= g->nb_mask[c].w[w];
    }
    int liberties = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] != first) continue;
        uint64_t m[WORDS];
        for (int w = 0; w < WORDS; w++) m[w] = near[i][w] & empty[w];
        if (count(m) > liberties) liberties = count(m);
    }
    for (int w = 0; w < WORDS; w++) frontier[w] &= empty[w];
    int join = 0;
    for (int w = 0; w < WORDS; w++)
        for (uint64_t x = frontier[w]; x; x &= x - 1) {
            int cell = w * 64 + __builtin_ctzll(x), ids[6], k = 0, total = 1;
            for (int d = 0; d < g->nb_count[cell]; d++) {
                int id = group[g->nb[cell][d]], seen = 0;
                if (id < 0) continue;
                for (int j = 0; j < k; j++) seen |= ids[j] == id;
                if (!seen) ids[k++] = id, total += sizes[id];
            }
            if (total > join) join = total;
        }
    uint64_t region[WORDS];
    for (int w = 0; w < WORDS; w++) region[w] = stones[w] | empty[w];
    find_groups(g, region, group, sizes);
    int room = 0;
    for (int w = 0; w < WORDS; w++)
        for (uint64_t x = stones[w]; x; x &= x - 1) {
            int k = group[w * 64 + __builtin_ctzll(x)];
            if (sizes[k] > room) room = sizes[k];
        }
    out[0] = first, out[1] = second, out[2] = room, out[3] = liberties, out[4] = join, out[5] = n;
    out[6] = count(frontier);
}

/* learned.full_turns_left: ceil(empty cells of the label / label), summed over labels. */
static int full_turns_left(const st_state *p, const uint64_t *empty) {
    int turns = 0;
    for (int label = 1; label <= 6; label++) {
        uint64_t m[WORDS];
        label_mask(p, label, m);
        for (int w = 0; w < WORDS; w++) m[w] &= empty[w];
        turns += (count(m) + label - 1) / label;
    }
    return turns;
}

/* learned.Weights.value for the seat to move of an unfinished game: the same products summed in the same order. */
static double learned_value(const st_state *p) {
    const geometry *g = geo(p);
    uint64_t empty[WORDS];
    empty_mask(p, empty);
    int own[COLOUR_FEATURES], other[COLOUR_FEATURES];
    colour_features(g, p->to_move == 1 ? p->black : p->white, empty, own);
    colour_features(g, p->to_move == 1 ? p->white : p->black, empty, other);
    double base[BASE_FEATURES];
    for (int i = 0; i < COLOUR_FEATURES; i++) base[i] = (double)(own[i] - other[i]);
    base[COLOUR_FEATURES] = full_turns_left(p, empty) % 2 ? 1.0 : -1.0;
    base[COLOUR_FEATURES + 1] = 1.0;
    double e = (double)count(empty) / (double)g->size, powers[3] = {1.0, e, e * e}, total = 0.0;
    for (int i = 0; i < BASE_FEATURES; i++)
        for (int k = 0; k < 3; k++) total += WEIGHTS[i * 3 + k] * (base[i] * powers[k]);
    return total;
}

/* For the twin tests: the learned value of a state for its seat to move (NaN without weights or once over). */
double gr_strands_learned(const void *s) {
    const st_state *p = s;
    return WEIGHTS && p->to_move ? learned_value(p) : NAN;
}

/* moves.estimate: a blend of the largest group and the room to grow, weighted by how full the board is; the
 * learned evaluation instead for a state packed learned (the binding hands the weights first). */
static double st_evaluate(const void *s, int seat) {
    const st_state *p = s;
    if (!p->to_move) return st_final_value(s, seat);
    if (p->learned && WEIGHTS) {
        double v = learned_value(p);
        return seat == p->to_move ? v : -v;
    }
    const geometry *g = geo(p);
    uint64_t empty[WORDS];
    empty_mask(p, empty);
    double filled = 1.0 - (double)count(empty) / (double)g->size;
    double values[2];
    for (int side = 0; side < 2; side++) {
        const uint64_t *stones = (side == 0) == (seat == 1) ? p->black : p->white;
        uint64_t region[WORDS];
        for (int w = 0; w < WORDS; w++) region[w] = stones[w] | empty[w];
        int16_t group[MAX_CELLS];
        int sizes[MAX_CELLS];
        int n = find_groups(g, stones, group, sizes), big = largest(sizes, n);
        find_groups(g, region, group, sizes);
        int room = 0; /* the largest region holding a stone */
        for (int w = 0; w < WORDS; w++)
            for (uint64_t x = stones[w]; x; x &= x - 1) {
                int k = group[w * 64 + __builtin_ctzll(x)];
                if (sizes[k] > room) room = sizes[k];
            }
        values[side] = filled * big + (1.0 - filled) * room;
    }
    return values[0] - values[1];
}

/* --- moves --------------------------------------------------------------------------------------- */

typedef struct {
    int label;
    int n;       /* its empty cells */
    int high;    /* cells a full cover takes */
    int low;     /* fewest cells a move covers */
    uint8_t cells[MAX_CELLS];
} cover_group;

/* position._move_groups: per label that may be played, label ascending. */
static int move_groups(const st_state *p, cover_group *out) {
    if (!p->to_move) return 0;
    uint64_t empty[WORDS], mask[WORDS];
    empty_mask(p, empty);
    int opening = is_zero(p->black) && is_zero(p->white), n = 0;
    for (int label = 1; label <= 6; label++) {
        if (opening && label != 2) continue;
        label_mask(p, label, mask);
        for (int w = 0; w < WORDS; w++) mask[w] &= empty[w];
        int c = cells_of(mask, out[n].cells);
        if (!c) continue;
        int most = opening ? 1 : (label < c ? label : c);
        out[n].label = label;
        out[n].n = c;
        out[n].high = most;
        out[n].low = opening || p->exact ? most : 1;
        n++;
    }
    return n;
}

/* The move of cells (ascending, one label). */
static int encode(const st_state *p, int label, const uint8_t *cells, int k) {
    uint64_t mask[WORDS];
    label_mask(p, label, mask);
    uint32_t rank = 0;
    for (int i = 0; i < k; i++) rank += BINOMIAL[rank_in(mask, cells[i])][i + 1];
    return (int)(rank << 6 | (uint32_t)k << 3 | (uint32_t)label);
}

/* The cells of a move, ascending; returns how many. */
static int decode(const st_state *p, int move, uint8_t *cells) {
    int label = move & 7, k = move >> 3 & 7;
    uint32_t rank = (uint32_t)move >> 6;
    uint64_t mask[WORDS];
    label_mask(p, label, mask);
    int at = count(mask);
    for (int i = k; i >= 1; i--) { /* colex: the largest index j with C(j, i) <= rank */
        int j = i - 1;
        while (j + 1 < at && BINOMIAL[j + 1][i] <= rank) j++;
        rank -= BINOMIAL[j][i];
        cells[i - 1] = (uint8_t)nth_cell(mask, j);
        at = j;
    }
    return k;
}

/* One colour's groups seen from the empty cells (moves._Groups). */
typedef struct {
    int n;
    int sizes[MAX_CELLS];
    int16_t group[MAX_CELLS];
} colour;

/* The groups each cell touches, distinct, into out; returns how many. */
static int touching(const geometry *g, const colour *col, int cell, int16_t *out) {
    int n = 0;
    for (int d = 0; d < g->nb_count[cell]; d++) {
        int id = col->group[g->nb[cell][d]];
        if (id < 0) continue;
        int seen = 0;
        for (int i = 0; i < n; i++) seen |= out[i] == id;
        if (!seen) out[n++] = (int16_t)id;
    }
    return n;
}

/* The size of the group a cell would make with the groups ids (n of them) it touches, squared, less their
 * squares: how much the sum of squared group sizes grows. */
static int single_gain(const colour *col, const int16_t *ids, int n) {
    int total = 1, squares = 0;
    for (int i = 0; i < n; i++) {
        total += col->sizes[ids[i]];
        squares += col->sizes[ids[i]] * col->sizes[ids[i]];
    }
    return total * total - squares;
}

typedef struct {
    const geometry *g;
    colour own, their;
    int16_t own_touch[MAX_CELLS][6]; /* touching(own) of each empty cell, read by every cover scored */
    uint8_t own_touching[MAX_CELLS];
    double extra[MAX_CELLS];  /* beyond own growth: denial and room */
    double stat[MAX_CELLS];   /* a single cell's whole value */
} scorer;

static void scorer_init(scorer *sc, const st_state *p) {
    const geometry *g = geo(p);
    sc->g = g;
    const uint64_t *own = p->to_move == 1 ? p->black : p->white, *their = p->to_move == 1 ? p->white : p->black;
    sc->own.n = find_groups(g, own, sc->own.group, sc->own.sizes);
    sc->their.n = find_groups(g, their, sc->their.group, sc->their.sizes);
    uint64_t empty[WORDS];
    empty_mask(p, empty);
    for (int cell = 0; cell < g->size; cell++) {
        if (!has(empty, cell)) continue;
        int16_t their[6];
        int n = touching(g, &sc->their, cell, their), block = single_gain(&sc->their, their, n) - 1;
        n = touching(g, &sc->own, cell, sc->own_touch[cell]);
        sc->own_touching[cell] = (uint8_t)n;
        int room = 0;
        for (int d = 0; d < g->nb_count[cell]; d++) room += has(empty, g->nb[cell][d]);
        int centre = p->side - 1 - g->ring[cell];
        sc->extra[cell] = BLOCK_WEIGHT * block + ROOM_WEIGHT * room + CENTRE_WEIGHT * centre;
        sc->stat[cell] = (double)single_gain(&sc->own, sc->own_touch[cell], n) + sc->extra[cell];
    }
}

/* Own groups joined by added cells: a union-find over the group ids, then the added cells' ids. */
typedef struct {
    int parent[MAX_CELLS + 6];
    int size[MAX_CELLS + 6];
    uint8_t added[6];
    int n_added;
} joiner;

static void joiner_init(joiner *j, const colour *own) {
    for (int i = 0; i < own->n; i++) j->parent[i] = i, j->size[i] = own->sizes[i];
    j->n_added = 0;
}

static int root(joiner *j, int i) {
    while (j->parent[i] != i) i = j->parent[i] = j->parent[j->parent[i]];
    return i;
}

/* The components cell would join, distinct, into out; returns how many. */
static int join_roots(joiner *j, const scorer *sc, int cell, int *out) {
    const geometry *g = sc->g;
    const int16_t *ids = sc->own_touch[cell];
    int n = sc->own_touching[cell], r = 0;
    for (int i = 0; i < n + j->n_added; i++) {
        int id;
        if (i < n) {
            id = root(j, ids[i]);
        } else {
            int other = j->added[i - n];
            if (!has(g->nb_mask[cell].w, other)) continue;
            id = root(j, sc->own.n + i - n);
        }
        int seen = 0;
        for (int k = 0; k < r; k++) seen |= out[k] == id;
        if (!seen) out[r++] = id;
    }
    return r;
}

static int marginal(joiner *j, const scorer *sc, int cell) {
    int roots[12], n = join_roots(j, sc, cell, roots), total = 1, squares = 0;
    for (int i = 0; i < n; i++) total += j->size[roots[i]], squares += j->size[roots[i]] * j->size[roots[i]];
    return total * total - squares;
}

static int join(joiner *j, const scorer *sc, int cell) {
    int roots[12], n = join_roots(j, sc, cell, roots), total = 1, squares = 0;
    int id = sc->own.n + j->n_added;
    for (int i = 0; i < n; i++) total += j->size[roots[i]], squares += j->size[roots[i]] * j->size[roots[i]];
    j->parent[id] = id;
    j->size[id] = total;
    for (int i = 0; i < n; i++) j->parent[roots[i]] = id;
    j->added[j->n_added++] = (uint8_t)cell;
    return total * total - squares;
}

/* _MoveScorer.score: own growth of the whole set plus each cell's extra (cells ascending). */
static double score(const scorer *sc, const uint8_t *cells, int k) {
    joiner j;
    joiner_init(&j, &sc->own);
    int grown = 0;
    for (int i = 0; i < k; i++) grown += join(&j, sc, cells[i]);
    double extra = 0.0;
    for (int i = 0; i < k; i++) extra += sc->extra[cells[i]];
    return (double)grown + extra;
}

static int ascending(const void *a, const void *b) { return *(const uint8_t *)a - *(const uint8_t *)b; }

/* _MoveScorer.build: a cover of size cells from pool, stone by stone by the best marginal score. */
static void build(const scorer *sc, const uint8_t *pool, int n_pool, int size, int first, uint8_t *out) {
    joiner j;
    joiner_init(&j, &sc->own);
    if (first >= 0) join(&j, sc, first);
    while (j.n_added < size) {
        double best = -INFINITY;
        int best_cell = -1;
        for (int i = 0; i < n_pool; i++) {
            int cell = pool[i], taken = 0;
            for (int a = 0; a < j.n_added; a++) taken |= j.added[a] == cell;
            if (taken) continue;
            double value = (double)marginal(&j, sc, cell) + sc->extra[cell];
            if (value > best) best = value, best_cell = cell;
        }
        join(&j, sc, best_cell);
    }
    memcpy(out, j.added, (size_t)size);
    qsort(out, (size_t)size, 1, ascending);
}

typedef struct {
    double score;
    int label;
    int k;
    uint8_t cells[6];
} candidate;

/* (score, cells) descending, as Python sorts (score, move) tuples with reverse=True. */
static int by_score_then_cells(const candidate *a, const candidate *b) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    for (int i = 0; i < a->k && i < b->k; i++)
        if (a->cells[i] != b->cells[i]) return a->cells[i] > b->cells[i] ? -1 : 1;
    return b->k - a->k;
}

/* Stable insertion sort by score descending (Python's sort with reverse=True keeps equal keys in order). */
static void sort_by_score(candidate *c, int n) {
    for (int i = 1; i < n; i++) {
        candidate x = c[i];
        int j = i - 1;
        while (j >= 0 && c[j].score < x.score) c[j + 1] = c[j], j--;
        c[j + 1] = x;
    }
}

static int next_combination(int *combo, int k, int n) {
    int i = k - 1;
    while (i >= 0 && combo[i] == n - k + i) i--;
    if (i < 0) return 0;
    combo[i]++;
    for (int j = i + 1; j < k; j++) combo[j] = combo[j - 1] + 1;
    return 1;
}

static int same_cells(const candidate *a, const candidate *b) {
    return a->k == b->k && memcmp(a->cells, b->cells, (size_t)a->k) == 0;
}

/* The best PER_LABEL of a label's capped candidates (moves.candidate_moves' loop body), appended to out. */
static int label_candidates(const scorer *sc, const cover_group *grp, candidate *out) {
    candidate found[POOL + 2];
    int n_found = 0, n = grp->n, high = grp->high;
    if (BINOMIAL[n][high] <= PER_LABEL) {
        int combo[6];
        for (int i = 0; i < high; i++) combo[i] = i;
        do {
            candidate *c = &found[n_found++];
            c->k = high;
            for (int i = 0; i < high; i++) c->cells[i] = grp->cells[combo[i]];
        } while (next_combination(combo, high, n));
    } else {
        /* the cells by single-cell value, stable */
        uint8_t order[MAX_CELLS];
        memcpy(order, grp->cells, (size_t)n);
        for (int i = 1; i < n; i++) {
            uint8_t x = order[i];
            int j = i - 1;
            while (j >= 0 && sc->stat[order[j]] < sc->stat[x]) order[j + 1] = order[j], j--;
            order[j + 1] = x;
        }
        if (high == 1) {
            for (int i = 0; i < PER_LABEL; i++) {
                found[n_found].k = 1;
                found[n_found++].cells[0] = order[i];
            }
        } else {
            int n_pool = n < POOL ? n : POOL;
            for (int f = -1; f < n_pool && n_found < PER_LABEL; f++) {
                candidate *c = &found[n_found];
                c->k = high;
                build(sc, order, n_pool, high, f < 0 ? -1 : order[f], c->cells);
                int dup = 0;
                for (int i = 0; i < n_found; i++) dup |= same_cells(&found[i], c);
                if (!dup) n_found++;
            }
        }
    }
    for (int i = 0; i < n_found; i++) {
        found[i].label = grp->label;
        found[i].score = score(sc, found[i].cells, found[i].k);
    }
    for (int i = 1; i < n_found; i++) { /* (score, cells) descending; all distinct */
        candidate x = found[i];
        int j = i - 1;
        while (j >= 0 && by_score_then_cells(&found[j], &x) > 0) found[j + 1] = found[j], j--;
        found[j + 1] = x;
    }
    int keep = n_found < PER_LABEL ? n_found : PER_LABEL;
    memcpy(out, found, (size_t)keep * sizeof(candidate));
    return keep;
}

/* position.search_moves: the full covers, best first by the scorer; all of them when there are at most
 * CANDIDATE_CAP, else a capped set built stone by stone (moves.candidate_moves). */
static int st_moves(const void *s, int *out, int solving) {
    (void)solving;
    const st_state *p = s;
    cover_group groups[6];
    scorer sc;
    int n_groups = move_groups(p, groups);
    if (!n_groups) return 0;
    scorer_init(&sc, p);
    uint64_t full = 0;
    for (int i = 0; i < n_groups; i++) full += BINOMIAL[groups[i].n][groups[i].high];
    candidate ranked[6 * PER_LABEL > CANDIDATE_CAP ? 6 * PER_LABEL : CANDIDATE_CAP];
    int n = 0;
    if (full <= CANDIDATE_CAP) {
        for (int g = 0; g < n_groups; g++) {
            const cover_group *grp = &groups[g];
            int combo[6], high = grp->high;
            for (int i = 0; i < high; i++) combo[i] = i;
            do {
                candidate *c = &ranked[n++];
                c->label = grp->label;
                c->k = high;
                for (int i = 0; i < high; i++) c->cells[i] = grp->cells[combo[i]];
                c->score = score(&sc, c->cells, high);
            } while (next_combination(combo, high, grp->n));
        }
    } else {
        for (int g = 0; g < n_groups; g++) n += label_candidates(&sc, &groups[g], ranked + n);
    }
    sort_by_score(ranked, n);
    if (n > CANDIDATE_CAP) n = CANDIDATE_CAP;
    for (int i = 0; i < n; i++) out[i] = encode(p, ranked[i].label, ranked[i].cells, ranked[i].k);
    return n;
}

static void st_play(const void *s, int move, void *o) {
    const st_state *p = s;
    st_state *q = o;
    *q = *p;
    uint8_t cells[6];
    int k = decode(p, move, cells);
    uint64_t *stones = p->to_move == 1 ? q->black : q->white;
    for (int i = 0; i < k; i++) put(stones, cells[i]);
    uint64_t empty[WORDS];
    empty_mask(q, empty);
    q->to_move = is_zero(empty) ? 0 : 3 - p->to_move;
}

/* Each label's cells (label_mask), by label: index 0 unused. */
static void label_masks(const st_state *p, uint64_t (*out)[WORDS]) {
    for (int label = 1; label <= 6; label++) label_mask(p, label, out[label]);
}

/* The cells next to a stone of stones (each stone's neighbour mask, ORed) into out. */
static void next_to(const geometry *g, const uint64_t *stones, uint64_t *out) {
    memset(out, 0, WORDS * sizeof(uint64_t));
    for (int w = 0; w < WORDS; w++)
        for (uint64_t x = stones[w]; x; x &= x - 1) {
            const uint64_t *nb = g->nb_mask[w * 64 + __builtin_ctzll(x)].w;
            out[0] |= nb[0], out[1] |= nb[1], out[2] |= nb[2], out[3] |= nb[3];
        }
}

/* moves.playout_cover's draw: a full cover of a random label, its stones mostly next to the mover's own, into
 * cells (in the order drawn) and *label; returns how many cells, -1 when there is no move. by_label holds
 * label_masks of p (a playout's labels do not change), near_own next_to of the mover's stones. Every draw
 * comes from rng in the engine's order, so st_random_move and st_playout make the same moves. */
static int draw_cover(const st_state *p, const uint64_t (*by_label)[WORDS], const uint64_t *near_own, uint64_t *rng,
                      uint8_t *chosen, int *label_out) {
    const geometry *g = geo(p);
    uint64_t empty[WORDS], rest[WORDS], near[WORDS], masks[7][WORDS];
    empty_mask(p, empty);
    int opening = is_zero(p->black) && is_zero(p->white), labels[6], n_labels = 0;
    for (int label = 1; label <= 6; label++) {
        if (opening && label != 2) continue;
        for (int w = 0; w < WORDS; w++) masks[label][w] = by_label[label][w] & empty[w];
        if (!is_zero(masks[label])) labels[n_labels++] = label;
    }
    if (!p->to_move || !n_labels) return -1;
    int label = labels[(int)(gr_random(rng) * n_labels)];
    memcpy(rest, masks[label], sizeof rest);
    int left = count(rest), high = opening ? 1 : (label < left ? label : left), k = 0;
    *label_out = label;
    if (high == left) return cells_of(rest, chosen);
    /* the cells of rest next to the mover's stones, kept as stones are added */
    for (int w = 0; w < WORDS; w++) near[w] = rest[w] & near_own[w];
    while (k < high) {
        int n_near = count(near), cell;
        if (n_near && gr_random(rng) < PLAYOUT_NEAR)
            cell = nth_cell(near, (int)(gr_random(rng) * n_near));
        else
            cell = nth_cell(rest, (int)(gr_random(rng) * count(rest)));
        chosen[k++] = (uint8_t)cell;
        rest[cell >> 6] &= ~(1ULL << (cell & 63));
        for (int w = 0; w < WORDS; w++) near[w] = (near[w] | g->nb_mask[cell].w[w]) & rest[w];
    }
    return k;
}

/* moves.playout_cover: the drawn cover as a move. */
static int st_random_move(const void *s, uint64_t *rng) {
    const st_state *p = s;
    uint8_t chosen[6];
    uint64_t by_label[7][WORDS], near_own[WORDS];
    label_masks(p, by_label);
    next_to(geo(p), p->to_move == 1 ? p->black : p->white, near_own);
    int label, k = draw_cover(p, (const uint64_t (*)[WORDS])by_label, near_own, rng, chosen, &label);
    if (k < 0) return -1;
    qsort(chosen, (size_t)k, 1, ascending);
    return encode(p, label, chosen, k);
}

/* A whole playout in place: the moves of st_random_move and st_play in turn, without numbering each move and
 * reading it back (mcts.c; the same end for the same generator). */
static void st_playout(const void *s, uint64_t *rng, void *end) {
    st_state *q = end;
    *q = *(const st_state *)s;
    const geometry *g = geo(q);
    uint8_t chosen[6];
    uint64_t by_label[7][WORDS], near[3][WORDS]; /* near[seat]: next_to of its stones, kept as they are placed */
    label_masks(q, by_label);
    next_to(g, q->black, near[1]);
    next_to(g, q->white, near[2]);
    int label;
    while (q->to_move) {
        int seat = q->to_move, k = draw_cover(q, (const uint64_t (*)[WORDS])by_label, near[seat], rng, chosen, &label);
        if (k < 0) break; /* no cover (a layout the rules refuse): never loop */
        uint64_t *stones = seat == 1 ? q->black : q->white, empty[WORDS];
        for (int i = 0; i < k; i++) {
            put(stones, chosen[i]);
            for (int w = 0; w < WORDS; w++) near[seat][w] |= g->nb_mask[chosen[i]].w[w];
        }
        empty_mask(q, empty);
        q->to_move = is_zero(empty) ? 0 : 3 - seat;
    }
}

static int st_to_move(const void *s) { return ((const st_state *)s)->to_move; }

static uint64_t st_hash(const void *s) {
    const st_state *p = s;
    uint64_t h = (uint64_t)(p->side * 8 + p->to_move * 2 + p->exact);
    for (int w = 0; w < WORDS; w++) {
        h = (h ^ p->black[w]) * 0x9e3779b97f4a7c15ULL;
        h = (h ^ p->white[w]) * 0xbf58476d1ce4e5b9ULL;
        for (int b = 0; b < 3; b++) h = (h ^ p->plane[b][w]) * 0x94d049bb133111ebULL;
        h ^= h >> 31;
    }
    return h ^ (h >> 29);
}

/* Every turn covers at least one cell. */
static int st_plies_left(const void *s) {
    uint64_t empty[WORDS];
    empty_mask(s, empty);
    return count(empty);
}

const gr_kernel gr_strands_kernel = {
    .name = "strands",
    .state_size = sizeof(st_state),
    .to_move = st_to_move,
    .moves = st_moves,
    .play = st_play,
    .hash = st_hash,
    .evaluate = st_evaluate,
    .final_value = st_final_value,
    .plies_left = st_plies_left,
    .random_move = st_random_move,
    .playout = st_playout,
};

/* --- for the twin tests: a playout from start with the generator seeded seed, into end: st_playout's when fast,
 * else random_move and play in turn (the path mcts.c takes for a kernel without the playout hook). */
void gr_strands_playout(const void *start, uint64_t seed, int32_t fast, void *end) {
    uint64_t rng = seed;
    if (fast) {
        st_playout(start, &rng, end);
        return;
    }
    st_state a = *(const st_state *)start;
    while (a.to_move) {
        st_state b;
        st_play(&a, st_random_move(&a, &rng), &b);
        a = b;
    }
    *(st_state *)end = a;
}

/* --- for the twin tests: every legal move (the engine's stable order), and how many there are ----------- */

/* The legal moves from start (in the engine's order: label ascending, count ascending, combinations of the
 * label's empty cells in lexicographic order) into out when they are at most max; returns how many there are. */
int64_t gr_strands_legal(const void *s, int32_t *out, int64_t max) {
    const st_state *p = s;
    cover_group groups[6];
    int n_groups = move_groups(p, groups);
    int64_t total = 0, at = 0;
    for (int g = 0; g < n_groups; g++)
        for (int k = groups[g].low; k <= groups[g].high; k++) total += BINOMIAL[groups[g].n][k];
    if (total > max) return total;
    for (int g = 0; g < n_groups; g++) {
        const cover_group *grp = &groups[g];
        for (int k = grp->low; k <= grp->high; k++) {
            int combo[6];
            uint8_t cells[6];
            for (int i = 0; i < k; i++) combo[i] = i;
            do {
                for (int i = 0; i < k; i++) cells[i] = grp->cells[combo[i]];
                out[at++] = encode(p, grp->label, cells, k);
            } while (next_combination(combo, k, grp->n));
        }
    }
    return total;
}
