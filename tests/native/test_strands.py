"""Strands' native kernel (``service/native/search/strands.c``) identical to the Python engine
(``docs/games/strands.md`` by way of ``service/engines/strands``) over random games of every option: every named
layout, dealt layouts from seeds, custom layouts of every side 2..9, ``exact_count`` on and off. Per position:
the seat to move, the search's capped candidate moves in the engine's order, every legal move in the engine's
order (or their count and a window of them when there are many), the position after each candidate and after
the move played, the evaluation for both seats, the end and the final value."""

from __future__ import annotations

import ctypes
import math
import random
from typing import Any

import pytest

from service import native as kernels
from service.core import Limits
from service.engines.strands.layouts import LAYOUT_CHOICES, row_lengths
from service.engines.strands.learned import shipped
from service.games import GAMES
from service.native import engine as native
from service.native import strands as adapter
from service.search import search
from tests.native.twins import needs

GAME = GAMES["strands"]
pytestmark = needs("strands")
LISTED = 3_000  # the kernel lists every legal move up to this many, compared one by one with the engine's
WINDOW = 64  # above, a window of the engine's paged moves is compared


def custom_labels(rng: random.Random, side: int) -> str:
    rows = []
    for length in row_lengths(side):
        rows.append("".join(str(rng.choice((1, 2, 2, 3, 3, 4, 5, 6))) for _ in range(length)))
    text = "/".join(rows)
    return text if "2" in text else "2" + text[1:]


def start(seed: int) -> Any:
    """A start position of a random option set: small custom boards most of the time (they are quick), every
    named and dealt layout often enough."""
    rng = random.Random(seed)
    exact = rng.random() < 0.4
    layout = rng.choice([*LAYOUT_CHOICES, "custom", "custom", "custom", "custom"])
    options: dict[str, Any] = {"layout": layout, "exact_count": exact}
    if layout == "custom":
        options["labels"] = custom_labels(rng, rng.choice((2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8, 9)))
    return GAME.new_position(options, f"twin-{seed}")


def legal(state: bytes, limit: int) -> tuple[int, list[int]]:
    function = kernels.kernel(
        native.LIBRARY,
        "gr_strands_legal",
        (ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int64),
        ctypes.c_int64,
    )
    out = (ctypes.c_int32 * limit)()
    total = function(state, out, limit)
    return total, list(out[: total if total <= limit else 0])


def check_position(kernel: native.Kernel, position: Any, rng: random.Random) -> Any:
    """The kernel against the engine on ``position``; returns the next position of a random game (None at the end)."""
    state = kernel.pack(position)
    assert state is not None
    assert kernel.to_move(state) == position.to_move
    assert kernel.plies_left(state) == (position.layout.board & ~(position.black | position.white)).bit_count()
    for seat in (1, 2):
        assert kernel.evaluate(state, seat) == position.evaluate(seat), position.to_notation()
    if position.to_move == 0:
        assert kernel.moves(state) == []
        for seat in (1, 2):
            assert kernel.final_value(state, seat) == position.final_value(seat)
        return None
    candidates = position.search_moves()
    assert kernel.moves(state) == [adapter.move_in(position, m) for m in candidates], position.to_notation()
    for move in candidates:
        assert adapter.move_out(position, adapter.move_in(position, move)) == move
        assert kernel.play(state, adapter.move_in(position, move)) == kernel.pack(position.play(move))
    count = position.legal_move_count()
    total, listed = legal(state, LISTED)
    assert total == count
    if listed:
        assert [adapter.move_out(position, m) for m in listed] == position.legal_moves_page(0, count)
    else:
        at = rng.randrange(count - WINDOW)
        window = position.moves_slice(at, WINDOW)
        assert [kernel.play(state, adapter.move_in(position, m)) for m in window] == [
            kernel.pack(position.play(m)) for m in window
        ]
    move = position.moves_slice(rng.randrange(count), 1)[0]  # a uniformly random legal move, not only full covers
    child = position.play(move)
    assert kernel.play(state, adapter.move_in(position, move)) == kernel.pack(child)
    return child


def twin_games(games: int, first_seed: int) -> int:
    kernel = native.Kernel("strands")
    checked = 0
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        position = start(seed)
        while position is not None:
            position = check_position(kernel, position, rng)
            checked += 1
    return checked


def test_kernel_plays_like_the_engine() -> None:
    assert twin_games(30, 0) > 500  # 1,074 positions; the slow test plays 10,000 games


@pytest.mark.slow
def test_kernel_plays_like_the_engine_10k_games() -> None:
    twin_games(10_000, 1_000)


def test_the_kernels_playouts_are_full_covers_of_one_label() -> None:
    """The random_move hook (playouts) answers legal full covers: the kernel's own playouts reach the end."""
    for seed in range(20):
        position = start(seed)
        rng = random.Random(seed)
        while position.to_move:
            move = position.playout_move(rng)
            groups = {label: (cells, high) for label, cells, _, high in position._move_groups()}
            label = position.layout.cell_label[move[0]]
            assert len(move) == groups[label][1]
            position = position.play(move)


def playout_end(state: bytes, seed: int, fast: bool) -> bytes:
    function = kernels.kernel(
        native.LIBRARY,
        "gr_strands_playout",
        (ctypes.c_char_p, ctypes.c_uint64, ctypes.c_int32, ctypes.c_char_p),
        None,
    )
    end = ctypes.create_string_buffer(len(state))
    function(state, seed, int(fast), end)
    return end.raw


def test_the_kernels_whole_playouts_make_its_playout_moves() -> None:
    """The playout hook (a whole playout in place, mcts.c's fast path) ends where random_move and play in turn
    end with the same generator, from random positions of every option: a full board, the same stones."""
    compared = 0
    for seed in range(40):
        rng = random.Random(seed)
        position = start(seed)
        while position.to_move:
            state = adapter.pack(position)
            if state is not None and rng.random() < 0.3:
                draw = rng.getrandbits(64)
                fast, stepped = playout_end(state, draw, True), playout_end(state, draw, False)
                assert fast == stepped
                tail = len(state) - adapter._TAIL.size
                assert fast[:tail] != state[:tail]  # stones were placed
                assert adapter._TAIL.unpack_from(fast, tail)[1] == 0  # to_move: the board is full
                compared += 1
            position = position.play(position.playout_move(rng))
    assert compared > 100


def test_a_layout_whose_moves_do_not_fit_stays_on_python() -> None:
    """60 cells labelled 6 make over 2**25 covers of one size: the adapter answers None (documented)."""
    rows = [("6" * length) for length in row_lengths(9)]
    rows[8] = "2" + rows[8][1:]
    position = GAME.new_position({"layout": "custom", "labels": "/".join(rows)}, "")
    assert adapter.pack(position) is None
    small = GAME.new_position({"layout": "custom", "labels": "22/232/22"}, "")
    assert adapter.pack(small) is not None


def answer(result: Any) -> tuple[Any, ...]:
    alternatives = [(m.move, m.value, m.exact) for m in result.alternatives]
    return result.move, result.value, result.exact, result.depth, result.stop_reason, alternatives


def test_the_native_alpha_beta_is_the_python_search() -> None:
    """The alpha-beta core over the kernel (medium's and hard's endgame search) answers as the Python search:
    move, value, proof, depth, stop reason and three scored root moves, at depths 1-3 over random games of
    every option; small endgames, where every full cover fits, proved to the end."""
    searched = proved = 0
    for seed in range(8):
        rng = random.Random(seed)
        position = start(seed)
        while position.to_move:
            few = len(position.search_moves()) <= 12
            limits = Limits(max_depth=rng.choice((1, 2, 3) if few else (1, 2)))
            plies = position.plies_left()
            if position.search_moves_complete() and plies is not None and plies <= 6:
                limits = Limits()  # to the end of the game: a proof
            python = search(position, limits, top_n=3)
            assert answer(native.search(position, limits, top_n=3)) == answer(python), position.to_notation()
            searched += 1
            proved += python.exact
            position = position.play(rng.choice(position.search_moves()))
    assert searched > 150 and proved > 10  # 196 positions searched in these 8 games


def learned_value(position: Any, seat: int) -> float:
    """The shipped learned evaluation for ``seat`` (the final value once the board is full)."""
    if not position.to_move:
        return float(position.final_value(seat))
    mover = position.to_move
    value = shipped().value(position.layout, position.stones(mover), position.stones(3 - mover))
    return value if seat == mover else -value


def test_the_kernels_learned_evaluation_is_the_engines() -> None:
    """The kernel's learned evaluation (states packed learned, the shipped weights handed to it) gives the
    Python evaluation's doubles exactly, for both seats, over random games of every option."""
    adapter.set_weights(shipped().values)
    learned = kernels.kernel(native.LIBRARY, "gr_strands_learned", (ctypes.c_char_p,), ctypes.c_double)
    kernel = native.Kernel("strands")
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        position = start(seed)
        while position.to_move:
            state = adapter.pack(position, learned=True)
            assert state is not None
            mover = position.to_move
            value = learned_value(position, mover)
            assert learned(state) == value, position.to_notation()
            assert (kernel.evaluate(state, mover), kernel.evaluate(state, 3 - mover)) == (value, -value)
            position = position.play(position.playout_move(rng))
            checked += 1
        assert math.isnan(learned(adapter.pack(position, learned=True)))
    assert checked > 300


def test_the_search_is_alike_on_both_paths_with_the_learned_evaluation() -> None:
    """The alpha-beta with the learned evaluation: the native search over learned states answers as the Python
    search with the same evaluation at its leaves, at depths 1-3 over random games of every option."""
    adapter.set_weights(shipped().values)
    searched = 0
    for seed in range(6):
        rng = random.Random(seed)
        position = start(seed)
        while position.to_move:
            limits = Limits(max_depth=rng.choice((1, 2, 3) if len(position.search_moves()) <= 12 else (1, 2)))
            python = search(position, limits, top_n=3, evaluate=learned_value)
            assert answer(native.search(position, limits, top_n=3, learned=True)) == answer(python)
            searched += 1
            position = position.play(rng.choice(position.search_moves()))
    assert searched > 100


def test_a_learned_state_needs_weights() -> None:
    adapter.set_weights(shipped().values)
    position = start(1)
    previous, given = adapter.weights(), adapter._given[0]
    adapter._weights[0] = None
    try:
        with pytest.raises(LookupError, match="set_weights"):
            adapter._given[0] = None  # never given
            adapter.pack(position, learned=True)
        # Given while the kernels were off (GAMERULES_NO_NATIVE=1, then turned on): handed on when packing.
        adapter._given[0] = given
        assert adapter.pack(position, learned=True) is not None and adapter.weights() is not None
    finally:
        adapter._given[0] = given
        adapter.set_weights(shipped().values)  # a table the kernel points at, held by the adapter
    previous = adapter.weights()
    with pytest.raises(ValueError, match="takes 27 learned weights, not 3"):
        adapter.set_weights([1.0, 2.0, 3.0])
    assert adapter.weights() is previous
    # The kernel still evaluates with them (a refused table used to leave it none: every later learned
    # search in the process fell back to another evaluation).
    learned = kernels.kernel(native.LIBRARY, "gr_strands_learned", (ctypes.c_char_p,), ctypes.c_double)
    assert learned(adapter.pack(position, learned=True)) == learned_value(position, position.to_move)


# A capped root (more full covers than the search takes) whose search reaches the end of the game in 7 plies.
CAPPED = (
    "644446/4333334/43222234/432222234/4322222234/63222122236/4322222234/432222234/43222234/4333334/644446 "
    "BBBBBB/BWWWWWW/BBBWBWWB/WWWWBB.WB/BW...WW.WW/BW.W.WBWWWB/BWWWB.BBBW/BWWB...BB/BWB.B.WB/BBWBWBB/BBBBBB 1 exact=1"
)


def test_a_search_over_capped_covers_proves_nothing() -> None:
    """Every line reaches a finished game, but the root's covers were capped: no proof, as in Python."""
    position = GAME.parse_position(CAPPED)
    assert not position.search_moves_complete()
    result = native.search(position, Limits(max_depth=12))
    assert result is not None and result.depth < 12
    assert (result.exact, result.stop_reason) == (False, "depth")
    assert answer(result) == answer(search(position, Limits(max_depth=12)))
