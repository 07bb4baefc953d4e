"""Whole games over REST, checked against small independent implementations of the rules in docs/games/,
written here.

Nothing below imports an engine: the rules are re-implemented from the game pages in a few lines each, and
every answer of the service (legal moves, seat to move, points, final stores, winner, reason) must match.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from tests.api.conftest import http


def call(url: str, game: str, verb: str, body: dict) -> dict:
    status, answer, _ = http(url, f"/v1/games/{game}:{verb}", body)
    assert status == 200, answer
    return answer


# --- Kalah (docs/games/kalah.md) ----------------------------------------------------------------------------


def kalah_sow(pits: list[int], stores: list[int], mover: int, pit: int) -> tuple[list[int], list[int], int]:
    """One move on a board given as in the service's structured form (South's pits 1..N, North's 1..N);
    returns the new pits, stores and the seat to move (0 when over)."""
    n = len(pits) // 2
    pits, stores = pits[:], stores[:]
    own = 0 if mover == 1 else n
    other = n - own
    # The ring the mover sows around: own pits, own store (None), the opponent's pits; never their store.
    ring: list[int | None] = [own + i for i in range(n)] + [None] + [other + i for i in range(n)]
    at = pit - 1
    seeds, pits[own + at] = pits[own + at], 0
    while seeds:
        at = (at + 1) % len(ring)
        hole = ring[at]
        if hole is None:
            stores[mover - 1] += 1
        else:
            pits[hole] += 1
        seeds -= 1
    last = ring[at]
    if last is not None and own <= last < own + n and pits[last] == 1:
        opposite = other + (n - 1 - (last - own))
        if pits[opposite]:
            stores[mover - 1] += pits[opposite] + 1
            pits[opposite] = pits[last] = 0
    if not any(pits[:n]) or not any(pits[n:]):
        stores[0] += sum(pits[:n])
        stores[1] += sum(pits[n:])
        return [0] * (2 * n), stores, 0
    return pits, stores, mover if last is None else 3 - mover


@pytest.mark.parametrize("seeds", [3, 4, 5])
def test_kalah_games_match_an_independent_implementation(gateway_url, seeds):
    rng = random.Random(seeds)
    for _ in range(2):
        position = call(gateway_url, "kalah", "newGame", {"options": {"seedsPerPit": seeds}})["position"]
        pits, stores, to_move = position["kalah"]["pits"], [0, 0], 1
        while to_move:
            listed = call(gateway_url, "kalah", "legalMoves", {"position": {"notation": position["notation"]}})
            own = pits[:6] if to_move == 1 else pits[6:]
            assert listed["toMove"] == to_move
            assert sorted(int(m["notation"]) for m in listed["moves"]) == [i + 1 for i in range(6) if own[i]]
            pit = rng.choice([int(m["notation"]) for m in listed["moves"]])
            applied = call(gateway_url, "kalah", "applyMove", {"position": position, "move": {"notation": str(pit)}})
            pits, stores, to_move = kalah_sow(pits, stores, to_move, pit)
            position = applied["position"]
            assert position["kalah"]["pits"] == pits and position["kalah"]["stores"] == stores
            assert applied.get("toMove", 0) == to_move and applied["gameOver"] == (to_move == 0)
        score = call(gateway_url, "kalah", "score", {"position": position})
        assert score["scores"] == stores and sum(stores) == 12 * seeds
        assert score.get("winner", 0) == (0 if stores[0] == stores[1] else 1 if stores[0] > stores[1] else 2)


# --- Petak Sawah (docs/games/petak-sawah.md) ----------------------------------------------------------------


def cell_xy(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:]) - 1


def largest_group(cells: set[tuple[int, int]]) -> int:
    best, seen = 0, set()
    for start in cells:
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            x, y = stack.pop()
            size += 1
            for step in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if step in cells and step not in seen:
                    seen.add(step)
                    stack.append(step)
        best = max(best, size)
    return best


def test_petak_sawah_games_match_an_independent_implementation(gateway_url):
    rng = random.Random(7)
    reasons = set()
    for game in range(8):
        opener = 1 + game % 2
        new = call(gateway_url, "petak-sawah", "newGame", {"options": {"opener": opener}, "seed": f"g{game}"})
        again = call(gateway_url, "petak-sawah", "newGame", {"options": {"opener": opener}, "seed": f"g{game}"})
        assert new["position"] == again["position"], "same seed, same rocks"
        position = new["position"]
        rocks = {cell_xy(c) for c in position["petakSawah"]["rocks"]}
        assert len(rocks) == 5
        owned: dict[int, set[tuple[int, int]]] = {1: set(), 2: set()}
        points, seat = {1: 0, 2: 0}, opener
        for _ in range(20):
            listed = call(gateway_url, "petak-sawah", "legalMoves", {"position": position})
            free = {(x, y) for x in range(5) for y in range(5)} - rocks - owned[1] - owned[2]
            assert {cell_xy(m["notation"]) for m in listed["moves"]} == free and listed["toMove"] == seat
            name = rng.choice(listed["moves"])["notation"]
            x, y = cell_xy(name)
            gained = sum((x + dx, y + dy) in owned[seat] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            applied = call(gateway_url, "petak-sawah", "applyMove", {"position": position, "move": {"notation": name}})
            assert [e["count"] for e in applied["events"] if e["type"] == "points"] == [gained]
            owned[seat].add((x, y))
            points[seat] += gained
            position, seat = applied["position"], 3 - seat
        score = call(gateway_url, "petak-sawah", "score", {"position": position})
        groups = {s: largest_group(owned[s]) for s in (1, 2)}
        if points[1] != points[2]:
            winner, reason = (1 if points[1] > points[2] else 2), "points"
        elif groups[1] != groups[2]:
            winner, reason = (1 if groups[1] > groups[2] else 2), "largest_group"
        else:
            winner, reason = 3 - opener, "non_opener"
        assert score["scores"] == [points[1], points[2]] and score["gameOver"]
        assert (score["winner"], score["reason"]) == (winner, reason)
        reasons.add(reason)
    assert "points" in reasons


# --- Strands (docs/games/strands.md) ------------------------------------------------------------------------


def strands_cells(labels: str) -> dict[str, tuple[int, int, int]]:
    """Cell name -> (axial q, axial r, label) of a hexhex board drawn as label rows."""
    rows = labels.split("/")
    side = (len(rows) + 1) // 2
    cells = {}
    for row_index, row in enumerate(rows):
        r = row_index - (side - 1)
        q_min = max(-(side - 1), -(side - 1) - r)
        for place, label in enumerate(row):
            cells[f"{chr(ord('a') + row_index)}{place + 1}"] = (q_min + place, r, int(label))
    return cells


def strands_groups(stones: set[str], cells: dict[str, tuple[int, int, int]]) -> list[int]:
    at = {(q, r): name for name, (q, r, _) in cells.items()}
    sizes, seen = [], set()
    for start in stones:
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            q, r, _ = cells[stack.pop()]
            size += 1
            for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
                name = at.get((q + dq, r + dr))
                if name in stones and name not in seen:
                    seen.add(name)
                    stack.append(name)
        sizes.append(size)
    return sorted(sizes, reverse=True)


def strands_winner(black: list[int], white: list[int]) -> int:
    for b, w in itertools.zip_longest(black, white, fillvalue=0):
        if b != w:
            return 1 if b > w else 2
    raise AssertionError("a hexhex board cannot tie")


@pytest.mark.parametrize("exact", [False, True])
def test_strands_counts_and_games_match_an_independent_implementation(gateway_url, exact):
    new = call(gateway_url, "strands", "newGame", {"options": {"exactCount": exact}})
    position = new["position"]
    cells = strands_cells(position["strands"]["labels"])
    assert len(cells) == 91
    opening = call(gateway_url, "strands", "applyMove", {"position": position, "move": {"notation": "f5"}})
    position = opening["position"]
    empty_by_label: dict[int, int] = {}
    for name, (_, _, label) in cells.items():
        if name != "f5":
            empty_by_label[label] = empty_by_label.get(label, 0) + 1
    if exact:
        expected = sum(math.comb(e, min(x, e)) for x, e in empty_by_label.items())
    else:
        expected = sum(math.comb(e, k) for x, e in empty_by_label.items() for k in range(1, min(x, e) + 1))
    listed = call(gateway_url, "strands", "legalMoves", {"position": position, "pageSize": 1000})
    assert listed["totalSize"] == expected and listed["toMove"] == 2 and len(listed["moves"]) == 1000
    assert {g["label"]: len(g["cells"]) for g in listed["moveSpace"]} == empty_by_label

    # A random game to the end: the winner is the independent group-size comparison's.
    rng = random.Random(int(exact))
    stones: dict[int, set[str]] = {1: {"f5"}, 2: set()}
    seat = 2
    while True:
        empty = [n for n in cells if n not in stones[1] | stones[2]]
        if not empty:
            break
        label = rng.choice(sorted({cells[n][2] for n in empty}))
        choices = [n for n in empty if cells[n][2] == label]
        most = min(label, len(choices))
        chosen = rng.sample(choices, most if exact else rng.randint(1, most))
        applied = call(
            gateway_url, "strands", "applyMove", {"position": position, "move": {"notation": ",".join(chosen)}}
        )
        stones[seat] |= set(chosen)
        position, seat = applied["position"], 3 - seat
        assert applied.get("toMove", 0) == (seat if len(stones[1]) + len(stones[2]) < 91 else 0)
    score = call(gateway_url, "strands", "score", {"position": position})
    black, white = strands_groups(stones[1], cells), strands_groups(stones[2], cells)
    assert score["winner"] == strands_winner(black, white) and score["reason"] == "group_sizes"
    assert [g["sizes"] for g in score["groupSizes"]] == [black, white]


def test_strands_hard_answers_within_the_callers_deadline(gateway_url):
    position = call(gateway_url, "strands", "newGame", {})["position"]
    position = call(gateway_url, "strands", "applyMove", {"position": position, "move": {"notation": "e5"}})["position"]
    status, answer, _ = http(
        gateway_url,
        "/v1/games/strands:bestMove",
        {"position": position, "level": "hard"},
        headers={"Grpc-Timeout": "4S"},
    )
    assert status == 200, answer
    assert answer["level"] == "hard" and len(answer["move"]["strands"]["cells"]) >= 1
