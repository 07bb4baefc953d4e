"""The Python client against a real server: typed calls, notation helpers, errors with their Status details,
default deadlines, and retries of UNAVAILABLE only (against small fake servers that fail on purpose)."""

from __future__ import annotations

import contextlib
import json
import threading
import warnings
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import gamerules_client as gc
from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from gamerules.v1 import reversi_pb2
from service.games import GAMES
from tests.api.conftest import free_port

START = GAMES["reversi"].new_position().to_notation()


@pytest.fixture(scope="module")
def client(grpc_address: str) -> Iterator[gc.GameRulesClient]:
    with gc.GameRulesClient(grpc_address) as client:
        yield client


# --- calls ---------------------------------------------------------------------------------------------------


def test_games(client):
    games = client.list_games()
    assert set(GAMES) == {game.id for game in games}
    reversi = client.get_game("reversi")
    assert reversi.name == "games/reversi" and client.get_game("games/reversi") == reversi
    assert reversi.default_level in [level.name for level in reversi.levels]


def test_a_game_through_the_client(client):
    start = client.new_game("reversi", {"size": 8}, seed="1")
    assert start.position.notation == START and start.to_move == 1
    assert gc.fields(start.position)["board"][3] == "...WB..."

    page = client.legal_moves("reversi", START, page_size=3)
    assert page.total_size == 4 and len(page.moves) == 3 and page.next_page_token
    every = [move.notation for move in client.iter_legal_moves("reversi", START, page_size=3)]
    assert sorted(every) == ["c4", "d3", "e6", "f5"]

    step = client.apply_move("reversi", START, "d3")
    assert step.move.notation == "d3" and step.to_move == 2 and not step.game_over
    assert [event.type for event in step.events][:2] == ["place", "flip"]
    assert client.apply_move("reversi", start.position, gc.move("d3")) == step  # messages work as well as text

    replay = client.apply_moves("reversi", START, ["d3", "c5", "f6"])
    assert [s.move.notation for s in replay.steps] == ["d3", "c5", "f6"] and replay.to_move == 2

    score = client.score("reversi", step.position)
    assert list(score.scores) == [4, 1] and not score.game_over and not score.HasField("winner")
    scores = client.batch_score("reversi", [START, step.position.notation])
    assert [list(s.scores) for s in scores] == [[2, 2], [4, 1]]

    best = client.best_move("reversi", START, "expert", max_depth=2, top_n=2, seed="7")
    assert best.move.notation in every and best.depth == 2 and len(best.alternatives) == 2
    assert best.pv[0] == best.move and best.level == "expert"


def test_ready(client, grpc_address):
    assert client.ready()
    with gc.GameRulesClient(f"127.0.0.1:{free_port()}", max_attempts=2) as nobody:
        assert not nobody.ready(timeout=0.5)


# --- errors ----------------------------------------------------------------------------------------------------


def test_an_illegal_move_is_a_failed_precondition_with_its_reason(client):
    with pytest.raises(gc.IllegalMoveError) as caught:
        client.apply_move("reversi", START, "a1")
    error = caught.value
    assert isinstance(error, gc.FailedPreconditionError) and isinstance(error, gc.GameRulesError)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "ILLEGAL_MOVE"
    assert error.domain == "gamerules.v1" and error.fields == ["move"]
    assert error.precondition_violations[0].type == "ILLEGAL_MOVE"
    assert "ILLEGAL_MOVE" in str(error) and error.status is not None


def test_bad_input_names_the_field(client):
    with pytest.raises(gc.InvalidArgumentError) as caught:
        client.score("reversi", "not a position")
    assert caught.value.reason == "INVALID_NOTATION"
    assert caught.value.field_violations[0].field == "position.notation"
    with pytest.raises(gc.InvalidArgumentError) as caught:
        client.apply_moves("reversi", START, ["d3", "zz"])
    assert caught.value.fields == ["moves[1].notation"]
    with pytest.raises(gc.InvalidArgumentError) as caught:
        client.best_move("reversi", START, "grandmaster")
    assert caught.value.reason == "UNKNOWN_LEVEL"


def test_an_unknown_game_is_not_found(client):
    with pytest.raises(gc.NotFoundError) as caught:
        client.new_game("chess")
    assert caught.value.reason == "UNKNOWN_GAME" and caught.value.metadata["game"] == "games/chess"


# --- notation helpers ------------------------------------------------------------------------------------------


def test_notation_helpers():
    assert gc.game_name("reversi") == "games/reversi" == gc.game_name("games/reversi")
    assert gc.game_id("games/kalah") == "kalah" == gc.game_id("kalah")
    assert gc.position("x") == pb.Position(notation="x") and gc.notation(gc.move("d3")) == "d3"
    message = pb.Position(notation="n", reversi=reversi_pb2.ReversiPosition(board=["...."], to_move=1))
    assert gc.position(message) is message
    assert gc.fields(message) == {"board": ["...."], "to_move": 1, "black_seat": 0}
    assert gc.fields(pb.Position(notation="n")) == {}
    assert gc.options({"size": 6, "layout": "standard"})["size"] == 6
    assert gc.parse_option("size=6") == ("size", 6)
    assert gc.parse_option("exact_count=true") == ("exact_count", True)
    assert gc.parse_option('rock_cells=["a1","c3"]') == ("rock_cells", ["a1", "c3"])
    assert gc.parse_option("layout=standard") == ("layout", "standard")
    with pytest.raises(ValueError):
        gc.parse_option("size")


# --- deadlines and retries, against fake servers ---------------------------------------------------------------


class _Fake(pb_grpc.GameRulesServicer):
    """Answers ListGames after failing ``failures`` times with ``code``; records what each call saw."""

    def __init__(self, code: grpc.StatusCode, failures: int) -> None:
        self.code = code
        self.failures = failures
        self.calls = 0
        self.time_remaining: list[float | None] = []
        self._lock = threading.Lock()

    def ListGames(self, request, context):
        with self._lock:
            self.calls += 1
            self.time_remaining.append(context.time_remaining())
            failing = self.calls <= self.failures
        if failing:
            context.set_trailing_metadata([])
            context.abort(self.code, f"failing on purpose ({self.calls})")
        return pb.ListGamesResponse(games=[pb.Game(id="fake")])

    def BestMove(self, request, context):
        self.time_remaining.append(context.time_remaining())
        return pb.BestMoveResponse(move=pb.Move(notation="d3"))


@pytest.fixture
def fake() -> Iterator[tuple[_Fake, str]]:
    servicer = _Fake(grpc.StatusCode.UNAVAILABLE, 2)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_GameRulesServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield servicer, f"127.0.0.1:{port}"
    server.stop(0)


def test_the_service_config_retries_unavailable_only():
    config = json.loads(gc.service_config())
    (method,) = config["methodConfig"]
    assert {"service": "gamerules.v1.GameRules"} in method["name"]
    assert method["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert 2 <= method["retryPolicy"]["maxAttempts"] <= 5
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]


def test_unavailable_is_retried(fake):
    servicer, address = fake
    with gc.GameRulesClient(address) as client:
        assert [game.id for game in client.list_games()] == ["fake"]
    assert servicer.calls == 3


@pytest.mark.parametrize(
    ("code", "error_class"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, gc.InvalidArgumentError),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, gc.ResourceExhaustedError),
        (grpc.StatusCode.INTERNAL, gc.GameRulesError),
    ],
)
def test_other_codes_are_not_retried(fake, code, error_class):
    servicer, address = fake
    servicer.code, servicer.failures = code, 5
    with gc.GameRulesClient(address) as client, pytest.raises(error_class) as caught:
        client.list_games()
    assert servicer.calls == 1 and caught.value.code == code


def test_retries_give_up_after_max_attempts(fake):
    servicer, address = fake
    servicer.failures = 10
    with gc.GameRulesClient(address, max_attempts=3) as client, pytest.raises(gc.UnavailableError):
        client.list_games()
    assert servicer.calls == 3


def test_every_call_has_a_deadline(fake):
    servicer, address = fake
    servicer.failures = 0
    with gc.GameRulesClient(address, timeout=4, best_move_timeout=9) as client:
        client.list_games()
        client.best_move("reversi", START)
        client.list_games(timeout=1)
    cheap, search, explicit = servicer.time_remaining
    # The deadline travels as a grpc-timeout header rounded up to its unit: allow that, not more.
    assert cheap is not None and 0 < cheap <= 4.1
    assert search is not None and 4.5 < search <= 9.1
    assert explicit is not None and 0 < explicit <= 1.1


def test_an_unreachable_server_raises(fake):
    with gc.GameRulesClient(f"127.0.0.1:{free_port()}", timeout=0.5) as client, pytest.raises(gc.GameRulesError) as e:
        client.list_games()
    assert e.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


# --- the target from the environment -----------------------------------------------------------------------


def test_the_default_target_comes_from_the_environment(monkeypatch, grpc_address):
    monkeypatch.delenv("GAMERULES_TARGET", raising=False)
    monkeypatch.delenv("GAMERULES_GRPC_TARGET", raising=False)
    assert gc.default_target() == "localhost:50051" == gc.DEFAULT_TARGET
    monkeypatch.setenv("GAMERULES_GRPC_TARGET", grpc_address)
    with gc.GameRulesClient() as client:
        assert client.target == grpc_address and client.ready()
    assert gc.GameRulesClient("other:1").target == "other:1"


def test_the_old_target_variable_works_for_one_release_with_a_future_warning(monkeypatch, grpc_address):
    monkeypatch.delenv("GAMERULES_GRPC_TARGET", raising=False)
    monkeypatch.setenv("GAMERULES_TARGET", grpc_address)
    with pytest.warns(FutureWarning, match="GAMERULES_TARGET is deprecated .* use GAMERULES_GRPC_TARGET"):
        client = gc.GameRulesClient()
    with client:
        assert client.target == grpc_address and client.ready()
    monkeypatch.setenv("GAMERULES_GRPC_TARGET", "new:1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name wins, silently
        assert gc.default_target() == "new:1"


# --- a busy server -------------------------------------------------------------------------------------------


class _Busy(pb_grpc.GameRulesServicer):
    """Refuses BestMove RESOURCE_EXHAUSTED with a RetryInfo of ``delay_s`` the first ``refusals`` times, as the
    service does when its search slots and queue are full (``service/api/errors.py`` builds the same Status)."""

    def __init__(self, refusals: int, delay_s: float) -> None:
        self.refusals, self.delay_s, self.calls = refusals, delay_s, 0

    def BestMove(self, request, context):
        from service.api.errors import overloaded

        self.calls += 1
        if self.calls <= self.refusals:
            status = overloaded("busy", 1).to_status()
            del status.details[1:]  # keep the ErrorInfo; this fake's RetryInfo says the delay in nanos
            info = error_details_pb2.RetryInfo()
            info.retry_delay.FromNanoseconds(int(self.delay_s * 1e9))
            status.details.add().Pack(info)
            context.abort_with_status(rpc_status.to_status(status))
        return pb.BestMoveResponse(move=pb.Move(notation="d3"))


@contextlib.contextmanager
def busy_server(refusals: int, delay_s: float) -> Iterator[tuple[_Busy, str]]:
    servicer = _Busy(refusals, delay_s)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_GameRulesServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def test_a_refused_best_move_is_tried_again_after_the_servers_delay():
    with busy_server(2, 0.05) as (servicer, address), gc.GameRulesClient(address) as client:
        assert client.best_move("reversi", START, timeout=5).move.notation == "d3"
        assert servicer.calls == 3  # two refusals, each waited out, then the answer


def test_a_refusal_is_raised_when_the_retries_or_the_deadline_run_out():
    with busy_server(5, 0.05) as (servicer, address), gc.GameRulesClient(address) as client:
        with pytest.raises(gc.ResourceExhaustedError) as refused:
            client.best_move("reversi", START, timeout=5)
        assert servicer.calls == 3 and refused.value.retry_after_s == pytest.approx(0.05)
    with busy_server(5, 10) as (servicer, address), gc.GameRulesClient(address) as client:
        with pytest.raises(gc.ResourceExhaustedError):
            client.best_move("reversi", START, timeout=5)  # a 10 s delay does not fit in a 5 s deadline
        assert servicer.calls == 1
    with busy_server(5, 0.05) as (servicer, address), gc.GameRulesClient(address, overload_retries=0) as client:
        with pytest.raises(gc.ResourceExhaustedError):
            client.best_move("reversi", START, timeout=5)
        assert servicer.calls == 1


def test_the_async_client_tries_a_refused_best_move_again():
    import asyncio

    async def call(address: str) -> str:
        async with gc.AsyncGameRulesClient(address) as client:
            return (await client.best_move("reversi", START, timeout=5)).move.notation

    with busy_server(2, 0.05) as (servicer, address):
        assert asyncio.run(call(address)) == "d3" and servicer.calls == 3
