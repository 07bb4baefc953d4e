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

``mcts(position, limits, *, stop=never, top_n=1, rng=None, rollout=None) -> SearchResult``
    UCT Monte Carlo tree search over ``search_moves`` (``service/search/mcts.py``) for games whose
    branching defeats alpha-beta. ``rollout(position, rng) -> Move`` picks playout moves (default:
    uniform over ``search_moves``). Values are mean outcomes mapped to the game's units.

``greedy(position, key, rng, top_n=1) -> SearchResult``
    One-ply choice: the move maximising ``key(position, move)`` with seeded random tie-breaks
    (``service/search/levels.py``); ``stop_reason`` "rule".

``play_level(game, position, level, limits, seed, top_n, stop, strategies) -> SearchResult``
    The shared ``Game.best_move`` driver (``service/search/levels.py``): raises GameOverError on a
    finished game and UnknownLevel for an unknown level, merges the level's default limits with the
    caller's (the caller's win where given), seeds ``random.Random(seed)``, composes the time limit
    with ``stop``, calls ``strategies[level](position, limits, rng, top_n, stop)`` and fills
    ``elapsed_ms``. A game's ``best_move`` is one call to it.

``Deadline(limits, stop)``: the one stop mechanism; ``deadline.expired()`` is cheap enough to poll every
node (it reads the clock only every few hundred calls) and remembers why it stopped.
"""

from service.search.alphabeta import search
from service.search.levels import Deadline, greedy, never, play_level
from service.search.mcts import mcts

__all__ = ["Deadline", "greedy", "mcts", "never", "play_level", "search"]
