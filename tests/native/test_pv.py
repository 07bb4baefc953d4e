"""The principal variation of the native search core (``core.c``'s ``principal_variation``) on every game with a
kernel, as ``tests/search/test_pv.py`` asks it of the Python search: the answer's move first, every move legal
where it is played in turn, as long as the search went (its depth, or to the end of the game), and worth the
answer's value at its end. The core keeps the line in a triangular table, with the line of each exact table
entry (a probe that answers inside its window takes it), continues it by the table's moves and, for the plies
the table leaves out near the leaves, by those plies searched again; a proof's line goes on by the moves its
proved bounds (the table's, the kernel's, the kernel's exact endgame) show best."""

from __future__ import annotations

import time

import pytest

from service.core import Limits
from service.games import BY_ID, GAMES
from service.native import engine as native
from tests.native.twins import native_games, needs
from tests.search.test_pv import check_line, endgame, midgame, midgames, played


def depth(game_id: str) -> int:
    """The native fixed-depth tests' depth for the game (some milliseconds a search): its ``checks.native_pv_depth``,
    else the Python search's."""
    checks = BY_ID[game_id].checks
    return checks.pv_depth if checks.native_pv_depth is None else checks.native_pv_depth


@pytest.mark.parametrize("game_id", native_games(sorted(GAMES)))
def test_the_line_goes_as_deep_as_the_search(game_id: str) -> None:
    for position in midgames(game_id):
        result = native.search(position, Limits(max_depth=depth(game_id)))
        assert result is not None
        check_line(position, result)


@pytest.mark.parametrize("game_id", native_games(["reversi", "kalah", "dots-and-boxes"]))
def test_a_multi_pv_search_keeps_the_best_moves_line(game_id: str) -> None:
    position = midgame(game_id, 3)
    result = native.search(position, Limits(max_depth=depth(game_id)), top_n=3)
    assert result is not None and result.alternatives[0].move == result.move
    check_line(position, result)


@pytest.mark.parametrize("game_id", native_games(["reversi", "kalah"]))
def test_the_line_needs_no_table(game_id: str) -> None:
    for position in midgames(game_id):
        result = native.search(position, Limits(max_depth=depth(game_id)), tt_entries=0)
        assert result is not None
        check_line(position, result)


@pytest.mark.parametrize(("game_id", "nodes"), [pytest.param(g, 200_000, marks=needs(g)) for g in ("reversi", "kalah")])
def test_a_deep_search_under_a_node_budget_keeps_its_whole_line(game_id: str, nodes: int) -> None:
    """Many iterations, aspiration windows failing and the table's entries met again: the line is as deep as the
    last iteration (measured on these positions; the issue's was one move long at depth 11)."""
    for position in midgames(game_id):
        result = native.search(position, Limits(max_nodes=nodes))
        assert result is not None and result.depth >= 8
        check_line(position, result)


@needs("reversi")
def test_a_timed_reversi_midgame_search_shows_a_line() -> None:
    """The issue's case, shorter: a Reversi midgame searched on the clock. Lines may fall short of a deep
    iteration's depth where exact table entries made of two bounds lost what was below them (measured at 1 s,
    depth 10-13: at most 3 moves short), never to a few moves."""
    position = midgame("reversi", 0)
    began = time.monotonic()
    result = native.search(position, Limits(max_time_ms=250))
    assert result is not None and time.monotonic() - began < 5.0
    assert result.pv[0] == result.move
    played(position, result.pv)
    if result.depth >= 6:
        assert len(result.pv) >= 4
    assert len(result.pv) >= min(result.depth, 4)


@pytest.mark.parametrize("game_id", native_games(["reversi", "kalah", "petak-sawah"]))
def test_a_proved_line_plays_to_the_end_for_the_proved_value(game_id: str) -> None:
    """Through the kernel's exact endgame too (Reversi's last empty squares: the table keeps none of them)."""
    for seed in range(3):
        position = endgame(game_id, seed, 14)
        result = native.search(position, Limits(), solve=True, solve_lead=2)
        assert result is not None and result.exact
        check_line(position, result, to_the_end=True)


@needs("dots-and-boxes")
def test_a_dots_and_boxes_proof_shows_a_legal_line() -> None:
    """Its kernel's endgame and bounds prove positions the search never plays into (no line below them): the line
    stops there, legal and the answer's."""
    for seed in range(3):
        position = endgame("dots-and-boxes", seed, 14)
        result = native.search(position, Limits(), solve=True, solve_lead=2)
        assert result is not None and result.exact
        end = played(position, result.pv)
        assert result.pv[0] == result.move and len(result.pv) >= 1
        if end.to_move == 0:
            assert end.final_value(position.to_move) == result.value
