/* The per-game kernel interface of the native search core (core.c).
 *
 * A kernel is a table of functions over a compact game state (a plain struct of at most GR_STATE_MAX bytes,
 * copied freely: play writes the child into a buffer of the caller). The Python binding
 * (service/native/engine.py) gets the state from the game's adapter (service/native/<game>.py), packed from an
 * engine position; the kernel never parses text.
 *
 * Conventions shared with the Python search (service/search/alphabeta.py):
 * - seats are 1 and 2; to_move is 0 once the game is over;
 * - a seat may move several times in a row (Kalah extra turns, Dots and Boxes boxes, Reversi passes that
 *   play makes itself): the core flips a child's value only when the seat to move changes;
 * - values are doubles in the game's own units (final margin), from the point of view of the seat asked;
 * - moves are non-negative ints, the kernel's own numbering (the binding maps them to engine moves): each
 *   move below GR_MOVE_RANGE has a history slot of its own; a kernel may number them up to INT_MAX (Strands'
 *   covers, by rank), and moves above the range then share history slots by a hash (core.c, history_slot).
 */
#ifndef GR_KERNEL_H
#define GR_KERNEL_H

#include <stdint.h>

#define GR_STATE_MAX 256   /* bytes of the largest state */
#define GR_MAX_MOVES 256   /* most moves a node may have */
#define GR_MOVE_RANGE 1024 /* the history table's size: a slot per move below it */
#define GR_NO_BOUND 1000   /* plies_left when the game knows no bound (the engine's None, alphabeta's _SOLVE_DEPTH) */

typedef struct gr_kernel {
    const char *name;
    int state_size;
    /* Seat to move (1, 2), 0 when the game is over. */
    int (*to_move)(const void *state);
    /* The moves the search considers, best first by the game's cheap hints, into out; returns how many.
     * solving != 0 asks for the order of an exact solve (e.g. fewest replies first), which the kernel may
     * compute differently; 0 for the engine's own search_moves order. */
    int (*moves)(const void *state, int *out, int solving);
    /* The position after a move from moves(), forced passes and the like included. */
    void (*play)(const void *state, int move, void *out);
    /* A 64-bit key of the whole state (equal states, equal keys). */
    uint64_t (*hash)(const void *state);
    /* Heuristic value for seat (the engine's evaluate), and the exact value of a finished game. */
    double (*evaluate)(const void *state, int seat);
    double (*final_value)(const void *state, int seat);
    /* At most how many plies are left (the solve mode's depth); GR_NO_BOUND when the game knows no bound. */
    int (*plies_left)(const void *state);
    /* Optional (may be NULL): the exact value of a small endgame for the seat to move, fail-soft within
     * (alpha, beta); returns 1 and fills *value and *nodes when it takes the node, 0 to let the core search
     * it. Called only in solve mode; it must stay within about a millisecond. */
    int (*endgame)(const void *state, double alpha, double beta, double *value, uint64_t *nodes);
    /* Non-zero when moves(state, out, 1) is the kernel's own proof order (Reversi: fewest replies first), which
     * the core then keeps in a proof instead of re-sorting by killers and history. */
    int solving_order;
    /* Optional (may be NULL): proved bounds on the final value for the seat to move (*lo <= value <= *hi),
     * e.g. the store margin give or take the seeds still in play; a proof cuts a node off with them. alpha and
     * beta are the window they are asked for: a kernel may skip the work of a bound that could not reach outside
     * it, and answer that bound at its widest. */
    void (*bounds)(const void *state, double alpha, double beta, double *lo, double *hi);
    /* Optional (may be NULL): the part of every value of the state (for its seat to move) that hash leaves out,
     * when the rest depends on the hashed part alone (Dots and Boxes: the box margin held, the rest on the
     * lines): the table then holds values net of it, one entry for every way of holding the same margin. */
    double (*held)(const void *state);
    /* Optional (may be NULL): a quick move for Monte Carlo playouts (mcts.c), drawn with gr_random(rng) without
     * listing every move (Strands: a full cover of a random label, grown from the mover's stones); NULL: the
     * playouts pick uniformly among moves(). The move is one play() takes, not necessarily one of moves(). */
    int (*random_move)(const void *state, uint64_t *rng);
    /* Optional (may be NULL): a whole playout from state to the end into end, making the moves random_move and
     * play would make in turn with the same generator, only faster (Strands: the stones placed in place). */
    void (*playout)(const void *state, uint64_t *rng, void *end);
    /* Optional (may be NULL): for a proof, a 64-bit key of the part of the state the rest of the game depends
     * on, and in *decided the part of the final value for the seat to move that no move changes any more
     * (Kalah: the pits, and the store margin). The value of a proved node is *decided plus a value of the key
     * alone, so the proof's table keeps that rest under this key: positions that differ only in what is
     * decided share an entry. */
    uint64_t (*proof_key)(const void *state, double *decided);
} gr_kernel;

/* The generator of the Monte Carlo search and its playouts: splitmix64, a double in [0, 1). */
static inline double gr_random(uint64_t *rng) {
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

#endif
