"""The native search engine (``service/native``) against its targets, each printed met/missed with a ratio
against the Python search measured in the same run (``python -m bench.native``):

- Reversi, FFO endgame test positions #40-#49 (20-26 empties) proved exact, #40-#44 each within 10 CPU seconds
  of one core and all ten within 110 in all, none slower than before (``BEFORE_S``), as expert proves them (its
  learned evaluation, the shipped weights, orders the proof far from the end); the proved value and the best
  move must be the published ones (a wrong one fails the run).
- Reversi, the best move on at least 8 of FFO #40-#49 with 1 s per position by expert as the service runs it (a
  caller's second: its learned evaluation, multi-ProbCut, a proof where the time allows); beside it the plain
  native search (iterative deepening, the hand-written evaluation) and the Python search with one second of one
  core each as a node budget, each search's nodes per CPU second measured in the same run.
- Nodes per CPU second of the native search and of the Python search on the same midgame positions
  (fixed depths), at least 100 times as many.
- Kalah(6,3) from the start proved (+2 for the first player) within 10 CPU s; with ``--long``, Kalah(6,4)
  (+8) within 10 minutes, the stretch goal, with a table of ``STRETCH_TT_ENTRIES`` (the service's searches
  keep ``engine.DEFAULT_TT_ENTRIES``).
- Petak Sawah on the default board from 18 empty cells, proved within 1 CPU s each (the Python search on one
  of them as the baseline).
- Dots and Boxes, the empty 3x3 board proved (-3 for the first player) within 10 CPU s, with the Python exact
  solver's time on the same board as the baseline (not with ``--quick``).
- Strands' target (its strongest level against today's, natively) is ``python -m bench.strands_native``'s; the
  levels' cost and strength on both paths are ``python -m bench.native_levels``'s.

The FFO positions and values are the French Othello Federation's endgame test suite (published best moves
and exact disc margins; the whole board is filled in each best line, so counting empty squares for nobody,
as the rules here do, gives the same margins). Squares read a1..h1 on the top row, as this project's
notation does. ``--quick`` runs #40 only for the proofs and 3 positions at 1 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from service.core import Limits
from service.engines.dots_and_boxes import DotsAndBoxesPosition
from service.games import GAMES
from service.levels import reversi
from service.levels.dots_and_boxes_exact import ExactSolver
from service.native import engine as native
from service.search import search

REVERSI = GAMES["reversi"]
# number: (board a1..h8 with b Black, w White, . empty; side to move; exact margin; best moves)
FFO = {
    40: ("w..wwwwb.wwwwwwbwwbbwwwbwwbwwwbbwwwwwwbb...wwwwb....w..b........", "b", 38, ("a2",)),
    41: (".wwwww....wwwwb..wwwwww.bbbbbww..bbwwb..wwbwbb....wbbw...www..w.", "b", 0, ("h4",)),
    42: ("..www.......bb.wwwwwwbww.wwwwbwwb.wwwbbw...wwbww...wwwbw..wwww..", "b", 6, ("g2",)),
    43: ("..bbbbb...bbbb...wwwbb...wwbbbb..wwbbbw.wwwwbww....bwb....bbbbb.", "w", -12, ("g3", "c7")),
    44: ("..w.b.w...w.bw.w.wwbbbwwwwwwbbbwwwwwbb..bbwwbw....bbbb.....bbb..", "w", -14, ("d2", "b8")),
    45: ("...bbbb.b.bbbw..bbwbww..bbbwbw..bbwbbw...wbbbww.w.wwww......ww..", "b", 6, ("b2",)),
    46: ("...bbb....wwwb....wwwbb..wwwwbbb..wwwwbb..wbwbbb..bbww...bbbb.w.", "b", -8, ("b3",)),
    47: (".wwwww....wwww...wwwwb..bbbbbb...wbwwb..wwwbwb....wwbb....bbbb..", "w", 4, ("g2",)),
    48: (".....b..b.bbb...bbbbww..bwbwwbb.bwwbbb..bwwbb.....wwwb...bbbbbb.", "w", 28, ("f6",)),
    49: ("..wb.w....bbww..wwwwwbb.wwwwwb..wwwbwbb.wwwwbb.....wwb....b.w...", "b", 16, ("e1",)),
}
PROVE_GOAL_S = 10.0
PROVE_ALL_GOAL_S = 110.0
# The CPU seconds of each proof before the endgame's parity and stability cut-offs (these proofs at the commit
# before them, on a quiet 2-core box): no proof may be slower by more than the run-to-run spread, a tenth.
BEFORE_S = {40: 0.74, 41: 1.21, 42: 1.72, 43: 5.23, 44: 2.17, 45: 22.81, 46: 5.08, 47: 1.32, 48: 22.25, 49: 33.34}
SPREAD = 1.1
BEST_GOAL = 8
SPEED_GOAL = 100.0
# Time limits are wall-clock but the goals are CPU seconds of one core: on a busy machine a search gets less
# than a core, so its wall-clock limit is this many times its CPU goal (the CPU time is what is reported).
WALL_SLACK = 6
# Heuristic iterations before the proof: their table moves order the proof. Compare other leads on the same
# positions with ``python -m bench.native --solve-lead N`` (the proofs print their nodes and CPU seconds).
SOLVE_LEAD = 8
DOTS_GOAL_S = 10.0
DOTS_3X3_VALUE = -3.0  # the first player's value of the empty 3x3 board (3 boxes to 6)


def ffo(number: int) -> Any:
    board, side, _, _ = FFO[number]
    rows = "/".join(board[r * 8 : r * 8 + 8] for r in range(8)).upper()
    return REVERSI.parse_position(f"{rows} {1 if side == 'b' else 2} black=1")


def mark(met: bool) -> str:
    return "met" if met else "MISSED"


def prove(numbers: list[int], solve_lead: int = SOLVE_LEAD, tt_entries: int = native.DEFAULT_TT_ENTRIES) -> bool:
    print(
        f"Reversi FFO proofs (goals: #40-#44 each proved within {PROVE_GOAL_S:.0f} CPU s of one core, #40-#49 "
        f"within {PROVE_ALL_GOAL_S:.0f} CPU s in all and none slower than before the endgame work; "
        f"{solve_lead} heuristic iterations first; expert's learned evaluation)"
    )
    ok = True
    wrong = False
    total = 0.0
    for number in numbers:
        position = ffo(number)
        _, _, value, best = FFO[number]
        began = time.process_time()
        # learned: expert's table, which ``service.levels`` hands the kernel when it is imported
        result = native.search(
            position, Limits(), solve=True, solve_lead=solve_lead, learned=True, tt_entries=tt_entries
        )
        cpu = time.process_time() - began
        assert result is not None
        move = position.move_notation(result.move)
        right = result.exact and result.value == value and move in best
        wrong = wrong or not right
        total += cpu
        before = BEFORE_S[number]
        met = right and cpu <= before * SPREAD and (number > 44 or cpu <= PROVE_GOAL_S)
        ok = ok and met
        print(
            f"  #{number} ({position.empties()} empties): {result.value:+.0f} {move} exact={result.exact} "
            f"(published {value:+d} {'/'.join(best)}), {result.nodes:,} nodes, {cpu:.2f} CPU s, "
            f"{cpu / before:.2f} of before: {mark(met)}"
        )
    if len(numbers) == len(FFO):
        met = total <= PROVE_ALL_GOAL_S
        ok = ok and met
        print(
            f"  #40-#49 in all: {total:.1f} CPU s, {total / sum(BEFORE_S.values()):.2f} of before "
            f"({sum(BEFORE_S.values()):.0f} s), {total / PROVE_ALL_GOAL_S:.2f} of the goal: {mark(met)}"
        )
    if wrong:
        print("  WRONG VALUE OR MOVE: the native proof disagrees with the published one")
    return ok and not wrong


def best_at_one_second(numbers: list[int], rates: dict[str, float]) -> None:
    """Each search gets one second of one core, as a node budget: its nodes per CPU second measured above
    (a wall-clock limit would measure the machine's load instead; a budget also makes the answers
    reproducible)."""
    budgets = {name: max(1, int(rate)) for name, rate in rates.items()}
    print(
        f"Reversi FFO best move with 1 s of one core per position (goal: at least {BEST_GOAL} of 10; budgets: "
        f"native {budgets['native']:,} nodes, Python {budgets['python']:,})"
    )
    found = {"expert": 0, "native": 0, "python": 0}
    for number in numbers:
        position = ffo(number)
        best = FFO[number][3]
        row = []
        for name in ("expert", "native", "python"):
            if name == "expert":  # the strongest level as the service runs it, with a caller's second
                result: Any = reversi.expert_search(position, Limits(max_time_ms=1000), evaluate=reversi.LEARNED)
            elif name == "native":
                result = native.search(position, Limits(max_nodes=budgets[name]))
            else:
                result = search(position, Limits(max_nodes=budgets[name]))
            assert result is not None
            move = position.move_notation(result.move)
            hit = move in best
            found[name] += hit
            row.append(f"{name} {move} depth {result.depth}{' exact' if result.exact else ''} {'ok' if hit else 'no'}")
        print(f"  #{number}: " + "; ".join(row))
    goal = BEST_GOAL * len(numbers) / 10
    print(
        f"  best moves: expert {found['expert']}/{len(numbers)}, the native search {found['native']}/{len(numbers)}, "
        f"Python {found['python']}/{len(numbers)}: {mark(found['expert'] >= goal)}"
    )


def midgame(seed: int) -> Any:
    rng = random.Random(seed)
    while True:
        position: Any = REVERSI.new_position({}, "")
        while position.to_move and position.empties() > 40:
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            return position


def speed(positions: int) -> dict[str, float]:
    print(
        f"Nodes per CPU second on {positions} Reversi midgame positions (24 discs; goal: native at least "
        f"{SPEED_GOAL:.0f}x Python)"
    )
    totals = {"native": [0, 0.0], "python": [0, 0.0]}
    for seed in range(positions):
        position = midgame(seed)
        for name, depth in (("python", 5), ("native", 9)):
            began = time.process_time()
            if name == "native":
                result = native.search(position, Limits(max_depth=depth))
            else:
                result = search(position, Limits(max_depth=depth))
            assert result is not None
            totals[name][0] += result.nodes
            totals[name][1] += time.process_time() - began
    rates = {name: nodes / max(cpu, 1e-9) for name, (nodes, cpu) in totals.items()}
    ratio = rates["native"] / rates["python"]
    print(
        f"  native {rates['native']:,.0f} nodes/s (depth 9), Python {rates['python']:,.0f} nodes/s (depth 5): "
        f"{ratio:.0f}x: {mark(ratio >= SPEED_GOAL)}"
    )
    return rates


# Kalah(6,4)'s proof (the stretch goal, ``--long``) with a table of 16M entries (512 MiB; the bench prints its
# nodes and time). With the service's 2M entries (64 MiB) it did not prove it within the goal: a proof this
# size revisits far more positions than a small table holds.
STRETCH_TT_ENTRIES = 1 << 24


def kalah_proof(seeds: int, goal_s: float, value: int, tt_entries: int = native.DEFAULT_TT_ENTRIES) -> None:
    """Kalah(6, seeds) from the start, proved (solve mode: MTD(f) null windows with the store bounds) with a
    table of ``tt_entries``."""
    position = GAMES["kalah"].new_position({"seeds_per_pit": seeds}, "")
    began = time.process_time()
    limits = Limits(max_time_ms=int(goal_s * 1000 * WALL_SLACK))
    result = native.search(position, limits, solve=True, solve_lead=8, tt_entries=tt_entries)
    cpu = time.process_time() - began
    assert result is not None
    met = result.exact and result.value == value and cpu <= goal_s
    state = f"proved {result.value:+.0f}" if result.exact else f"not proved (stopped: {result.stop_reason})"
    print(
        f"Kalah(6,{seeds}) from the start (goal: proved {value:+d} within {goal_s:.0f} CPU s): {state}, "
        f"{result.nodes:,} nodes, {cpu:.1f} CPU s, a table of {tt_entries:,} entries "
        f"({tt_entries * native.TT_ENTRY_BYTES >> 20} MiB): {mark(met)}"
    )
    if result.exact and result.value != value:
        print(f"  WRONG VALUE: {result.value:+.0f}, known {value:+d}")


def petak_proofs(positions: int) -> None:
    """Petak Sawah on the default 5x5 board played down to 18 empty cells, proved natively and in Python."""
    game = GAMES["petak-sawah"]
    print(f"Petak Sawah exact from 18 empty cells (goal: each within 1 CPU s), {positions} positions")
    worst = 0.0
    for seed in range(positions):
        rng = random.Random(seed)
        position: Any = game.new_position({}, f"bench-{seed}")
        while position.to_move and position.plies_left() > 18:
            position = position.play(rng.choice(position.legal_moves()))
        began = time.process_time()
        result = native.search(position, Limits(), solve=True, solve_lead=4)
        cpu = time.process_time() - began
        assert result is not None and result.exact
        worst = max(worst, cpu)
        line = f"  seed {seed}: {result.value:+g} in {cpu:.2f} CPU s ({result.nodes:,} nodes)"
        if seed == 0:  # the Python search on one position, as the baseline (it takes minutes on more)
            began = time.process_time()
            python = search(position, Limits(max_time_ms=120_000), solve=True, solve_lead=4)
            python_cpu = time.process_time() - began
            line += f"; Python {'proved' if python.exact else 'not proved'} in {python_cpu:.1f} CPU s"
            if python.exact:
                assert python.value == result.value, "the native and Python proofs disagree"
                line += f" ({python_cpu / max(cpu, 1e-9):.0f}x the native time)"
        print(line)
    print(f"  slowest {worst:.2f} CPU s: {mark(worst <= 1.0)}")


def dots_proof(baseline: bool) -> None:
    """The empty 3x3 Dots and Boxes board proved natively (solve mode: the table net of the margin held, the
    open boxes' bounds, the loony endgame), and with the Python exact solver (``hard``'s without the native
    engine) as the baseline."""
    position = GAMES["dots-and-boxes"].new_position({"rows": 3, "cols": 3}, "")
    assert isinstance(position, DotsAndBoxesPosition)
    goal_s = DOTS_GOAL_S
    began = time.process_time()
    result = native.search(position, Limits(max_time_ms=int(goal_s * 1000 * WALL_SLACK)), solve=True)
    cpu = time.process_time() - began
    assert result is not None
    met = result.exact and result.value == DOTS_3X3_VALUE and cpu <= goal_s
    state = f"proved {result.value:+.0f}" if result.exact else f"not proved (stopped: {result.stop_reason})"
    line = (
        f"Dots and Boxes 3x3 from the empty board (goal: proved {DOTS_3X3_VALUE:+.0f} within {goal_s:.0f} CPU s): "
        f"{state}, {result.nodes:,} nodes, {cpu:.1f} CPU s"
    )
    if baseline:
        began = time.process_time()
        solver = ExactSolver(position.geometry)
        python = solver.value(position.lines)
        python_cpu = time.process_time() - began
        assert python == DOTS_3X3_VALUE, "the Python exact solver disagrees with the known value"
        line += f"; Python exact solver {python:+d} in {python_cpu:.1f} CPU s ({python_cpu / max(cpu, 1e-9):.1f}x)"
    print(f"{line}: {mark(met)}")
    if result.exact and result.value != DOTS_3X3_VALUE:
        print(f"  WRONG VALUE: {result.value:+.0f}, known {DOTS_3X3_VALUE:+.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="FFO #40 proof, 3 positions at 1 s, 3 speed positions")
    parser.add_argument("--long", action="store_true", help="also try Kalah(6,4) (the stretch goal: 10 minutes)")
    parser.add_argument(
        "--solve-lead", type=int, default=SOLVE_LEAD, help=f"heuristic iterations before each FFO proof ({SOLVE_LEAD})"
    )
    parser.add_argument(
        "--tt-entries",
        type=int,
        default=native.DEFAULT_TT_ENTRIES,
        help=f"the FFO proofs' table in entries ({native.DEFAULT_TT_ENTRIES:,}, the service's)",
    )
    args = parser.parse_args()
    if not native.available("reversi"):
        print("the native search engine is not built (make install) or GAMERULES_NO_NATIVE is set: nothing to measure")
        return 0
    ok = prove([40] if args.quick else sorted(FFO), args.solve_lead, args.tt_entries)
    rates = speed(3 if args.quick else 10)
    best_at_one_second([40, 41, 42] if args.quick else list(range(40, 50)), rates)
    kalah_proof(3, 10.0, 2)
    if args.long:
        kalah_proof(4, 600.0, 8, STRETCH_TT_ENTRIES)
    petak_proofs(3 if args.quick else 10)
    dots_proof(baseline=not args.quick)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
