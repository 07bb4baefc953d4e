"""Reversi's pattern evaluation (``service/engines/reversi/patterns.py``): the native twin
``reversi_patterns.c`` gives the Python sum exactly on thousands of random positions, a tied table gives the
same value on a position's 8 symmetric images, and the shipped weights file loads and is versioned.

The kernel is built by ``make install``; without it (no C compiler, ``GAMERULES_NO_NATIVE``) the twin test is
skipped and the evaluation runs in Python, which the other tests cover.
"""

from __future__ import annotations

import array
import ctypes
import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest

from service import native
from service.engines.reversi import GAME, ReversiPosition
from service.engines.reversi import patterns as p
from service.learn.reversi import CONFIGS
from service.levels import reversi_learned
from service.native import library_path
from service.native import reversi as native_reversi

NATIVE = reversi_learned.native_sum()
needs_kernel = pytest.mark.skipif(
    NATIVE is None,
    reason=f"the native pattern kernel is not built ({library_path('gamerules_native')} is missing: `make install` "
    "builds it with a C compiler) or GAMERULES_NO_NATIVE is set",
)


def random_positions(count: int, seed: int) -> list[ReversiPosition]:
    """``count`` positions with a seat to move from seeded random games, every stage of the game."""
    rng = random.Random(seed)
    out: list[ReversiPosition] = []
    while len(out) < count:
        position = GAME.new_position({}, "")
        while position.to_move and len(out) < count:
            out.append(position)
            position = position.play(rng.choice(position.legal_moves()))
    return out


def random_table(seed: int, tied: bool) -> array.array[int]:
    """Random int16 weights over the whole range; ``tied``: symmetric contents share a weight."""
    table = np.random.default_rng(seed).integers(-32767, 32768, size=(p.STAGES, p.STAGE_SIZE), dtype=np.int16)
    if tied:
        canonical = np.concatenate([f.offset + np.array(p.canonical_indices(f)) for f in p.FAMILIES])
        table = table[:, canonical]
    return array.array("h", table.tobytes())


def indices_square_by_square(me: int, opp: int) -> list[int]:
    """``patterns.indices`` as its docstring says it, one square at a time (the packed rows must agree)."""
    empties = 64 - (me | opp).bit_count()
    base = p.stage_of(empties) * p.STAGE_SIZE
    out = []
    for f, squares in p.INSTANCES:
        index = 0 if squares else empties % p.STAGE_WIDTH  # the bias: a weight per count of empty squares
        for k, square in enumerate(squares):
            index += 3**k * ((me >> square & 1) + 2 * (opp >> square & 1))
        out.append(base + p.FAMILIES[f].offset + index)
    return out


def image(bits: int, symmetry: tuple[int, ...]) -> int:
    out = 0
    for square in range(64):
        if bits >> square & 1:
            out |= 1 << symmetry[square]
    return out


def test_the_layout() -> None:
    """47 places: edges, corner blocks, rows and the two long diagonals 4 or 2 times, the 2x5 blocks 8 times."""
    counts = {f.name: sum(1 for i, _ in p.INSTANCES if p.FAMILIES[i] is f) for f in p.FAMILIES}
    assert counts == {
        "edge_2x": 4,
        "corner_3x3": 4,
        "corner_2x5": 8,
        "line_2": 4,
        "line_3": 4,
        "line_4": 4,
        "diag_8": 2,
        "diag_7": 4,
        "diag_6": 4,
        "diag_5": 4,
        "diag_4": 4,
        "bias": 1,
    }
    assert p.STAGE_SIZE == 2 * 3**10 + 3**9 + 4 * 3**8 + 3**7 + 3**6 + 3**5 + 3**4 + p.STAGE_WIDTH
    assert [p.stage_of(e) for e in (0, 5, 6, 20, 53, 54, 60)] == [0, 0, 1, 3, 8, 9, 9]


def test_an_index_reads_each_square() -> None:
    """Index = sum(digit * 3^k): an edge pattern reads a1 as its lowest digit; the bias's index is the count of
    empty squares within the stage (62 empties: stage 9 from 54, so 62 % 6 = 2)."""
    me, opp = 1 << 0, 1 << 1  # a1 mine, b1 theirs; the edge a1..h1 is the first instance
    index = p.indices(me, opp)[0] - p.stage_of(62) * p.STAGE_SIZE
    assert index == 1 + 2 * 3
    assert p.indices(me, opp)[-1] == p.stage_of(62) * p.STAGE_SIZE + p.FAMILIES[-1].offset + 2
    me, opp = (1 << 23) - 1, 1 << 30  # 23 + 1 discs: 40 empty squares, stage 6, the bias's weight 40 - 36 = 4
    assert p.indices(me, opp)[-1] == 6 * p.STAGE_SIZE + p.FAMILIES[-1].offset + 4


def test_packed_indices_are_the_square_by_square_ones() -> None:
    for position in random_positions(1000, 9):
        me, opp = position.sides()
        assert p.indices(me, opp) == indices_square_by_square(me, opp), position


@needs_kernel
def test_native_twin_agrees_on_random_positions() -> None:
    table = random_table(1, tied=False)
    evaluation = reversi_learned.PatternEvaluation(table)
    assert NATIVE is not None
    for position in random_positions(3000, 2):
        me, opp = position.sides()
        assert evaluation.total(me, opp) == p.pattern_sum(me, opp, table), position


@needs_kernel
def test_both_native_ways_agree() -> None:
    """The kernel sums by BMI2 gathers where the CPU has them and by runs elsewhere: the runs, which this machine
    may not choose, give the Python sum too."""
    u64 = ctypes.c_uint64
    runs = native.kernel(
        native_reversi.LIBRARY,
        "gr_reversi_pattern_sum_runs",
        (u64, u64, ctypes.POINTER(ctypes.c_int16)),
        ctypes.c_int32,
    )
    path = native.kernel(native_reversi.LIBRARY, "gr_reversi_pattern_path", (), ctypes.c_int)
    assert runs is not None and path is not None and path() in (0, 1)
    table = random_table(5, tied=False)
    pointer = ctypes.cast((ctypes.c_int16 * p.TABLE_SIZE).from_buffer(table), ctypes.POINTER(ctypes.c_int16))
    for position in random_positions(2000, 6):
        me, opp = position.sides()
        assert runs(me, opp, pointer) == p.pattern_sum(me, opp, table), position


def test_a_tied_table_is_the_same_on_every_symmetric_image() -> None:
    table = random_table(3, tied=True)
    for position in random_positions(300, 4):
        me, opp = position.sides()
        values = {p.pattern_sum(image(me, s), image(opp, s), table) for s in p.SYMMETRIES}
        assert len(values) == 1, position


def test_an_untied_table_is_not() -> None:
    """The symmetry check can fail: without tied weights the images differ."""
    table = random_table(5, tied=False)
    position = random_positions(30, 6)[-1]
    me, opp = position.sides()
    assert len({p.pattern_sum(image(me, s), image(opp, s), table) for s in p.SYMMETRIES}) > 1


def test_the_evaluation_is_the_estimate_for_the_seat() -> None:
    table = random_table(7, tied=False)
    evaluation = reversi_learned.PatternEvaluation(table)
    position = random_positions(20, 8)[-1]
    me, opp = position.sides()
    hand = position.evaluate(position.to_move)
    value = max(-63.0, min(63.0, hand + p.pattern_sum(me, opp, table) / p.SCALE))
    assert evaluation(position, position.to_move) == value
    assert evaluation(position, 3 - position.to_move) == -value


def test_the_shipped_weights_load_and_are_versioned() -> None:
    weights = p.load_weights()
    assert weights.version == p.VERSION
    assert len(weights.table) == p.TABLE_SIZE
    trained = weights.header["trained"]
    assert trained == CONFIGS[trained["name"]].record(), "the file was made by a configuration of the pipeline"
    assert any(weights.table), "a trained table is not all zeros"
    shipped = reversi_learned.shipped()
    position = random_positions(30, 10)[-1]
    assert shipped(position, 1) != position.evaluate(1), "the shipped weights correct the hand-written estimate"


def test_a_file_of_another_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.bin.gz"
    p.dump_weights(path, array.array("h", bytes(2 * p.TABLE_SIZE)), {"name": "test"})
    assert p.load_weights(path).header["trained"] == {"name": "test"}
    line, _, body = gzip.decompress(path.read_bytes()).partition(b"\n")
    header = json.loads(line)
    header["version"] = p.VERSION + 1
    path.write_bytes(gzip.compress(json.dumps(header).encode() + b"\n" + body))
    with pytest.raises(p.WeightsError, match="layout"):
        p.load_weights(path)
    path.write_bytes(gzip.compress(line + b"\n" + body[:100]))
    with pytest.raises(p.WeightsError, match="weights, expected"):
        p.load_weights(path)
