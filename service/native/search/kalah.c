/* Kalah's kernel for the native search core (kernel.h): the rules of service/engines/kalah on the same
 * board layout (the holes in sowing order: South's pits 1..N, South's store, North's pits 1..N, North's store),
 * its move hints (search_moves' order) and its evaluation, operation for operation. A move is the pit
 * number 1..N of the seat to move; landing in one's own store moves again. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"

#define MAX_HOLES 26
#define FREE_WEIGHT 1.0
#define CAPTURE_WEIGHT 0.5
#define SIDE_WEIGHT 1.0
typedef struct {
    int16_t b[MAX_HOLES];
    int16_t n; /* pits per side */
    int16_t to_move;
    int16_t seeds; /* seeds per pit at the start */
    int16_t pad;
} kl_state;

static int kl_to_move(const void *s) { return ((const kl_state *)s)->to_move; }

/* The engine's _hint_keys: extra << 20 | capture << 8 | pit index, one per legal move, pit order. */
static int hint_keys(const kl_state *p, int *keys) {
    int mover = p->to_move, n = p->n, count = 0;
    if (!mover) return 0;
    const int16_t *b = p->b;
    int cycle = 2 * n + 1, base = mover == 1 ? 0 : n + 1;
    int facing = (mover == 1 ? n + 1 : 0) + n - 1;
    for (int q = 0; q < n; q++) {
        int seeds = b[base + q];
        if (!seeds) continue;
        int last = (q + seeds) % cycle;
        if (last == n) {
            keys[count++] = 1 << 20 | q;
        } else if (last < n && seeds <= cycle) {
            if (seeds == cycle) {
                keys[count++] = (b[facing - last] + 2) << 8 | q;
            } else if (!b[base + last]) {
                int opposite = b[facing - last] + (last < q);
                keys[count++] = (opposite ? opposite + 1 : 0) << 8 | q;
            } else {
                keys[count++] = q;
            }
        } else {
            keys[count++] = q;
        }
    }
    return count;
}

static int kl_moves(const void *s, int *out, int solving) {
    (void)solving;
    int keys[16], count = hint_keys(s, keys);
    for (int i = 1; i < count; i++) { /* descending keys, as the engine's sort(reverse=True) */
        int k = keys[i], j = i - 1;
        while (j >= 0 && keys[j] < k) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = k;
    }
    for (int i = 0; i < count; i++) out[i] = (keys[i] & 255) + 1;
    return count;
}

static void kl_play(const void *s, int pit, void *o) {
    const kl_state *p = s;
    kl_state *q = o;
    *q = *p;
    int16_t *b = q->b;
    int n = p->n, mover = p->to_move;
    int start, first_pit, own_store, skip;
    if (mover == 1)
        start = pit - 1, first_pit = 0, own_store = n, skip = 2 * n + 1;
    else
        start = n + pit, first_pit = n + 1, own_store = 2 * n + 1, skip = n;
    int seeds = b[start];
    b[start] = 0;
    int size = 2 * n + 2, cycle = size - 1, i;
    if (start + seeds <= own_store) {
        i = start + seeds;
        for (int j = start + 1; j <= i; j++) b[j]++;
    } else {
        i = start;
        if (seeds >= cycle) {
            int laps = seeds / cycle;
            seeds %= cycle;
            for (int j = 0; j < size; j++)
                if (j != skip) b[j] += laps;
        }
        while (seeds) {
            if (++i == size) i = 0;
            if (i != skip) {
                b[i]++;
                seeds--;
            }
        }
    }
    if (first_pit <= i && i < own_store && b[i] == 1) {
        int opposite = 2 * n - i;
        if (b[opposite]) {
            b[own_store] += b[opposite] + 1;
            b[i] = 0;
            b[opposite] = 0;
        }
    }
    int south = 0, north = 0;
    for (int j = 0; j < n; j++) south += b[j], north += b[n + 1 + j];
    if (south && north) {
        q->to_move = (int16_t)(i == own_store ? mover : 3 - mover);
        return;
    }
    b[n] += south;
    b[2 * n + 1] += north;
    for (int j = 0; j < n; j++) b[j] = b[n + 1 + j] = 0;
    q->to_move = 0;
}

static uint64_t kl_hash(const void *s) {
    const kl_state *p = s;
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)p->to_move;
    for (int i = 0; i < 2 * p->n + 2; i++) h = (h ^ (uint64_t)(uint16_t)p->b[i]) * 0x100000001b3ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
}

static double kl_final_value(const void *s, int seat) {
    const kl_state *p = s;
    int diff = p->b[p->n] - p->b[2 * p->n + 1];
    return (double)(seat == 1 ? diff : -diff);
}

static double kl_evaluate(const void *s, int seat) {
    const kl_state *p = s;
    if (!p->to_move) return kl_final_value(s, seat);
    int n = p->n, keys[16], count = hint_keys(p, keys), free = 0, best = 0;
    for (int i = 0; i < count; i++) {
        if (keys[i] >> 20)
            free++;
        else if (keys[i] > best)
            best = keys[i];
    }
    double tempo = FREE_WEIGHT * free + CAPTURE_WEIGHT * (best >> 8);
    int south = 0, north = 0;
    for (int j = 0; j < n; j++) south += p->b[j], north += p->b[n + 1 + j];
    int total = south + north + p->b[n] + p->b[2 * n + 1];
    double weight = SIDE_WEIGHT * (1.0 - (double)(south + north) / total);
    double value = (double)(p->b[n] - p->b[2 * n + 1]) + weight * (south - north) + (p->to_move == 1 ? tempo : -tempo);
    return seat == 1 ? value : -value;
}

/* Every seed still in a pit ends in one of the stores: the margin moves by at most that many. */
static void kl_bounds(const void *s, double alpha, double beta, double *lo, double *hi) {
    (void)alpha, (void)beta; /* the bounds cost little: always both */
    const kl_state *p = s;
    int n = p->n, in_play = 0;
    for (int j = 0; j < n; j++) in_play += p->b[j] + p->b[n + 1 + j];
    double margin = kl_final_value(s, p->to_move);
    *lo = margin - in_play;
    *hi = margin + in_play;
}

/* The rest of the game depends on the pits alone (the stores only add up): the mover's pits then the
 * other's, so a position and its mirror image with the other seat to move share a key; decided is the
 * mover's store margin. */
static uint64_t kl_proof_key(const void *s, double *decided) {
    const kl_state *p = s;
    int n = p->n, mine = p->to_move == 1 ? 0 : n + 1, theirs = n + 1 - mine;
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)n;
    for (int j = 0; j < n; j++) h = (h ^ (uint64_t)(uint16_t)p->b[mine + j]) * 0x100000001b3ULL;
    for (int j = 0; j < n; j++) h = (h ^ (uint64_t)(uint16_t)p->b[theirs + j]) * 0x100000001b3ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    *decided = kl_final_value(s, p->to_move);
    return h ^ (h >> 32);
}

/* Kalah has no short bound (the Python engine gives none either). */
static int kl_plies_left(const void *s) { return ((const kl_state *)s)->to_move ? GR_NO_BOUND : 0; }

const gr_kernel gr_kalah_kernel = {
    "kalah", sizeof(kl_state), kl_to_move, kl_moves, kl_play, kl_hash, kl_evaluate, kl_final_value,
    /* A proof keeps the hint order (extra turns first, then captures): history and killers, which number pits
     * from each mover's own left, order Kalah's proofs badly (Kalah(6,3), ``python -m bench.native``: proved
     * with the hints, not within many times the nodes re-sorted by history). */
    kl_plies_left, NULL, 1, kl_bounds, .proof_key = kl_proof_key,
};
