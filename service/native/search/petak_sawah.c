/* Petak Sawah's kernel for the native search core (kernel.h): the rules of service/engines/petak_sawah on
 * 64-bit cell masks (boards of at most 64 cells, the default 5x5 among them; larger boards stay on the Python
 * search), with its move order, evaluation and tie-breaks. Cell row * cols + col is bit row * cols + col. */
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

typedef struct {
    uint64_t rocks;
    uint64_t own1;
    uint64_t own2;
    int32_t rows;
    int32_t cols;
    int32_t opener;
    int32_t to_move;
} ps_state;

static inline int popcount(uint64_t x) { return __builtin_popcountll(x); }

static inline uint64_t full_mask(const ps_state *p) {
    int size = p->rows * p->cols;
    return size == 64 ? ~0ULL : (1ULL << size) - 1;
}

static uint64_t has_right(const ps_state *p) {
    uint64_t m = 0;
    for (int i = 0; i < p->rows * p->cols; i++)
        if (i % p->cols != p->cols - 1) m |= 1ULL << i;
    return m;
}

/* The engine's Board.count_slices: the cells with 0..4 orthogonal neighbours in mask. */
static void count_slices(const ps_state *p, uint64_t mask, uint64_t right, uint64_t out[5]) {
    uint64_t full = full_mask(p);
    int cols = p->cols;
    uint64_t below = mask >> cols, above = (mask << cols) & full;
    uint64_t left_of = (mask >> 1) & right, right_of = (mask & right) << 1;
    uint64_t s1 = below ^ above, c1 = below & above, s2 = left_of ^ right_of, c2 = left_of & right_of;
    uint64_t ones = s1 ^ s2, carry = s1 & s2;
    uint64_t twos = c1 ^ c2 ^ carry, fours = (c1 & c2) | ((c1 ^ c2) & carry);
    out[0] = full & ~(ones | twos | fours);
    out[1] = ones & ~twos;
    out[2] = twos & ~ones;
    out[3] = ones & twos;
    out[4] = fours;
}

static int pairs(const ps_state *p, uint64_t mask, uint64_t right) {
    return popcount(mask & (mask >> 1) & right) + popcount(mask & (mask >> p->cols));
}

static uint64_t spread(const ps_state *p, uint64_t mask, uint64_t right) {
    return (((mask & right) << 1) | ((mask >> 1) & right) | ((mask << p->cols) & full_mask(p)) | (mask >> p->cols)) &
           ~mask;
}

static int largest_group(const ps_state *p, uint64_t mask, uint64_t right) {
    int best = 0;
    uint64_t rest = mask;
    while (rest) {
        uint64_t group = rest & -rest, frontier = group;
        while (frontier) {
            frontier = spread(p, group, right) & rest & ~group;
            group |= frontier;
        }
        if (popcount(group) > best) best = popcount(group);
        rest &= ~group;
    }
    return best;
}

static inline uint64_t empty_of(const ps_state *p) { return full_mask(p) & ~(p->rocks | p->own1 | p->own2); }

static int ps_to_move(const void *s) { return ((const ps_state *)s)->to_move; }

static int ps_moves(const void *s, int *out, int solving) {
    (void)solving;
    const ps_state *p = s;
    if (!p->to_move) return 0;
    uint64_t right = has_right(p), empty = empty_of(p), heat[5], room[5];
    count_slices(p, p->own1 | p->own2, right, heat);
    count_slices(p, empty, right, room);
    int n = 0;
    for (int hot = 4; hot >= 0; hot--) {
        uint64_t bucket = heat[hot] & empty;
        if (!bucket) continue;
        for (int free = 4 - hot; free >= 0; free--) {
            uint64_t cells = bucket & room[free];
            while (cells) {
                out[n++] = __builtin_ctzll(cells);
                cells &= cells - 1;
            }
        }
    }
    return n;
}

static void ps_play(const void *s, int move, void *o) {
    const ps_state *p = s;
    ps_state *q = o;
    *q = *p;
    if (p->to_move == 1)
        q->own1 |= 1ULL << move;
    else
        q->own2 |= 1ULL << move;
    q->to_move = empty_of(q) ? 3 - p->to_move : 0;
}

static uint64_t ps_hash(const void *s) {
    const ps_state *p = s;
    uint64_t h = p->own1 * 0x9e3779b97f4a7c15ULL ^ (p->own2 + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
    h ^= (p->rocks + (uint64_t)(p->rows * 16 + p->cols) * 4 + (uint64_t)p->opener) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

static double ps_final_value(const void *s, int seat) {
    const ps_state *p = s;
    uint64_t right = has_right(p);
    int points1 = pairs(p, p->own1, right), points2 = pairs(p, p->own2, right);
    int margin = seat == 1 ? points1 - points2 : points2 - points1;
    if (margin) return (double)margin;
    int group1 = largest_group(p, p->own1, right), group2 = largest_group(p, p->own2, right);
    int winner = group1 != group2 ? (group1 > group2 ? 1 : 2) : 3 - p->opener;
    return winner == seat ? 0.5 : -0.5;
}

static double ps_evaluate(const void *s, int seat) {
    const ps_state *p = s;
    if (!p->to_move) return ps_final_value(s, seat);
    uint64_t right = has_right(p), mine[5], theirs[5], empty = empty_of(p);
    int points1 = pairs(p, p->own1, right), points2 = pairs(p, p->own2, right), margin;
    if (p->to_move == 1) {
        margin = points1 - points2;
        count_slices(p, p->own1, right, mine);
        count_slices(p, p->own2, right, theirs);
    } else {
        margin = points2 - points1;
        count_slices(p, p->own2, right, mine);
        count_slices(p, p->own1, right, theirs);
    }
    int rank = 0;
    for (int hot = 4; hot > 0; hot--) { /* the engine's _HOT_ORDER */
        for (int gm = hot; gm >= 0; gm--) {
            int gt = hot - gm;
            int count = popcount(mine[gm] & theirs[gt] & empty);
            if (count) {
                int by_mover = (count + 1 - (rank & 1)) >> 1;
                margin += by_mover * gm - (count - by_mover) * gt;
                rank += count;
            }
        }
    }
    return (double)(seat == p->to_move ? margin : -margin);
}

static int ps_plies_left(const void *s) { return popcount(empty_of(s)); }

const gr_kernel gr_petak_sawah_kernel = {
    "petak_sawah", sizeof(ps_state), ps_to_move, ps_moves, ps_play, ps_hash, ps_evaluate, ps_final_value,
    ps_plies_left, NULL, 0, NULL,
};
