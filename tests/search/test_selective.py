"""Multi-ProbCut (``service/core/selectivity.py``) in the Python search: the model's rule and file, and the
search's promises at their edges: no check below the model's least depth, none in a proof (solve mode, or a node
searched to the end of the game), fewer nodes where it checks, the same answer for the same node budget."""

from __future__ import annotations

import json

import pytest

from service.core import Limits
from service.core.selectivity import FIELDS, MAX_DEPTH, Selectivity, shallow_depth
from service.games import GAMES
from service.levels import reversi
from service.search import search
from tests.games.test_reversi_endgame import played as late

MODEL = reversi.SELECTIVITY
GAME = GAMES["reversi"]


def test_the_shallow_depth_is_a_quarter_twice_of_the_same_parity() -> None:
    assert [shallow_depth(d) for d in range(3, 15)] == [1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6]


def test_no_node_is_checked_below_the_least_depth() -> None:
    assert MODEL.check(30, MODEL.min_depth - 1) is None
    assert MODEL.check(30, 0) is None
    found = MODEL.check(30, MODEL.min_depth)
    assert found is not None and found[0] == shallow_depth(MODEL.min_depth) and found[3] > 0


def test_the_cores_rows_are_the_checks() -> None:
    rows = MODEL.table(66)
    assert len(rows) == 66 * MAX_DEPTH * FIELDS
    for stage, depth in ((0, 0), (13, 2), (13, 3), (40, 9), (65, 63)):
        at = (stage * MAX_DEPTH + depth) * FIELDS
        found = MODEL.check(stage, depth)
        assert tuple(rows[at : at + FIELDS]) == (found if found is not None else (0.0, 0.0, 0.0, 0.0))


def test_the_margin_grows_with_the_width() -> None:
    narrow, wide = MODEL.with_width(1.0).check(40, 8), MODEL.with_width(2.0).check(40, 8)
    assert narrow is not None and wide is not None and wide[3] == pytest.approx(2 * narrow[3])


def test_the_shipped_model_reads_back_and_says_how_it_was_made() -> None:
    data = json.loads(reversi.SELECTIVITY_FILE.read_text())
    assert Selectivity.from_json(data) == MODEL
    assert data["made_by"]["command"] == "python -m service.learn.probcut"
    assert Selectivity.from_json(MODEL.to_json()) == MODEL


@pytest.mark.parametrize(
    ("change", "word"),
    [({"slopes": [1.0]}, "slope"), ({"spread": [1, 2]}, "spread"), ({"slopes": [0.0] * 6}, "positive")],
)
def test_a_malformed_model_is_refused(change: dict[str, object], word: str) -> None:
    data = {**MODEL.to_json(), **change}
    with pytest.raises(ValueError, match=word):
        Selectivity.from_json(data)


def test_a_search_shallower_than_the_least_depth_is_the_full_one() -> None:
    # A root of depth min_depth has children of min_depth - 1: no node is checked.
    position = late(36, 1)
    depth = MODEL.min_depth
    full = search(position, Limits(max_depth=depth), tt_size=0)
    cut = search(position, Limits(max_depth=depth), tt_size=0, selective=MODEL)
    assert (cut.value, cut.move, cut.nodes) == (full.value, full.move, full.nodes)


def test_deeper_searches_check_and_cost_fewer_nodes() -> None:
    full = cut = 0
    for seed in range(3):
        position = late(40, seed)
        full += search(position, Limits(max_depth=5), evaluate=reversi.LEARNED).nodes
        cut += search(position, Limits(max_depth=5), evaluate=reversi.LEARNED, selective=MODEL).nodes
    assert cut < full


def test_a_proof_never_prunes_selectively() -> None:
    position = late(9, 5)
    proof = search(position, Limits(), solve=True)
    with_model = search(position, Limits(), solve=True, selective=MODEL)
    assert with_model.exact and (with_model.value, with_model.nodes) == (proof.value, proof.nodes)
    # Iterative deepening reaches the end of the game: the nodes searched to the end are proofs too.
    deepened = search(position, Limits(), selective=MODEL)
    assert deepened.exact and deepened.value == proof.value


def test_a_node_budget_gives_the_same_answer_every_time() -> None:
    position = late(40, 7)
    first = search(position, Limits(max_nodes=3_000), selective=MODEL)
    again = search(position, Limits(max_nodes=3_000), selective=MODEL)
    assert (first.move, first.value, first.depth, first.nodes) == (again.move, again.value, again.depth, again.nodes)
