"""Flat memory: no call leaves garbage cycles behind.

Objects in a reference cycle are freed only when the cycle collector runs, and under a steady stream of
calls that was rarely enough for each worker to hold hundreds of megabytes of dead searches. So every RPC,
answered or refused, runs many times in process with the collector off, and the collector must then find
nothing. Searches are checked where they run: in the worker (``thread`` mode), and in a search process
(``process`` mode: the worker's side of the call, then the search itself).
"""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Callable, Iterator

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service import core
from service.api.rpc import searches
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES

CALLS = 40


def _start(game: str) -> pb.Position:
    engine = GAMES[game]
    return pb.Position(notation=engine.new_position(engine.default_options(), "7").to_notation())


def _requests() -> dict[str, list[tuple[str, object]]]:
    """Per RPC, calls that answer and calls that fail, over every game."""
    calls: dict[str, list[tuple[str, object]]] = {}
    for game in GAMES:
        start = _start(game)
        first = GAMES[game].parse_position(start.notation)
        move = pb.Move(notation=first.move_notation(first.legal_moves_page(0, 1)[0]))
        calls.setdefault("ListGames", []).append(("ListGames", pb.ListGamesRequest()))
        calls.setdefault("GetGame", []).extend(
            [("GetGame", pb.GetGameRequest(name=f"games/{game}")), ("GetGame", pb.GetGameRequest(name="chess"))]
        )
        calls.setdefault("NewGame", []).append(("NewGame", pb.NewGameRequest(game=game, seed="1")))
        calls.setdefault("LegalMoves", []).extend(
            [
                ("LegalMoves", pb.LegalMovesRequest(game=game, position=start, page_size=1)),
                ("LegalMoves", pb.LegalMovesRequest(game=game, position=pb.Position(notation="?"))),
            ]
        )
        calls.setdefault("ApplyMove", []).extend(
            [
                ("ApplyMove", pb.ApplyMoveRequest(game=game, position=start, move=move)),
                ("ApplyMove", pb.ApplyMoveRequest(game=game, position=start, move=pb.Move(notation="zz99"))),
            ]
        )
        calls.setdefault("ApplyMoves", []).append(
            ("ApplyMoves", pb.ApplyMovesRequest(game=game, position=start, moves=[move]))
        )
        calls.setdefault("Score", []).append(("Score", pb.ScoreRequest(game=game, position=start)))
        calls.setdefault("BatchScore", []).append(
            ("BatchScore", pb.BatchScoreRequest(game=game, positions=[start, start]))
        )
        calls.setdefault("RenderPosition", []).extend(
            [
                ("RenderPosition", pb.RenderPositionRequest(game=game, position=start, show_legal_moves=True)),
                ("RenderPosition", pb.RenderPositionRequest(game=game, position=pb.Position(notation="?"))),
            ]
        )
        # Answered only: a refused stream leaves a cycle in the gRPC client (the call object raises itself
        # from its own iterator), which would hide the server's side; BestMove's refusals run the same checks.
        calls.setdefault("AnalyzePosition", []).append(
            (
                "AnalyzePosition",
                pb.AnalyzePositionRequest(game=game, position=start, limits=pb.SearchLimits(max_time_ms=5)),
            )
        )
        calls.setdefault("ReviewGame", []).append(
            (
                "ReviewGame",
                pb.ReviewGameRequest(game=game, position=start, moves=[move], limits=pb.SearchLimits(max_time_ms=5)),
            )
        )
        calls.setdefault("BestMove", []).extend(
            [
                ("BestMove", pb.BestMoveRequest(game=game, position=start, limits=pb.SearchLimits(max_time_ms=5))),
                ("BestMove", pb.BestMoveRequest(game=game, position=start, level="grandmaster")),
            ]
        )
    return calls


REQUESTS = _requests()


def test_every_rpc_is_covered():
    assert set(REQUESTS) == {method.name for method in pb.DESCRIPTOR.services_by_name["GameRules"].methods}


def cycles_after(action: Callable[[], None], repeats: int = CALLS) -> Counter[str]:
    """The types of the objects the collector frees after ``action`` ran ``repeats`` times with it off."""
    action()  # first calls fill caches and create lazily made objects: not garbage
    time.sleep(0.1)
    # With the collector off, everything the calls make stays in the youngest generation, so collecting that
    # one finds every cycle of theirs; a full collection of a test worker's heap costs far more.
    gc.collect(0)
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(repeats):
            action()
        time.sleep(0.1)  # the server's threads finish their side of the last call
        gc.collect(0)
        return Counter(type(thing).__name__ for thing in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


# The calls that search: checked in both search modes. The others run the same code in either mode: once.
SEARCHING = frozenset({"BestMove", "AnalyzePosition", "ReviewGame"})


def _server(mode: str) -> Iterator[str]:
    running = create_server(
        ServerConfig(service=ServiceConfig(search_slots=1, search_mode=mode)), address="127.0.0.1:0"
    )
    yield f"127.0.0.1:{running.port}"
    running.shutdown(1)


@pytest.fixture(scope="module", params=searches.MODES)
def target(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from _server(request.param)


@pytest.fixture(scope="module")
def stub(target: str) -> Iterator[pb_grpc.GameRulesStub]:
    with grpc.insecure_channel(target) as channel:
        yield pb_grpc.GameRulesStub(channel)


@pytest.fixture(scope="module")
def rules_stub() -> Iterator[pb_grpc.GameRulesStub]:
    for target in _server("process"):
        with grpc.insecure_channel(target) as channel:
            yield pb_grpc.GameRulesStub(channel)


@pytest.mark.parametrize("method", sorted(SEARCHING))
def test_no_search_call_leaves_garbage_cycles(stub, method):
    _no_garbage_cycles(stub, method)


@pytest.mark.parametrize("method", sorted(set(REQUESTS) - SEARCHING))
def test_no_rules_call_leaves_garbage_cycles(rules_stub, method):
    _no_garbage_cycles(rules_stub, method)


def _no_garbage_cycles(stub: pb_grpc.GameRulesStub, method: str) -> None:
    def calls() -> None:
        for name, request in REQUESTS[method]:
            try:
                answer = getattr(stub, name)(request, timeout=30)
                if name == "AnalyzePosition":
                    assert list(answer)[-1].final  # the stream, read to its end
                if name == "ReviewGame":
                    assert list(answer)[-1].HasField("summary")
            except grpc.RpcError as error:
                assert error.code() in {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND}, error

    garbage = cycles_after(calls, repeats=CALLS // len(REQUESTS[method]) + 1)
    assert not garbage, f"{method} left cycles: {garbage.most_common(8)}"


def test_undecodable_requests_leave_no_garbage_cycles(target):
    method = "/gamerules.v1.GameRules/LegalMoves"
    with grpc.insecure_channel(target) as channel:
        raw = channel.unary_unary(method, request_serializer=None, response_deserializer=None)

        def calls() -> None:
            # Not pytest.raises: its ExceptionInfo holds the traceback, a cycle of the test's own.
            try:
                raw(b"\x0a\xff\xff\xff\xff\x0f", timeout=10)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
            else:
                raise AssertionError("undecodable bytes were answered")

        assert not cycles_after(calls)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_search_leaves_no_garbage_cycles(game):
    """The search itself, as a search process runs it (the native tables go with the call)."""
    notation = _start(game).notation
    job = searches.SearchJob(game, notation, None, core.Limits(max_time_ms=5), 1, 1, time.monotonic() + 60, "time")

    def search() -> None:
        searches._search(job, lambda: "")

    garbage = cycles_after(search, repeats=10)
    assert not garbage, f"a {game} search left cycles: {garbage.most_common(8)}"
