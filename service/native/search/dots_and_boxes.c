/* Dots and Boxes' kernel for the native search core (kernel.h): the rules of service/engines/dots_and_boxes
 * (the pie rule's setup and choice included), its search moves (the chain reductions of chains.play_moves, in
 * their order) and its evaluation (chains.estimate_rest with the long-chain rule's loony_value), operation for
 * operation. Lines are numbered as the engine numbers them (geometry.py: horizontal lines row by row, then the
 * vertical ones); a move is a line number, or one of DB_STOP, DB_KEEP, DB_SWAP for the pie rule's words.
 *
 * Proofs: the value of the rest of a game is the margin held plus a value of the lines alone, so the kernel
 * adds two hooks the core uses only when proving: bounds (the margin give or take the open boxes) and an exact
 * endgame, the simple loony endgame (every open box has two sides: loony_value at once) and, below
 * DB_MEMO_FREE undrawn lines, a small alpha-beta of its own over the lines alone with a table keyed by the
 * line set up to the board's symmetries (the Python exact solver's method, service/levels/dots_and_boxes_exact.py).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define DB_WORDS 5     /* 312 lines at most (12x12) */
#define DB_BOX_WORDS 3 /* 144 boxes at most */
#define DB_MAX_BOXES 144
#define DB_MAX_LINES 312
#define DB_STOP 1021
#define DB_KEEP 1022
#define DB_SWAP 1023
#define BLIND_SAFE_MOVES 6

enum { SETUP = 0, CHOICE = 1, PLAY = 2 };

typedef struct {
    uint64_t lines[DB_WORDS];
    uint64_t a[DB_BOX_WORDS]; /* boxes of colour A */
    uint64_t b[DB_BOX_WORDS];
    int16_t rows, cols;
    int8_t colour; /* 0 = A, 1 = B; 0 once no line remains */
    int8_t a_seat; /* the seat holding A; 0 before the pie choice */
    int8_t phase;
    int8_t to_move;
    int16_t pie; /* the pie rule's n; 0 without it */
    int16_t pad;
    int32_t pad2;
} db_state;

/* One board size's numbers: boxes, lines, the first vertical line. */
typedef struct {
    int rows, cols, boxes, lines, horizontal;
} geo;

static inline geo geo_of(const db_state *p) {
    geo g;
    g.rows = p->rows;
    g.cols = p->cols;
    g.boxes = g.rows * g.cols;
    g.horizontal = (g.rows + 1) * g.cols;
    g.lines = g.horizontal + g.rows * (g.cols + 1);
    return g;
}

static inline int has(const uint64_t *w, int i) { return (int)(w[i >> 6] >> (i & 63) & 1); }
static inline void put(uint64_t *w, int i) { w[i >> 6] |= 1ULL << (i & 63); }

/* A box's four sides (top, bottom, left, right) and the box across each (-1 at the border): box_edges. */
static inline void edges(const geo *g, int box, int *line, int *next) {
    int r = box / g->cols, c = box % g->cols, v = g->horizontal + r * (g->cols + 1) + c;
    line[0] = r * g->cols + c;
    line[1] = line[0] + g->cols;
    line[2] = v;
    line[3] = v + 1;
    next[0] = r > 0 ? box - g->cols : -1;
    next[1] = r < g->rows - 1 ? box + g->cols : -1;
    next[2] = c > 0 ? box - 1 : -1;
    next[3] = c < g->cols - 1 ? box + 1 : -1;
}

/* The boxes a line touches, in box order (line_boxes); returns how many. */
static inline int line_boxes(const geo *g, int line, int *out) {
    int n = 0;
    if (line < g->horizontal) {
        int y = line / g->cols, x = line % g->cols;
        if (y > 0) out[n++] = (y - 1) * g->cols + x;
        if (y < g->rows) out[n++] = y * g->cols + x;
    } else {
        int l = line - g->horizontal, y = l / (g->cols + 1), x = l % (g->cols + 1);
        if (x > 0) out[n++] = y * g->cols + x - 1;
        if (x < g->cols) out[n++] = y * g->cols + x;
    }
    return n;
}

static void side_counts(const geo *g, const uint64_t *lines, int *sides) {
    int line[4], next[4];
    for (int box = 0; box < g->boxes; box++) {
        edges(g, box, line, next);
        sides[box] = has(lines, line[0]) + has(lines, line[1]) + has(lines, line[2]) + has(lines, line[3]);
    }
}

/* Both boxes of the line have at most one side: drawing it gives nothing away. */
static inline int is_safe(const geo *g, const int *sides, int line) {
    int two[2], n = line_boxes(g, line, two);
    return sides[two[0]] <= 1 && sides[two[n - 1]] <= 1;
}

static inline int is_full(const geo *g, const uint64_t *lines) {
    int n = 0;
    for (int i = 0; i < DB_WORDS; i++) n += __builtin_popcountll(lines[i]);
    return n == g->lines;
}

/* --- chains and loops (chains.py) ------------------------------------------------------------------ */

/* The open side of box other than entry: _exit. */
static void exit_of(const geo *g, const uint64_t *lines, int box, int entry, int *line, int *next) {
    int l[4], n[4];
    edges(g, box, l, n);
    for (int i = 0; i < 4; i++)
        if (l[i] != entry && !has(lines, l[i])) {
            *line = l[i];
            *next = n[i];
            return;
        }
    *line = -1;
    *next = -1;
}

/* _follow: the boxes the taker can take in a row from box, the line that takes each; returns the chain's
 * length, *two_ended when it ends in another takeable box (then path has one line fewer). */
static int follow(const geo *g, const uint64_t *lines, const int *sides, int box, int *chain, int *path,
                  int *two_ended) {
    int k = 0, np = 0, line, next;
    chain[k++] = box;
    exit_of(g, lines, box, -1, &line, &next);
    path[np++] = line;
    while (1) {
        if (next < 0) break;
        int count = sides[next];
        if (count == 3) {
            chain[k++] = next;
            *two_ended = 1;
            return k;
        }
        if (count != 2) break;
        chain[k++] = next;
        exit_of(g, lines, next, line, &line, &next);
        path[np++] = line;
    }
    *two_ended = 0;
    return k;
}

/* _capture_moves: the sound reduction while boxes can be taken; -1 when every line must be tried. */
static int capture_moves(const geo *g, const uint64_t *lines, const int *sides, int *out) {
    int chain[DB_MAX_BOXES + 1], path[DB_MAX_BOXES + 1], two, long_take = -1, n = 0;
    for (int box = 0; box < g->boxes; box++) {
        if (sides[box] != 3) continue;
        int k = follow(g, lines, sides, box, chain, path, &two);
        if (k == 1 || (two && k == 2)) {
            out[0] = path[0];
            return 1;
        }
        if ((!two && k >= 3) || (two && k >= 5)) {
            long_take = path[0];
        } else if (!two || k == 4) {
            for (int i = 0; i < 2; i++) {
                int seen = 0;
                for (int j = 0; j < n; j++) seen |= out[j] == path[i];
                if (!seen) out[n++] = path[i];
            }
        } else {
            return -1;
        }
    }
    if (long_take >= 0) {
        out[0] = long_take;
        return 1;
    }
    return n;
}

typedef struct {
    int size, loop, isolated, first, second; /* boxes; the first two lines of the run along it */
} component;

/* _components, in their order: each chain or loop of open boxes with two sides, from each box not yet seen.
 * Marks the lines of isolated ones in isolated_lines and adds the sizes of the others to cost. */
static int components(const geo *g, const uint64_t *lines, const int *sides, component *found,
                      uint64_t *isolated_lines, int *cost) {
    unsigned char seen[DB_MAX_BOXES];
    int runs[2][DB_MAX_LINES + 1], run_len[2], count = 0, l[4], nx[4];
    memset(seen, 0, sizeof seen);
    for (int start = 0; start < g->boxes; start++) {
        if (sides[start] != 2 || seen[start]) continue;
        seen[start] = 1;
        int halves = 0, on_border = 0, loop = 0, boxes = 1;
        edges(g, start, l, nx);
        for (int e = 0; e < 4 && !loop; e++) {
            if (has(lines, l[e])) continue;
            int *run = runs[halves], len = 0, line = l[e], next = nx[e];
            run[len++] = line;
            while (1) {
                if (next < 0) {
                    on_border++;
                    break;
                }
                if (next == start) {
                    loop = 1;
                    break;
                }
                if (sides[next] != 2) break;
                seen[next] = 1;
                boxes++;
                exit_of(g, lines, next, line, &line, &next);
                run[len++] = line;
            }
            run_len[halves++] = len;
        }
        component *c = &found[count++];
        c->size = boxes;
        c->loop = loop;
        c->isolated = loop || on_border == 2;
        /* The run along it: the first half for a loop; the left half reversed, then the right, for a chain. */
        int all[2 * DB_MAX_LINES + 2], n = 0;
        if (loop) {
            for (int i = 0; i < run_len[0]; i++) all[n++] = runs[0][i];
        } else {
            for (int i = run_len[0] - 1; i >= 0; i--) all[n++] = runs[0][i];
            for (int i = 0; i < run_len[1]; i++) all[n++] = runs[1][i];
        }
        c->first = all[0];
        c->second = n > 1 ? all[1] : -1;
        for (int i = 0; i < n; i++) {
            if (c->isolated)
                put(isolated_lines, all[i]);
            else
                cost[all[i]] += boxes;
        }
    }
    return count;
}

/* _ordered: safe lines first, then one opening per kind of isolated chain or loop and every other line,
 * cheapest sacrifice first (by size, then line). */
static int ordered(const geo *g, const uint64_t *lines, const int *sides, int *out) {
    int n = 0, free = 0;
    for (int line = 0; line < g->lines; line++) {
        if (has(lines, line)) continue;
        free++;
        if (is_safe(g, sides, line)) out[n++] = line;
    }
    if (n == free) return n;
    component found[DB_MAX_BOXES];
    uint64_t isolated[DB_WORDS] = {0};
    int cost[DB_MAX_LINES];
    memset(cost, 0, sizeof(int) * (size_t)g->lines);
    int count = components(g, lines, sides, found, isolated, cost);
    int key[DB_MAX_LINES], which[DB_MAX_LINES], m = 0; /* (size, line) pairs of the unsafe moves */
    /* One opening per (loop, size), the first component of each kind. */
    for (int i = 0; i < count; i++) {
        component *c = &found[i];
        if (!c->isolated) continue;
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = found[j].isolated && found[j].loop == c->loop && found[j].size == c->size;
        if (dup) continue;
        key[m] = c->size;
        which[m++] = c->loop || c->size != 2 ? c->first : c->second;
    }
    for (int line = 0; line < g->lines; line++) {
        if (has(lines, line) || has(isolated, line) || is_safe(g, sides, line)) continue;
        key[m] = cost[line] ? cost[line] : 1;
        which[m++] = line;
    }
    for (int i = 1; i < m; i++) { /* insertion sort by (size, line): the pairs are distinct */
        int k = key[i], w = which[i], j = i - 1;
        while (j >= 0 && (key[j] > k || (key[j] == k && which[j] > w))) {
            key[j + 1] = key[j];
            which[j + 1] = which[j];
            j--;
        }
        key[j + 1] = k;
        which[j + 1] = w;
    }
    for (int i = 0; i < m; i++) out[n++] = which[i];
    return n;
}

/* play_moves: the search moves of regular play. */
static int play_moves(const geo *g, const uint64_t *lines, int *out) {
    int sides[DB_MAX_BOXES];
    side_counts(g, lines, sides);
    for (int box = 0; box < g->boxes; box++)
        if (sides[box] == 3) {
            int n = capture_moves(g, lines, sides, out);
            if (n >= 0) return n;
            break;
        }
    return ordered(g, lines, sides, out);
}

/* run_lengths: how many chains and loops of each length (counts indexed by length). Clobbers sides. */
static void run_lengths(const geo *g, const uint64_t *lines, int *sides, int *chains, int *loops) {
    int l[4], nx[4], l2[4], n2[4];
    for (int start = 0; start < g->boxes; start++) {
        if (sides[start] != 2) continue;
        sides[start] = 5;
        int length = 1, loop = 0;
        edges(g, start, l, nx);
        for (int e = 0; e < 4; e++) {
            if (has(lines, l[e])) continue;
            int line = l[e], next = nx[e];
            while (next >= 0 && sides[next] == 2) {
                sides[next] = 5;
                length++;
                edges(g, next, l2, n2);
                for (int i = 0; i < 4; i++)
                    if (l2[i] != line && !has(lines, l2[i])) {
                        line = l2[i];
                        next = n2[i];
                        break;
                    }
            }
            if (next == start) {
                loop = 1;
                break;
            }
        }
        (loop ? loops : chains)[length]++;
    }
}

/* loony_value: the exact margin over independent chains and loops for the player who must open one (a simple
 * loony endgame), by the same recursion, computed bottom-up over every sub-multiset (mixed radix). */
static int loony_value(const int *chains, const int *loops, int max_len) {
    int len[2 * DB_MAX_BOXES + 2], is_loop[2 * DB_MAX_BOXES + 2], count[2 * DB_MAX_BOXES + 2], types = 0;
    long weight[2 * DB_MAX_BOXES + 2], total = 1;
    for (int kind = 0; kind < 2; kind++)
        for (int l = 1; l <= max_len; l++) {
            int c = kind ? loops[l] : chains[l];
            if (!c) continue;
            len[types] = l;
            is_loop[types] = kind;
            count[types] = c;
            weight[types] = total;
            total *= c + 1;
            types++;
        }
    if (!types) return 0;
    int small[4096];
    int *dp = total <= 4096 ? small : malloc((size_t)total * sizeof(int));
    if (!dp) return 0; /* out of memory: not reached on boards of at most 144 boxes */
    int have[2 * DB_MAX_BOXES + 2];
    memset(have, 0, sizeof(int) * (size_t)types);
    dp[0] = 0;
    for (long idx = 1; idx < total; idx++) {
        /* have[] counts up in mixed radix along with idx */
        for (int t = 0; t < types; t++) {
            if (have[t] < count[t]) {
                have[t]++;
                break;
            }
            have[t] = 0;
        }
        int best = -(1 << 30);
        for (int t = 0; t < types; t++) {
            if (!have[t]) continue;
            int rest = dp[idx - weight[t]], l = len[t], v;
            if (is_loop[t]) {
                int take = -l - rest, decline = 8 - l + rest;
                v = take < decline ? take : decline;
            } else {
                v = -l - rest;
                if (l >= 3 && 4 - l + rest < v) v = 4 - l + rest;
            }
            if (v > best) best = v;
        }
        dp[idx] = best;
    }
    int value = dp[total - 1];
    if (dp != small) free(dp);
    return value;
}

/* The simple loony endgame's value of the open boxes for the side to move: every open box has two sides. */
static int loony_rest(const geo *g, const uint64_t *lines, int *sides) {
    int chains[DB_MAX_BOXES + 1] = {0}, loops[DB_MAX_BOXES + 1] = {0};
    run_lengths(g, lines, sides, chains, loops);
    return loony_value(chains, loops, g->boxes);
}

/* estimate_rest: the estimated margin the colour to move makes on the boxes not yet complete. */
static double estimate_rest(const geo *g, const uint64_t *drawn) {
    uint64_t lines[DB_WORDS];
    memcpy(lines, drawn, sizeof lines);
    int sides[DB_MAX_BOXES], chain[DB_MAX_BOXES + 1], path[DB_MAX_BOXES + 1], two, touch[2];
    side_counts(g, lines, sides);
    int gained = 0, decline = 0;
    while (1) {
        int first = -1;
        for (int box = 0; box < g->boxes && first < 0; box++)
            if (sides[box] == 3) first = box;
        if (first < 0) break;
        int k = follow(g, lines, sides, first, chain, path, &two);
        decline = !two && k >= 2 ? 4 : two && k >= 4 ? 8 : 0;
        for (int i = 0; i < k; i++) {
            int l[4], nx[4];
            edges(g, chain[i], l, nx);
            for (int s = 0; s < 4; s++) {
                if (has(lines, l[s])) continue;
                put(lines, l[s]);
                int n = line_boxes(g, l[s], touch);
                for (int j = 0; j < n; j++) sides[touch[j]]++;
            }
        }
        gained += k;
    }
    uint64_t before[DB_WORDS];
    memcpy(before, lines, sizeof lines);
    int safe_moves = 0;
    for (int line = 0; line < g->lines; line++) {
        if (has(before, line) || !is_safe(g, sides, line)) continue;
        put(lines, line);
        int n = line_boxes(g, line, touch);
        for (int j = 0; j < n; j++) sides[touch[j]]++;
        safe_moves++;
    }
    int rest = loony_rest(g, lines, sides);
    if (safe_moves & 1) rest = -rest;
    double value = (double)rest * fmax(0.0, 1.0 - (double)safe_moves / BLIND_SAFE_MOVES);
    if (gained) return (double)gained + (decline ? fmax(value, -decline - value) : value);
    return value;
}

/* --- the kernel ------------------------------------------------------------------------------------ */

static int db_to_move(const void *s) { return ((const db_state *)s)->to_move; }

static int count_bits(const uint64_t *w, int words) {
    int n = 0;
    for (int i = 0; i < words; i++) n += __builtin_popcountll(w[i]);
    return n;
}

static int free_lines(const geo *g, const db_state *p) { return g->lines - count_bits(p->lines, DB_WORDS); }

static int db_moves(const void *s, int *out, int solving) {
    (void)solving;
    const db_state *p = s;
    if (!p->to_move) return 0;
    geo g = geo_of(p);
    if (p->phase == CHOICE) {
        out[0] = DB_KEEP;
        out[1] = DB_SWAP;
        return 2;
    }
    if (p->phase == PLAY) return play_moves(&g, p->lines, out);
    int n = 0, any = 0;
    for (int line = 0; line < g.lines; line++) {
        if (has(p->lines, line))
            any = 1;
        else
            out[n++] = line;
    }
    if (any) out[n++] = DB_STOP;
    return n;
}

static void set_to_move(db_state *q, const geo *g) {
    if (q->phase == SETUP)
        q->to_move = 1;
    else if (q->phase == CHOICE)
        q->to_move = 2;
    else if (is_full(g, q->lines))
        q->to_move = 0;
    else
        q->to_move = (int8_t)(q->colour == 0 ? q->a_seat : 3 - q->a_seat);
}

static void db_play(const void *s, int move, void *o) {
    const db_state *p = s;
    db_state *q = o;
    *q = *p;
    geo g = geo_of(p);
    if (move >= DB_STOP) {
        if (move == DB_STOP) {
            q->phase = CHOICE;
            q->a_seat = 0;
        } else {
            q->phase = PLAY;
            q->a_seat = move == DB_KEEP ? 1 : 2;
        }
        set_to_move(q, &g);
        return;
    }
    put(q->lines, move);
    int touch[2], n = line_boxes(&g, move, touch), gained = 0, l[4], nx[4];
    for (int i = 0; i < n; i++) {
        edges(&g, touch[i], l, nx);
        if (has(q->lines, l[0]) && has(q->lines, l[1]) && has(q->lines, l[2]) && has(q->lines, l[3])) {
            put(q->colour ? q->b : q->a, touch[i]);
            gained = 1;
        }
    }
    if (!gained) q->colour ^= 1;
    int full = is_full(&g, q->lines);
    if (full) {
        q->colour = 0;
        if (q->phase == SETUP) q->phase = CHOICE;
    } else if (q->phase == SETUP && count_bits(q->lines, DB_WORDS) >= q->pie) {
        q->phase = CHOICE;
    }
    set_to_move(q, &g);
}

/* In regular play the key of the lines alone (with the board's size): the value of the rest of the game for
 * the seat to move depends on them alone, and db_held gives the core the margin it leaves out. In the setup and
 * the choice every field counts. */
static uint64_t db_hash(const void *s) {
    const db_state *p = s;
    uint64_t h = 0xcbf29ce484222325ULL;
    uint64_t words[DB_WORDS + 2 * DB_BOX_WORDS];
    int n = DB_WORDS;
    memcpy(words, p->lines, sizeof p->lines);
    if (p->phase != PLAY) {
        memcpy(words + DB_WORDS, p->a, sizeof p->a);
        memcpy(words + DB_WORDS + DB_BOX_WORDS, p->b, sizeof p->b);
        n += 2 * DB_BOX_WORDS;
        h ^= (uint64_t)p->colour << 40 ^ (uint64_t)p->a_seat << 44 ^ (uint64_t)(uint16_t)p->pie << 52;
    }
    h ^= (uint64_t)(uint16_t)p->rows << 8 ^ (uint64_t)(uint16_t)p->cols << 24 ^ (uint64_t)p->phase << 48;
    for (int i = 0; i < n; i++) {
        h ^= words[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 31;
    }
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 32);
}

/* The colour seat holds (before the choice: as if seat 2 kept). */
static int holds_a(const db_state *p, int seat) { return seat == (p->a_seat ? p->a_seat : 1); }

/* Boxes of A minus boxes of B. */
static int colour_margin(const db_state *p) {
    return count_bits(p->a, DB_BOX_WORDS) - count_bits(p->b, DB_BOX_WORDS);
}

static double db_final_value(const void *s, int seat) {
    const db_state *p = s;
    int diff = colour_margin(p);
    return (double)(holds_a(p, seat) ? diff : -diff);
}

/* colour_value: A's estimated final margin. */
static double colour_value(const db_state *p, const geo *g) {
    double value = (double)colour_margin(p);
    if (!is_full(g, p->lines)) {
        double rest = estimate_rest(g, p->lines);
        value += p->colour == 0 ? rest : -rest;
    }
    return value;
}

static double db_evaluate(const void *s, int seat) {
    const db_state *p = s;
    geo g = geo_of(p);
    if (p->phase != PLAY) {
        double value = fabs(colour_value(p, &g));
        return seat == 2 ? value : -value;
    }
    if (is_full(&g, p->lines)) return db_final_value(s, seat);
    double value = colour_value(p, &g);
    return holds_a(p, seat) ? value : -value;
}

/* The undrawn lines, and in the pie rule's setup the stop and the choice as well. */
static int db_plies_left(const void *s) {
    const db_state *p = s;
    if (!p->to_move) return 0;
    geo g = geo_of(p);
    return free_lines(&g, p) + (p->phase == SETUP ? 2 : p->phase == CHOICE ? 1 : 0);
}

/* The margin held, give or take every box still open (any phase: seat 2 may still swap). */
static void db_bounds(const void *s, double alpha, double beta, double *lo, double *hi) {
    (void)alpha, (void)beta; /* the bounds cost little: always both */
    const db_state *p = s;
    geo g = geo_of(p);
    int held = count_bits(p->a, DB_BOX_WORDS) + count_bits(p->b, DB_BOX_WORDS), open = g.boxes - held;
    if (p->phase != PLAY) {
        *lo = -(double)g.boxes;
        *hi = (double)g.boxes;
        return;
    }
    double margin = db_final_value(s, p->to_move);
    *lo = margin - open;
    *hi = margin + open;
}

/* The simple loony endgame, exact: every open box has two sides. */
static int db_endgame(const void *s, double alpha, double beta, double *value, uint64_t *nodes) {
    (void)alpha, (void)beta;
    const db_state *p = s;
    if (p->phase != PLAY || !p->to_move) return 0;
    geo g = geo_of(p);
    int sides[DB_MAX_BOXES];
    side_counts(&g, p->lines, sides);
    for (int box = 0; box < g.boxes; box++)
        if (sides[box] != 2 && sides[box] != 4) return 0;
    *value = db_final_value(s, p->to_move) + loony_rest(&g, p->lines, sides);
    *nodes = 1;
    return 1;
}

/* What db_hash leaves out of a value: in regular play the margin the seat to move holds. */
static double db_held(const void *s) {
    const db_state *p = s;
    return p->phase == PLAY && p->to_move ? db_final_value(s, p->to_move) : 0.0;
}

const gr_kernel gr_dots_and_boxes_kernel = {
    "dots_and_boxes", sizeof(db_state), db_to_move, db_moves, db_play, db_hash, db_evaluate, db_final_value,
    db_plies_left, db_endgame, 0, db_bounds, db_held,
};
