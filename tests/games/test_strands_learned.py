"""Strands' learned evaluation (``service/engines/strands/learned.py``): the features counted by hand on a small
board, the weights file's checks, the shipped file's record, and the evaluation as the levels use it."""

from __future__ import annotations

import json
import random

import pytest

from service.engines.strands import GAME
from service.engines.strands.learned import (
    BASE_FEATURES,
    SIZE,
    WEIGHTS_FILE,
    colour_features,
    feature_vector,
    full_turns_left,
    read_weights,
    shipped,
)
from service.levels import strands as levels

# The worked example of docs/games/strands.md: six 2s around a 3; Black a1, White a2 and b1, Black to move.
# Black: one group {a1} (1 stone), its region with the empty cells is a1 b2 b3 c1 c2 (5), its only empty
# neighbour b2, which joins nothing else (join 2), frontier {b2}. White: {a2} and {b1} apart (1 and 1), region
# a2 b1 b2 b3 c1 c2 (6), each group has two empty neighbours, b2 joins both (join 3), frontier {b2, b3, c1}.
# Turns left if full: three 2s (2 turns) and one 3 (1 turn): 3, odd, so Black makes the last one (+1).
SMALL = "22/232/22 BW/W../.. 1 exact=0"


def small() -> tuple[object, int, int, int]:
    position = GAME.parse_position(SMALL)
    layout = position.layout
    return layout, position.black, position.white, layout.board & ~(position.black | position.white)


def test_features_counted_by_hand() -> None:
    layout, black, white, empty = small()
    assert colour_features(layout, black, empty) == (1, 0, 5, 1, 2, 1, 1)  # type: ignore[arg-type]
    assert colour_features(layout, white, empty) == (1, 1, 6, 2, 3, 2, 3)  # type: ignore[arg-type]
    assert full_turns_left(layout, empty) == 3  # type: ignore[arg-type]
    vector = feature_vector(layout, black, white)  # type: ignore[arg-type]
    e = 4 / 7
    base = [0.0, -1.0, -1.0, -1.0, -1.0, -1.0, -2.0, 1.0, 1.0]
    assert vector == [x * p for x in base for p in (1.0, e, e * e)]
    assert len(vector) == SIZE == 3 * len(BASE_FEATURES)


def weights_text(**changes: object) -> str:
    data: dict[str, object] = {"made": {"command": "make train-strands"}, "weights": [0.5] * SIZE}
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"weights": [0.5] * (SIZE - 1)}, "'weights'"),
        ({"weights": None}, "'weights'"),
        ({"weights": [True] * SIZE}, "every entry of 'weights'"),
        ({"weights": ["1"] * SIZE}, "every entry of 'weights'"),
        ({"weights": [1e300] * SIZE}, "every entry of 'weights'"),
        ({"made": "yesterday"}, "'made'"),
    ],
)
def test_a_malformed_weights_file_is_refused_naming_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        read_weights(weights_text(**changes))


def test_a_file_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON object"):
        read_weights("[1, 2]")


def test_the_value_is_the_weights_sum_over_the_inputs() -> None:
    layout, black, white, _ = small()
    weights = read_weights(weights_text(weights=[float(i) for i in range(SIZE)]))
    vector = feature_vector(layout, black, white)  # type: ignore[arg-type]
    assert weights.value(layout, black, white) == sum(i * x for i, x in enumerate(vector))  # type: ignore[arg-type]


def test_the_shipped_weights_record_how_they_were_made() -> None:
    weights = shipped()
    assert weights.made["command"] == "make train-strands"
    assert weights.made["games"] >= 100  # type: ignore[operator]
    learned, hand = weights.made["held_out_learned"], weights.made["held_out_hand_written"]
    assert learned["rms_stones"] < hand["rms_stones"]  # type: ignore[index]
    assert json.loads(WEIGHTS_FILE.read_text())["weights"] == list(weights.values)


def test_the_levels_evaluation_is_the_movers_value_and_its_negation() -> None:
    rng = random.Random(3)
    position = GAME.new_position({}, "3")
    while position.to_move:
        mover = position.to_move
        value = levels.LEARNED.value(position.layout, position.stones(mover), position.stones(3 - mover))
        assert levels.learned(position, mover) == value
        assert levels.learned(position, 3 - mover) == -value
        position = position.play(position.playout_move(rng))
    assert levels.learned(position, 1) == position.final_value(1)
