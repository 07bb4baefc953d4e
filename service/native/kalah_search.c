/* Depth-limited alpha-beta for Kalah: the search core's subtree plug-in for Kalah (service/levels/kalah_kernel.py).
 *
 * The rules are docs/games/kalah.md; the search is the search core's (service/search/alphabeta.py) below one
 * node, with the same depth rules and the same evaluation, so a value here is the value the core would find
 * in Python, about a hundred times faster. The core asks it through ``KalahPosition.subtree_value``; the
 * pure-Python search is the reference it is tested against (tests/games/test_kalah_native.py) and the
 * fallback when it is not built. The Makefile compiles it into service/gen/ with ``cc -O2 -shared -fPIC``.
 *
 * Boards are the engine's (service/engines/kalah/position.py): the holes in sowing order from South's pit 1,
 * ``n`` pits a side, South's store at index n, North's at 2n + 1; seat 1 is South, seat 2 North; a move is a pit number 1..n of the seat to move.
 *
 * Search rules, as in the core: negamax where a seat may move several times in a row (a child's value
 * changes sign only when the seat to move changes); a finished child is worth its final store margin for
 * the parent's seat; at depth 0 the value is ``evaluate`` (``KalahPosition.evaluate`` in the engine, term for
 * term, in the same floating-point order so that both give the same double). Fail-soft principal-variation
 * search within (alpha, beta). Every value carries a "proved" flag: true when only finished games decided it.
 *
 * The transposition table belongs to the caller (one per search, kept across the core's calls so that each
 * iteration starts from the moves the last one found); entries are keyed by a 64-bit hash of the board and
 * the seat to move (a collision is possible in principle and ignored: at 2^-64 a pair it does not happen).
 * Reentrant: no global state, since ctypes releases the GIL and several searches may run at once.
 *
 * A search gives up at a time on the monotonic clock (Python's ``time.monotonic()`` on Linux reads the same
 * clock), after a number of nodes, or when the caller's ``poll`` function says so, so that a best move answers
 * before its caller's deadline, a node budget holds and a cancelled call stops, even while the kernel runs.
 */

#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PITS 12
#define MAX_HOLES (2 * MAX_PITS + 2)
#define CLOCK_EVERY 4096 /* nodes between two reads of the clock */
#define POLL_GAP 0.01    /* seconds between two calls of ``poll``: each takes the GIL back from other threads */
#define GAVE_UP (-1)     /* what gr_kalah_search returns when it stopped at ``stop_at`` or ``max_nodes`` */
#define MAX_LINE 64      /* the longest best line reported (the search itself goes any depth) */

/* Weights of the evaluation: _FREE_WEIGHT, _CAPTURE_WEIGHT and _SIDE_WEIGHT of the engine's position.py
 * (tested equal). */
#define FREE_WEIGHT 1.0
#define CAPTURE_WEIGHT 0.5
#define SIDE_WEIGHT 1.0

enum { EXACT = 0, LOWER = 1, UPPER = 2 }; /* bound types, as in the core */

/* A table entry: the key (0: empty), the value and its bound, the depth searched, the best move, proved. */
typedef struct {
    uint64_t key;
    double value;
    int16_t depth;
    uint8_t flag;
    int8_t move; /* pit 1..n; 0: none */
    uint8_t proved;
} Entry;

typedef struct {
    int n;
    uint64_t nodes, max_nodes; /* max_nodes 0: no cap */
    uint64_t next_check;       /* the node count at which the clock is read next */
    double next_poll;          /* when ``poll`` is called next (monotonic seconds) */
    double stop_at;            /* seconds on the monotonic clock; 0: never */
    int (*poll)(void);         /* the caller's: nonzero to stop (NULL: none); asked with the clock */
    int gave_up;               /* from then on every value is meaningless */
    Entry *table;
    uint64_t mask; /* table size - 1 (a power of two) */
    /* The best line found from each ply (the triangular table of a principal-variation search): line[ply]
     * holds line_length[ply] moves, the best move at ``ply`` then line[ply + 1]. */
    int8_t line[MAX_LINE][MAX_LINE];
    int line_length[MAX_LINE];
} Search;

static double monotonic_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static uint64_t key_of(const int *b, int holes, int mover) {
    uint64_t h = 0x9E3779B97F4A7C15ULL * (uint64_t)mover;
    for (int i = 0; i < holes; i++) h = (h ^ (uint64_t)b[i]) * 0x100000001B3ULL;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return h | 1; /* never 0, the empty entry */
}

/* Play ``pit`` of ``mover`` from ``from`` into ``b``; the seat to move next, 0 when the game ended (and the
 * sweep happened). The engine's ``_sow`` then ``KalahPosition.play``. */
static int play(const int *from, int n, int mover, int pit, int *b) {
    int size = 2 * n + 2, cycle = size - 1;
    int start, first_pit, own_store, skip;
    memcpy(b, from, (size_t)size * sizeof(int));
    if (mover == 1) {
        start = pit - 1, first_pit = 0, own_store = n, skip = 2 * n + 1;
    } else {
        start = n + pit, first_pit = n + 1, own_store = 2 * n + 1, skip = n;
    }
    int seeds = b[start], i;
    b[start] = 0;
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
            if (i != skip) b[i]++, seeds--;
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
    if (south && north) return i == own_store ? mover : 3 - mover;
    b[n] += south;
    b[2 * n + 1] += north;
    for (int j = 0; j < n; j++) b[j] = 0, b[n + 1 + j] = 0;
    return 0;
}

/* The move keys of ``KalahPosition._hint_keys`` (extra << 20 | capture << 8 | pit index), sorted high to
 * low: the order of ``search_moves``. Returns how many. */
static int ordered_moves(const int *b, int n, int mover, int *keys) {
    int cycle = 2 * n + 1, base = mover == 1 ? 0 : n + 1;
    int facing = (mover == 1 ? n + 1 : 0) + n - 1;
    int count = 0;
    for (int p = 0; p < n; p++) {
        int seeds = b[base + p];
        if (!seeds) continue;
        int last = (p + seeds) % cycle, key = p;
        if (last == n) {
            key = 1 << 20 | p;
        } else if (last < n && seeds <= cycle) {
            if (seeds == cycle) {
                key = (b[facing - last] + 2) << 8 | p;
            } else if (!b[base + last]) {
                int opposite = b[facing - last] + (last < p);
                key = (opposite ? opposite + 1 : 0) << 8 | p;
            }
        }
        int j = count++;
        while (j > 0 && keys[j - 1] < key) keys[j] = keys[j - 1], j--;
        keys[j] = key;
    }
    return count;
}

/* ``KalahPosition.evaluate(mover)`` for a live position, ``mover`` to move: the same terms in the same order. */
static double evaluate(const int *b, int n, int mover) {
    int cycle = 2 * n + 1, base = mover == 1 ? 0 : n + 1, facing = mover == 1 ? 2 * n : n - 1;
    int free = 0, best = 0;
    for (int p = 0; p < n; p++) { /* KalahPosition._threats, without the move keys */
        int seeds = b[base + p];
        if (!seeds) continue;
        int last = (p + seeds) % cycle, taken;
        if (last == n) {
            free++;
            continue;
        }
        if (!(last < n && seeds <= cycle)) continue;
        if (seeds == cycle) {
            taken = b[facing - last] + 2;
        } else if (!b[base + last]) {
            int opposite = b[facing - last] + (last < p);
            taken = opposite ? opposite + 1 : 0;
        } else {
            continue;
        }
        if (taken > best) best = taken;
    }
    double tempo = FREE_WEIGHT * free + CAPTURE_WEIGHT * best;
    int south = 0, north = 0;
    for (int j = 0; j < n; j++) south += b[j], north += b[n + 1 + j];
    int total = south + north + b[n] + b[2 * n + 1];
    double weight = SIDE_WEIGHT * (1.0 - (double)(south + north) / (double)total);
    double value = (double)(b[n] - b[2 * n + 1]) + weight * (double)(south - north) + (mover == 1 ? tempo : -tempo);
    return mover == 1 ? value : -value;
}

static double final_value(const int *b, int n, int seat) {
    int diff = b[n] - b[2 * n + 1];
    return seat == 1 ? diff : -diff;
}

static void store(Search *s, uint64_t key, int depth, double value, int flag, int move, int proved) {
    Entry *e = &s->table[key & s->mask];
    e->key = key;
    e->value = value;
    e->depth = (int16_t)depth;
    e->flag = (uint8_t)flag;
    e->move = (int8_t)move;
    e->proved = (uint8_t)proved;
}

static double node(Search *s, const int *b, int mover, int depth, int ply, double alpha, double beta, int *proved);

/* The value of child ``c`` (``cs`` to move) for ``seat`` within (alpha, beta), a null window first unless
 * ``full``: the core's ``node`` loop body. */
static double child_value(Search *s, const int *c, int cs, int seat, int depth, int ply, double alpha, double beta,
                          int full, int *proved) {
    double v;
    if (ply < MAX_LINE) s->line_length[ply] = 0;
    if (cs == 0) {
        s->nodes++;
        *proved = 1;
        return final_value(c, s->n, seat);
    }
    if (cs == seat) {
        if (!full) {
            v = node(s, c, cs, depth, ply, alpha, nextafter(alpha, INFINITY), proved);
            if (!(alpha < v && v < beta)) return v;
        }
        return node(s, c, cs, depth, ply, alpha, beta, proved);
    }
    if (!full) {
        v = -node(s, c, cs, depth, ply, -nextafter(alpha, INFINITY), -alpha, proved);
        if (!(alpha < v && v < beta)) return v;
    }
    return -node(s, c, cs, depth, ply, -beta, -alpha, proved);
}

static double node(Search *s, const int *b, int mover, int depth, int ply, double alpha, double beta, int *proved) {
    int n = s->n;
    *proved = 0;
    if (ply < MAX_LINE) s->line_length[ply] = 0;
    if (s->gave_up) return 0.0;
    s->nodes++;
    if (s->max_nodes && s->nodes >= s->max_nodes) {
        s->gave_up = 1;
        return 0.0;
    }
    if (s->nodes >= s->next_check) {
        s->next_check = s->nodes + CLOCK_EVERY;
        double now = monotonic_now();
        if (s->stop_at > 0 && now >= s->stop_at) {
            s->gave_up = 1;
            return 0.0;
        }
        if (s->poll && now >= s->next_poll) {
            s->next_poll = now + POLL_GAP;
            if (s->poll()) {
                s->gave_up = 1;
                return 0.0;
            }
        }
    }
    if (depth <= 0) return evaluate(b, n, mover);

    uint64_t key = key_of(b, 2 * n + 2, mover);
    Entry *e = &s->table[key & s->mask];
    int tt_move = 0;
    if (e->key == key) {
        tt_move = e->move;
        if ((e->proved || e->depth >= depth) &&
            (e->flag == EXACT || (e->flag == LOWER ? e->value >= beta : e->value <= alpha))) {
            *proved = e->proved;
            return e->value;
        }
    }

    int keys[MAX_PITS], count = ordered_moves(b, n, mover, keys);
    int moves[MAX_PITS];
    if (!count) return evaluate(b, n, mover); /* not on a live board; the core does the same */
    for (int i = 0; i < count; i++) moves[i] = (keys[i] & 255) + 1;
    if (tt_move) { /* the table's move first, the others in order */
        for (int i = 0; i < count; i++) {
            if (moves[i] == tt_move) {
                memmove(moves + 1, moves, (size_t)i * sizeof(int));
                moves[0] = tt_move;
                break;
            }
        }
    }

    double alpha0 = alpha, best = -INFINITY;
    int best_move = moves[0], all_proved = 1;
    for (int i = 0; i < count; i++) {
        int c[MAX_HOLES], p;
        int cs = play(b, n, mover, moves[i], c);
        double v = child_value(s, c, cs, mover, depth - 1, ply + 1, alpha, beta, i == 0, &p);
        if (s->gave_up) return 0.0;
        if (v > best) {
            best = v;
            best_move = moves[i];
            if (v > alpha) {
                if (v >= beta) {
                    store(s, key, depth, v, LOWER, best_move, p);
                    *proved = p;
                    return v;
                }
                alpha = v;
                if (ply + 1 < MAX_LINE) { /* a new best line: this move, then the child's */
                    int length = ply + 1 < MAX_LINE - 1 ? s->line_length[ply + 1] : 0;
                    if (length > MAX_LINE - 1 - ply) length = MAX_LINE - 1 - ply;
                    s->line[ply][0] = (int8_t)best_move;
                    memcpy(s->line[ply] + 1, s->line[ply + 1], (size_t)length);
                    s->line_length[ply] = length + 1;
                }
            }
        }
        if (!p) all_proved = 0;
    }
    if (best <= alpha0)
        store(s, key, depth, best, UPPER, tt_move ? tt_move : best_move, all_proved);
    else
        store(s, key, depth, best, EXACT, best_move, all_proved);
    *proved = all_proved;
    return best;
}

/* The value of ``board`` (2n + 2 holes, ``mover`` to move, the game not over) searched ``depth`` plies, for
 * ``mover``, fail-soft within (alpha, beta): into ``*value`` and ``*proved``, with the nodes it took in
 * ``*nodes``. ``table`` holds ``table_size`` (a power of two) zeroed-or-reused entries of ``gr_kalah_entry_size()``
 * bytes. ``line`` receives the best line the table holds from the board (at most ``line_max`` moves, pit
 * numbers; only a value inside (alpha, beta) has one). Returns the line's length, or GAVE_UP when ``stop_at``
 * (monotonic seconds, 0: never) or ``max_nodes`` (0: no cap) was reached first, or ``poll`` (NULL: none; called
 * at most every POLL_GAP seconds, the first time after CLOCK_EVERY nodes) returned nonzero. */
int gr_kalah_search(const int32_t *board, int n, int mover, int depth, double alpha, double beta, double stop_at,
                    uint64_t max_nodes, int (*poll)(void), void *table, uint64_t table_size, uint64_t *nodes,
                    double *value, int *proved, int8_t *line, int line_max) {
    int b[MAX_HOLES], holes = 2 * n + 2;
    if (n < 1 || n > MAX_PITS || (mover != 1 && mover != 2)) return GAVE_UP;
    Search *s = calloc(1, sizeof(Search)); /* 4 kB of lines: off the stack, which the recursion needs */
    if (!s) return GAVE_UP;
    *s = (Search){
        .n = n, .max_nodes = max_nodes, .next_check = CLOCK_EVERY, .stop_at = stop_at, .poll = poll,
        .table = table, .mask = table_size - 1};
    for (int i = 0; i < holes; i++) b[i] = board[i];
    *value = node(s, b, mover, depth, 0, alpha, beta, proved);
    *nodes = s->nodes;
    int gave_up = s->gave_up, length = s->line_length[0] < line_max ? s->line_length[0] : line_max;
    if (gave_up) {
        free(s);
        return GAVE_UP;
    }
    /* The line stops where a value came from the table: go on along the table's best moves, as the core does
     * (a value inside the window has its line; past its end every entry is only as good as the table). */
    int seat = mover, c[MAX_HOLES];
    for (int i = 0; i < length; i++) {
        line[i] = s->line[0][i];
        seat = play(b, n, seat, line[i], c);
        memcpy(b, c, (size_t)holes * sizeof(int));
    }
    while (length < line_max && seat) {
        uint64_t key = key_of(b, holes, seat);
        Entry *e = &s->table[key & s->mask];
        int pit = e->move;
        if (e->key != key || e->flag == UPPER || pit < 1 || pit > n || !b[(seat == 1 ? 0 : n + 1) + pit - 1]) break;
        line[length++] = (int8_t)pit;
        seat = play(b, n, seat, pit, c);
        memcpy(b, c, (size_t)holes * sizeof(int));
    }
    free(s);
    return length;
}

int gr_kalah_entry_size(void) { return (int)sizeof(Entry); }
