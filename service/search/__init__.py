"""Game-independent search: the algorithms every level composes, over the engine contract alone.

Engines supply move generation (``search_moves``, ``play``), evaluation (``evaluate``, ``final_value``) and
hints (``service/core/contract.py``); this package supplies the algorithms and the single limits/stop
mechanism. Which algorithm, evaluation and budget a level of a game uses is ``service/levels``' business.

``search(position, limits, *, stop=never, top_n=1, rng=None, evaluate=None, ...) -> SearchResult``
    Iterative-deepening negamax alpha-beta with a transposition table (``alphabeta.py`` for the root and the
    iterations, ``tree.py`` for the node search). Seats that move twice in a row (Kalah extra turns, Dots and
    Boxes boxes, Reversi passes) need no care: the sign of a child's value flips only when the seat to move
    changes. Honours ``limits`` (time, depth, nodes) and ``stop()``; always returns the best move of the last
    completed iteration (or the first ordered move when not even depth 1 finished). A result is ``exact``
    when the last iteration reached only finished games (no heuristic leaf) over complete move lists, then
    ``value`` is the proved final margin. ``evaluate(position, seat)`` overrides ``position.evaluate``.
    ``top_n`` > 1 scores that many root moves with full windows (multi-PV) into ``alternatives``. Optional
    keywords: ``tt_size`` (table entries, default 250 000; 0 disables the table), ``aspiration`` (first root
    window half-width in the game's units, default 2.0; 0 disables aspiration windows), ``solve=True`` with
    ``solve_lead`` (after that many shallow iterations, one straight to the end of the game, bounded by the
    engine's ``plies_left()``), and ``plugins`` (``plugins.py``: an endgame solver, a faster subtree search).

``mcts(position, limits, *, stop=never, top_n=1, rng=None, rollout=None) -> SearchResult``
    UCT Monte Carlo tree search over ``search_moves`` (``mcts.py``) for games whose branching defeats
    alpha-beta. ``rollout(position, rng) -> Move`` picks playout moves (default: uniform over
    ``search_moves``). Values are mean outcomes mapped to the game's units. ``max_nodes`` counts iterations
    (default 1000 when neither nodes nor time is limited). Optional keywords: ``exploration`` (UCB1 constant,
    default 0.7) and ``widening`` (progressive widening: a node with n visits opens the first
    ceil(widening*sqrt(n)) of its ``search_moves``; default 2.0; None = all).

``greedy(position, key, rng, top_n=1) -> SearchResult``
    One-ply choice: the move maximising ``key(position, move)`` with seeded random tie-breaks
    (``greedy.py``); ``stop_reason`` "rule". Optional keyword ``moves`` (default ``position.search_moves()``).

``Deadline(limits, stop)`` (``deadline.py``): the one stop mechanism; ``deadline.expired(nodes)`` is cheap
enough to poll every node (it reads the clock only every few hundred calls) and remembers why it stopped
(``reason``: "nodes", "time", "cancelled", or the non-empty string a ``stop()`` returned instead of True,
e.g. "deadline"). A Deadline is itself a stop signal, so searches nest under one.

Streamed analysis: a stop signal with an ``on_iteration`` attribute (a callable) has it called with a partial
SearchResult (the answer so far; ``stop_reason`` empty) after every completed iteration: by ``search`` after
each depth, by ``mcts`` after 64, 128, 256... iterations. It travels down with the stop signal through every
Deadline (``Deadline.on_iteration``; a caller's own Deadline too) to every search below it; ``greedy`` has no
iterations.
"""

from service.search.alphabeta import search
from service.search.deadline import Deadline, never
from service.search.greedy import greedy, static_value
from service.search.mcts import mcts
from service.search.plugins import NO_PLUGINS, Plugins

__all__ = ["NO_PLUGINS", "Deadline", "Plugins", "greedy", "mcts", "never", "search", "static_value"]
