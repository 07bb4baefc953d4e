"""Game-independent search: the one place best moves are computed.

Engines supply move generation (``search_moves``, ``play``), evaluation (``evaluate``, ``final_value``)
and hints; this package supplies the algorithms and the single limits/stop mechanism.

Public API (signatures are fixed; every game codes against them):

``search(position, limits, *, stop=never, top_n=1, rng=None, evaluate=None) -> SearchResult``
    Iterative-deepening negamax alpha-beta with a transposition table (``service/search/alphabeta.py``).
    Handles seats that move twice in a row (Kalah extra turns, Dots and Boxes boxes, Reversi passes):
    the sign of a child's value flips only when the seat to move changes. Honours ``limits`` (time,
    depth, nodes) and ``stop()``; always returns the best move of the last completed iteration (or the
    first ordered move when not even depth 1 finished). A result is ``exact`` when the last iteration
    reached only finished games (no heuristic leaf), then ``value`` is the proved final margin.
    ``evaluate(position, seat)`` overrides ``position.evaluate`` (levels with different evaluations).
    ``top_n`` > 1 scores that many root moves with full windows (multi-PV) into ``alternatives``.
    Optional keywords: ``tt_size`` (table entries, default 250 000; 0 disables the table) and ``aspiration``
    (first root window half-width in the game's units, default 2.0; 0 disables aspiration windows).
    ``solve=True`` is the solve mode, for positions near enough the end to prove: after ``solve_lead`` (default
    0) shallow iterations it leaps straight to a depth covering the rest of the game (the engine's optional
    ``plies_left()`` bound, capped by ``max_depth``; 1000 without the hook), skipping the iterations between;
    proofs, ``exact``, ``top_n`` and limits work as above (stopped before the leap finished, it answers with
    the lead's last iteration). In solve mode enhanced transposition cutoffs are off and the engine's
    optional ``endgame_value(alpha, beta, stop_at) -> (value, nodes) | None`` hook is asked first at every
    node: an exact value for the seat to move, fail-soft within the window, from the engine's own solver of
    small endgames (Reversi's last empty squares), or None to search the node as usual. The hook is not
    polled while it runs: it must give up (None) by itself once ``time.monotonic()`` reaches ``stop_at``
    (None: no time limit; the earliest end the Deadline knows, ``Deadline.end``), or stay within a few
    milliseconds. Its nodes count towards ``max_nodes`` after it returns.

``mcts(position, limits, *, stop=never, top_n=1, rng=None, rollout=None) -> SearchResult``
    UCT Monte Carlo tree search over ``search_moves`` (``service/search/mcts.py``) for games whose
    branching defeats alpha-beta. ``rollout(position, rng) -> Move`` picks playout moves (default:
    uniform over ``search_moves``). Values are mean outcomes mapped to the game's units.
    ``max_nodes`` counts iterations (default 1000 when neither nodes nor time is limited). Optional
    keywords: ``exploration`` (UCB1 constant, default 0.7) and ``widening`` (progressive widening: a node
    with n visits opens the first ceil(widening*sqrt(n)) of its ``search_moves``; default 2.0; None = all).

``greedy(position, key, rng, top_n=1) -> SearchResult``
    One-ply choice: the move maximising ``key(position, move)`` with seeded random tie-breaks
    (``service/search/levels.py``); ``stop_reason`` "rule". Optional keyword ``moves`` (default
    ``position.search_moves()``) names the candidates.

``play_level(game, position, level, limits, seed, top_n, stop, strategies) -> SearchResult``
    The shared ``Game.best_move`` driver (``service/search/levels.py``): raises GameOverError on a
    finished game and UnknownLevel for an unknown level, merges the level's default limits with the
    caller's (the caller's win where given), seeds ``random.Random(seed)``, composes the time limit
    with ``stop``, calls ``strategies[level](position, limits, rng, top_n, stop)`` and fills
    ``elapsed_ms``. A game's ``best_move`` is one call to it. ``level`` "" means the default level; limits
    that are 0 or negative (proto3's unset) count as not given; a string seed goes through ``seeded_int``.
    The ``stop`` handed to the strategy is a Deadline: pass it on to ``search``/``mcts`` as their ``stop``.

``Deadline(limits, stop)``: the one stop mechanism; ``deadline.expired()`` is cheap enough to poll every
node (it reads the clock only every few hundred calls) and remembers why it stopped (``reason``: "nodes",
"time", "cancelled", or the non-empty string a ``stop()`` returned instead of True, e.g. "deadline").
A Deadline is itself a stop signal, so searches nest under one (``play_level`` does this).

Streamed analysis: a stop signal with an ``on_iteration`` attribute (a callable) has it called with a partial
SearchResult (the answer so far; ``stop_reason`` empty) after every completed iteration: by ``search`` after
each depth, by ``mcts`` after 64, 128, 256... iterations. It travels down with the stop signal through
``play_level``'s Deadline (``Deadline.on_iteration``) to every search below it; ``greedy`` has no iterations.
"""

from service.search.alphabeta import search
from service.search.levels import Deadline, greedy, never, play_level
from service.search.mcts import mcts

__all__ = ["Deadline", "greedy", "mcts", "never", "play_level", "search"]
