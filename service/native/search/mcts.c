/* UCT Monte Carlo tree search over any kernel (kernel.h), for games whose branching defeats alpha-beta (Strands).
 *
 * It is the C twin of service/search/mcts.py and keeps its semantics:
 * - selection by UCB1 on win rates (win 1, draw 1/2, loss 0, by the sign of final_value), from the point of view
 *   of the seat that made the move into each node, so seats that move twice in a row need no special case;
 * - progressive widening: a node with n visits considers only the first ceil(widening * sqrt(n)) of the
 *   kernel's moves() (best first by the game's hints); widening <= 0 opens every move at once;
 * - playouts to the end of the game with the kernel's playout hook, else its random_move (uniform over moves()
 *   without one); the final margins are averaged for the reported values;
 * - the answer: the most visited root move (ties: the better mean margin, then the kernel's order), its mean
 *   margin, the line along the most visited children, the top_n most visited root moves, each with its own line
 *   the same way; with no finished iteration, the first move valued by its child's evaluation.
 *
 * Budget: max_iterations (0: none), the search's own time limit and the caller's end (CLOCK_MONOTONIC seconds)
 * and a stop flag another thread may set; all are polled every iteration, so a stop answers with the tree so
 * far. With settle, an iteration budget also ends, every SETTLE_EVERY iterations, once the move is decided
 * (decided()): the answer's move is then the one the whole budget would give. The generator is seeded by the
 * caller: the same seed under an iteration budget gives the same answer.
 * The tree lives in arrays allocated for the call and freed at its end; once they reach max_bytes the tree
 * stops growing and the iterations go on with playouts from its leaves. A report callback, when given, gets
 * the answer so far after report_first, 2 * report_first, ... iterations (streamed analysis).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

const gr_kernel *gr_find(const char *name);
double gr_now(void);

#define PV_MAX 256
#define ALT_MAX 64
#define SETTLE_EVERY 256 /* iterations between settle's checks (service.search.mcts.SETTLE_EVERY) */

/* Why a search ended, as gr_mcts_result.stop_reason (the binding maps them to the Python words). */
enum { R_NONE = 0, R_TIME = 2, R_NODES = 3, R_CANCELLED = 4 };

typedef struct {
    uint64_t max_iterations; /* 0: none */
    double stop_at;          /* the search's own time limit; 0: none */
    double end_at;           /* the caller's end; 0: none */
    double exploration;      /* the UCB1 constant */
    double widening;         /* <= 0: every move at once */
    uint64_t seed;
    uint64_t max_bytes; /* the tree's memory bound */
    int32_t top_n;
    int32_t report_first; /* 0: no reports */
    int32_t settle;       /* non-zero: stop once the move is decided (below) */
} gr_mcts_limits;

typedef struct {
    int32_t move;
    int32_t depth; /* the deepest selection path */
    int32_t stop_reason;
    int32_t error; /* 1: unknown game, 2: game over, 3: no moves, 4: out of memory */
    double value;
    uint64_t iterations;
    int32_t pv_len;
    int32_t n_alt;
    int32_t pv[PV_MAX];
    int32_t alt_move[ALT_MAX];
    double alt_value[ALT_MAX];
    int32_t alt_exact[ALT_MAX];
    int32_t alt_pv_len[ALT_MAX];
    int32_t alt_pv[ALT_MAX][PV_MAX]; /* each alternative's own line, starting with its move (the first: pv) */
} gr_mcts_result;

typedef void (*gr_mcts_report)(const gr_mcts_result *);

typedef struct {
    int32_t move;
    int32_t mover;       /* the seat that played move (0 at the root) */
    int32_t first_child; /* -1: none */
    int32_t last_child;
    int32_t next;        /* the next sibling, -1: none */
    int32_t n_children;
    int32_t n_moves;     /* -1: not fetched yet */
    int32_t moves_at;    /* offset of its moves in the move pool */
    uint64_t visits;
    double wins;   /* sum of rewards for mover */
    double margin; /* sum of final margins for mover */
} mnode;

typedef struct {
    const gr_kernel *k;
    mnode *nodes;
    unsigned char *states;
    int32_t *pool;
    size_t n_nodes, cap_nodes, n_pool, cap_pool, bytes, max_bytes;
    int full; /* the tree reached max_bytes */
} tree;

static unsigned char *state_of(tree *t, int32_t i) { return t->states + (size_t)i * (size_t)t->k->state_size; }

/* Room for need units in *p (capacity *cap, unit bytes each, plus extra bytes per unit in *q when q is given,
 * which follows the same capacity): doubling, within the tree's bound; 0 when the bound or memory is reached. */
static int grow(tree *t, void **p, void **q, size_t *cap, size_t need, size_t unit, size_t extra) {
    if (need <= *cap) return 1;
    size_t per = unit + extra, room = (t->max_bytes > t->bytes ? t->max_bytes - t->bytes : 0) / per;
    size_t cap2 = *cap ? *cap * 2 : 1024;
    if (cap2 - *cap > room) cap2 = *cap + room;
    if (cap2 < need) return 0;
    void *a = realloc(*p, cap2 * unit);
    if (!a) return 0;
    *p = a;
    if (q) {
        void *b = realloc(*q, cap2 * extra);
        if (!b) return 0; /* *p is larger than *cap says: harmless, freed at the end */
        *q = b;
    }
    t->bytes += (cap2 - *cap) * per;
    *cap = cap2;
    return 1;
}

/* A new node (its state copied in); -1 when the tree is full. */
static int32_t add_node(tree *t, const void *state, int move, int mover) {
    if (t->full) return -1;
    if (!grow(t, (void **)&t->nodes, (void **)&t->states, &t->cap_nodes, t->n_nodes + 1, sizeof(mnode),
              (size_t)t->k->state_size))
        return t->full = 1, -1;
    int32_t i = (int32_t)t->n_nodes++;
    mnode *n = &t->nodes[i];
    memset(n, 0, sizeof *n);
    n->move = move;
    n->mover = mover;
    n->first_child = n->last_child = n->next = -1;
    n->n_moves = -1;
    memcpy(state_of(t, i), state, (size_t)t->k->state_size);
    return i;
}

/* The node's moves, fetched on its first visit; 0 when the tree is too full to hold them. */
static int fetch_moves(tree *t, int32_t i) {
    if (t->nodes[i].n_moves >= 0) return 1;
    int moves[GR_MAX_MOVES];
    int n = t->k->moves(state_of(t, i), moves, 0);
    if (!grow(t, (void **)&t->pool, NULL, &t->cap_pool, t->n_pool + (size_t)n, sizeof(int32_t), 0))
        return t->full = 1, 0;
    memcpy(t->pool + t->n_pool, moves, (size_t)n * sizeof(int32_t));
    t->nodes[i].moves_at = (int32_t)t->n_pool;
    t->nodes[i].n_moves = n;
    t->n_pool += (size_t)n;
    return 1;
}

/* Selection and expansion: the path from the root down the UCB1 choices to a new node, an end, or a leaf of a
 * full tree; returns its length. */
static int select_path(tree *t, double exploration, double widening, int32_t *path, int max_path) {
    const gr_kernel *k = t->k;
    int32_t i = 0;
    int len = 0;
    path[len++] = 0;
    while (k->to_move(state_of(t, i)) != 0 && len < max_path) {
        if (!fetch_moves(t, i)) return len;
        mnode *n = &t->nodes[i];
        int allowed = n->n_moves;
        if (widening > 0) {
            double w = ceil(widening * sqrt((double)n->visits));
            int most = w < 1 ? 1 : w > allowed ? allowed : (int)w;
            allowed = most < allowed ? most : allowed;
        }
        if (n->n_children < allowed) {
            int move = t->pool[n->moves_at + n->n_children];
            unsigned char child[GR_STATE_MAX];
            int seat = k->to_move(state_of(t, i));
            k->play(state_of(t, i), move, child);
            int32_t c = add_node(t, child, move, seat);
            if (c < 0) return len; /* full: a playout from here */
            n = &t->nodes[i];      /* the array may have moved */
            if (n->last_child >= 0)
                t->nodes[n->last_child].next = c;
            else
                n->first_child = c;
            n->last_child = c;
            n->n_children++;
            path[len++] = c;
            return len;
        }
        double scale = exploration * sqrt(log((double)n->visits)), best_u = -INFINITY;
        int32_t best = n->first_child;
        for (int32_t c = n->first_child; c >= 0; c = t->nodes[c].next) {
            const mnode *ch = &t->nodes[c];
            double u = ch->wins / (double)ch->visits + scale / sqrt((double)ch->visits);
            if (u > best_u) best_u = u, best = c;
        }
        i = best;
        path[len++] = i;
    }
    return len;
}

static void playout(const gr_kernel *k, const void *from, unsigned char *end, uint64_t *rng) {
    if (k->playout) {
        k->playout(from, rng, end);
        return;
    }
    unsigned char a[GR_STATE_MAX];
    int moves[GR_MAX_MOVES];
    memcpy(a, from, (size_t)k->state_size);
    while (k->to_move(a) != 0) {
        int move;
        if (k->random_move) {
            move = k->random_move(a, rng);
        } else {
            int n = k->moves(a, moves, 0);
            move = moves[(int)(gr_random(rng) * n)];
        }
        k->play(a, move, end);
        memcpy(a, end, (size_t)k->state_size);
    }
    memcpy(end, a, (size_t)k->state_size);
}

static void back_up(tree *t, const int32_t *path, int len, const void *end) {
    double f1 = t->k->final_value(end, 1), f2 = t->k->final_value(end, 2);
    double margins[3] = {0.0, f1, f2};
    double rewards[3] = {0.0, f1 > 0 ? 1.0 : f1 < 0 ? 0.0 : 0.5, f2 > 0 ? 1.0 : f2 < 0 ? 0.0 : 0.5};
    t->nodes[0].visits++;
    for (int i = 1; i < len; i++) {
        mnode *n = &t->nodes[path[i]];
        n->visits++;
        n->wins += rewards[n->mover];
        n->margin += margins[n->mover];
    }
}

/* Child a ranks above b: more visits, then a better mean margin (visited children only). */
static int ranks_above(const mnode *a, const mnode *b) {
    if (a->visits != b->visits) return a->visits > b->visits;
    if (!a->visits) return 0;
    return a->margin / (double)a->visits > b->margin / (double)b->visits;
}

/* A root child's line into line: its move, then the most visited child's (ranks_above), and so on while the
 * child was visited; returns its length. */
static int line_of(const tree *t, int32_t i, int32_t *line) {
    int len = 0;
    line[len++] = t->nodes[i].move;
    while (t->nodes[i].first_child >= 0 && len < PV_MAX) {
        int32_t top = t->nodes[i].first_child;
        for (int32_t c = top; c >= 0; c = t->nodes[c].next)
            if (ranks_above(&t->nodes[c], &t->nodes[top])) top = c;
        if (!t->nodes[top].visits) break;
        line[len++] = t->nodes[top].move;
        i = top;
    }
    return len;
}

static void answer(tree *t, int seat, int top_n, uint64_t iterations, int depth, gr_mcts_result *out) {
    const gr_kernel *k = t->k;
    const mnode *root = &t->nodes[0];
    out->iterations = iterations;
    out->depth = depth;
    int32_t ranked[GR_MAX_MOVES];
    int n = 0;
    for (int32_t c = root->first_child; c >= 0; c = t->nodes[c].next) { /* stable: the kernel's order on ties */
        if (!t->nodes[c].visits) continue;
        int at = n++;
        while (at > 0 && ranks_above(&t->nodes[c], &t->nodes[ranked[at - 1]])) ranked[at] = ranked[at - 1], at--;
        ranked[at] = c;
    }
    if (n > top_n) n = top_n;
    if (!n) { /* nothing finished: the first move, valued without search */
        int move = t->pool[root->moves_at];
        unsigned char child[GR_STATE_MAX];
        k->play(state_of(t, 0), move, child);
        int ended = k->to_move(child) == 0;
        double v = ended ? k->final_value(child, seat) : k->evaluate(child, seat);
        out->move = out->pv[0] = out->alt_move[0] = out->alt_pv[0][0] = move;
        out->value = out->alt_value[0] = v + 0.0;
        out->alt_exact[0] = ended;
        out->pv_len = out->n_alt = out->alt_pv_len[0] = 1;
        out->depth = 0;
        return;
    }
    const mnode *best = &t->nodes[ranked[0]];
    out->move = best->move;
    out->value = best->margin / (double)best->visits + 0.0;
    out->n_alt = n;
    for (int i = 0; i < n; i++) {
        const mnode *c = &t->nodes[ranked[i]];
        out->alt_move[i] = c->move;
        out->alt_value[i] = c->margin / (double)c->visits + 0.0;
        out->alt_exact[i] = k->to_move(state_of(t, ranked[i])) == 0;
        out->alt_pv_len[i] = line_of(t, ranked[i], out->alt_pv[i]);
    }
    out->pv_len = out->alt_pv_len[0];
    memcpy(out->pv, out->alt_pv[0], (size_t)out->pv_len * sizeof(int32_t));
}

/* Whether no root child can overtake the most visited one in the iterations left: the lead in visits over every
 * other child exceeds them (a child opened later starts at none), so the answer's move is already decided. */
static int decided(const tree *t, uint64_t left) {
    uint64_t first = 0, second = 0;
    for (int32_t c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next) {
        uint64_t v = t->nodes[c].visits;
        if (v > first)
            second = first, first = v;
        else if (v > second)
            second = v;
    }
    return first - second > left;
}

static int expired(const gr_mcts_limits *lim, volatile int32_t *stop, uint64_t iterations) {
    if (lim->max_iterations && iterations >= lim->max_iterations) return R_NODES;
    if (stop && *stop) return R_CANCELLED;
    if (lim->stop_at > 0 || lim->end_at > 0) {
        double now = gr_now();
        if (lim->stop_at > 0 && iterations > 0 && now >= lim->stop_at) return R_TIME; /* one iteration at least */
        if (lim->end_at > 0 && now >= lim->end_at) return R_CANCELLED; /* the caller's stop signal says why */
    }
    return R_NONE;
}

/* The search of the module comment from state for its seat to move; answers into out (0, or an error). */
int gr_mcts(const char *game, const void *state, const gr_mcts_limits *lim, volatile int32_t *stop,
            gr_mcts_report report, gr_mcts_result *out) {
    memset(out, 0, sizeof *out);
    const gr_kernel *k = gr_find(game);
    if (!k) return out->error = 1;
    int seat = k->to_move(state);
    if (seat == 0) return out->error = 2;
    tree t = {0};
    t.k = k;
    t.max_bytes = lim->max_bytes ? lim->max_bytes : (size_t)1 << 26;
    if (add_node(&t, state, -1, 0) < 0 || !fetch_moves(&t, 0)) {
        free(t.nodes), free(t.states), free(t.pool);
        return out->error = 4;
    }
    if (t.nodes[0].n_moves == 0) {
        free(t.nodes), free(t.states), free(t.pool);
        return out->error = 3;
    }
    int top_n = lim->top_n < 1 ? 1 : lim->top_n > ALT_MAX ? ALT_MAX : lim->top_n;
    uint64_t rng = lim->seed, iterations = 0, next_report = lim->report_first > 0 ? (uint64_t)lim->report_first : 0;
    int depth = 0, reason;
    int32_t path[PV_MAX];
    unsigned char end[GR_STATE_MAX];
    while (!(reason = expired(lim, stop, iterations))) {
        int len = select_path(&t, lim->exploration, lim->widening, path, PV_MAX);
        if (len - 1 > depth) depth = len - 1;
        playout(k, state_of(&t, path[len - 1]), end, &rng);
        back_up(&t, path, len, end);
        iterations++;
        if (lim->settle && lim->max_iterations && iterations % SETTLE_EVERY == 0 &&
            decided(&t, lim->max_iterations - iterations)) {
            reason = R_NODES;
            break;
        }
        if (report && iterations == next_report) {
            answer(&t, seat, top_n, iterations, depth, out);
            out->stop_reason = R_NONE;
            report(out);
            next_report *= 2;
        }
    }
    answer(&t, seat, top_n, iterations, depth, out);
    out->stop_reason = reason;
    free(t.nodes), free(t.states), free(t.pool);
    return 0;
}
