"""``winChance`` over the registry, through the transport: every BestMove answer, every streamed analysis update
and every alternative carries the mover's expected score from the game's model; a higher value never has a
lower chance; a proved value's chance is its result (1, ½, 0); each alternative carries its own line."""

from __future__ import annotations

import random

import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.games import GAMES, LEVELS


def midgame(game_id: str, seed: int, plies: int) -> str:
    rng = random.Random(f"win-chance/{game_id}/{seed}")
    position = GAMES[game_id].new_position({}, str(seed))
    for _ in range(plies):
        moves = position.legal_moves()
        after = position.play(moves[rng.randrange(len(moves))])
        if not after.to_move:
            break
        position = after
    return position.to_notation()


def check(answer: pb.BestMoveResponse) -> None:
    assert answer.HasField("win_chance") and 0 <= answer.win_chance <= 1
    if answer.exact:
        assert answer.win_chance == (1.0 if answer.value > 0 else 0.0 if answer.value < 0 else 0.5)
    assert all(scored.HasField("win_chance") for scored in answer.alternatives)
    for exact in (True, False):  # within proved values, and within estimates, a higher value never a lower chance
        same = sorted((s.value, s.win_chance) for s in answer.alternatives if s.exact == exact)
        assert [chance for _, chance in same] == sorted(chance for _, chance in same)
    for scored in answer.alternatives:
        assert scored.pv and scored.pv[0].notation == scored.move.notation


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_best_move_and_its_alternatives_carry_win_chances(stub, game_id: str) -> None:
    for seed, plies in ((1, 4), (2, 12)):
        position = pb.Position(notation=midgame(game_id, seed, plies))
        request = pb.BestMoveRequest(game=game_id, position=position, top_n=3, purpose="analysis")
        request.limits.max_depth = 3
        check(stub.BestMove(request, timeout=30))


@pytest.mark.parametrize("game_id", ["kalah", "dots-and-boxes", "petak-sawah"])
def test_a_proved_answer_has_its_results_chance(stub, game_id: str) -> None:
    """Near the end the strongest level proves the game: the chance is the result itself."""
    start = GAMES[game_id].new_position({}, "3")
    rng = random.Random(3)
    line = [start]
    while line[-1].to_move:
        moves = line[-1].legal_moves()
        line.append(line[-1].play(moves[rng.randrange(len(moves))]))
    near = next(p for p in reversed(line) if p.to_move and p.legal_move_count() > 1)
    answer = stub.BestMove(
        pb.BestMoveRequest(game=game_id, position=pb.Position(notation=near.to_notation()), top_n=2), timeout=30
    )
    assert answer.exact and answer.win_chance in (0.0, 0.5, 1.0)
    check(answer)


def test_every_analysis_update_carries_the_win_chance(stub) -> None:
    request = pb.AnalyzePositionRequest(
        game="reversi", position=pb.Position(notation=midgame("reversi", 5, 10)), top_n=2
    )
    request.limits.max_depth = 4
    updates = list(stub.AnalyzePosition(request, timeout=30))
    assert len(updates) >= 2 and updates[-1].final
    for update in updates:
        check(update.analysis)
