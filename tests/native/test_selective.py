"""Multi-ProbCut (``service/core/selectivity.py``) in the native core, against its Python twin: the same value
and move at fixed depths (no table, so both search the same tree), and the core's promises at their edges: no
check below the model's least depth, none in a proof, the same answer for the same node budget."""

from __future__ import annotations

import pytest

from service.core import Limits
from service.levels import reversi
from service.native import engine as native
from service.search import search
from tests.native.twins import needs
from tests.search.test_selective import MODEL, late

pytestmark = needs("reversi")


@pytest.mark.parametrize("seed", range(8))
def test_the_native_selective_search_is_the_python_one(seed: int) -> None:
    position = late(28 + 2 * seed, seed)
    depth = 4 + seed % 3
    python = search(position, Limits(max_depth=depth), tt_size=0, selective=MODEL)
    found = native.search(position, Limits(max_depth=depth), tt_entries=0, selective=MODEL)
    assert found is not None
    assert (found.value, found.move, found.depth) == (python.value, python.move, python.depth)


def test_a_search_shallower_than_the_least_depth_is_the_full_one() -> None:
    position = late(36, 1)
    limits = Limits(max_depth=MODEL.min_depth)
    full = native.search(position, limits)
    cut = native.search(position, limits, selective=MODEL)
    assert full is not None and cut is not None
    assert (cut.value, cut.move, cut.nodes) == (full.value, full.move, full.nodes)


def test_deeper_searches_check_and_cost_fewer_nodes() -> None:
    full = cut = 0
    for seed in range(3):
        position = late(40, seed)
        a = native.search(position, Limits(max_depth=8), learned=True)
        b = native.search(position, Limits(max_depth=8), learned=True, selective=MODEL)
        assert a is not None and b is not None
        full, cut = full + a.nodes, cut + b.nodes
    assert cut < full / 2


@pytest.mark.parametrize("seed", range(3))
def test_a_proof_never_prunes_selectively(seed: int) -> None:
    position = late(14, 20 + seed)
    proof = native.search(position, Limits(), solve=True, solve_lead=4, learned=True)
    with_model = native.search(position, Limits(), solve=True, solve_lead=4, learned=True, selective=MODEL)
    assert proof is not None and with_model is not None and with_model.exact
    assert (with_model.value, with_model.move, with_model.nodes) == (proof.value, proof.move, proof.nodes)
    # Deepening without solve mode reaches the end of the game: nodes searched to the end are proofs too.
    deepened = native.search(position, Limits(), learned=True, selective=MODEL)
    assert deepened is not None and deepened.exact and deepened.value == proof.value


def test_a_node_budget_gives_the_same_answer_every_time() -> None:
    position = late(40, 7)
    runs = [native.search(position, Limits(max_nodes=200_000), learned=True, selective=MODEL) for _ in range(2)]
    assert runs[0] is not None and runs[1] is not None
    first, again = runs
    assert (first.move, first.value, first.depth, first.nodes) == (again.move, again.value, again.depth, again.nodes)


@pytest.mark.parametrize("cap", [1, 2_000, 30_000])
def test_expert_keeps_its_node_budget_with_the_model(cap: int) -> None:
    position = late(40, 3)
    found = reversi.expert_search(position, Limits(max_nodes=cap), evaluate=reversi.LEARNED)
    assert found.nodes <= cap + 64  # the core polls its budget at every node; a leaf's children may finish
    assert found.move in position.legal_moves()
