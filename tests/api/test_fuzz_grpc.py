"""Property-based requests for every RPC through a real gRPC server: random notations, random structured
fields, huge strings, negative numbers, unknown games and levels, mixed with real positions and moves so the
deep paths are reached too. The only acceptable answers are OK or a client error (INVALID_ARGUMENT,
FAILED_PRECONDITION, NOT_FOUND, RESOURCE_EXHAUSTED) carrying a ``google.rpc.Status`` with an ErrorInfo —
never INTERNAL or UNKNOWN — and the server still serves afterwards."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor, struct_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api import codec
from service.api.limits import MAX_RATING, MIN_RATING
from service.api.rpc.server import SERVICE, ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES
from service.games import LEVELS as GAME_LEVELS
from tests.api.conftest import FUZZ_SCALE

ACCEPTABLE = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
MAX_REQUEST_BYTES = 1 << 20
_FD = descriptor.FieldDescriptor


@dataclass(frozen=True)
class Sample:
    """A real position of a game (start, or a few random plies in) and some of its legal moves."""

    game: str
    position: pb.Position
    moves: tuple[str, ...]


def _samples() -> list[Sample]:
    rng = random.Random(8)
    samples = []
    for game in GAMES.values():
        for _ in range(4):
            position = game.new_position(game.default_options(), str(rng.random()))
            for _ in range(rng.randrange(12)):
                legal = position.legal_moves_page(0, 50)
                if position.outcome() is not None or not legal:
                    break
                position = position.apply(rng.choice(legal))[0]
            moves = tuple(position.move_notation(move) for move in position.legal_moves_page(0, 20))
            samples.append(Sample(game.id, codec.encode_position(game, position), moves))
    return samples


SAMPLES = _samples()
POSITIONS = [sample.position for sample in SAMPLES]
MOVES = sorted({move for sample in SAMPLES for move in sample.moves})
LEVELS = sorted({level.name for levels in GAME_LEVELS.values() for level in levels.levels})
GAME_IDS = sorted(GAMES)
HUGE = ["9" * 100_000, "." * 60_000, "\x00" * 5_000, "é" * 30_000, "a1-" * 20_000]

texts = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "pass", "stop", "-1", "99999999999", "a0", "z99", "a1-a1", "1 2", "\u202e", "NaN"]),
    st.sampled_from(MOVES),
    st.sampled_from([*LEVELS, "grandmaster", "EXPERT", ""]),
    st.sampled_from(HUGE),
)
ints = st.one_of(st.integers(-3, 20), st.integers(-(2**31), 2**31 - 1))
games = st.one_of(
    st.sampled_from(GAME_IDS),
    st.sampled_from([f"games/{game}" for game in GAME_IDS]),
    st.sampled_from(["", "chess", "games/", "games/chess", "games/reversi/x", "REVERSI"]),
    texts,
)


def _mutated(notation: str) -> st.SearchStrategy[str]:
    """A real notation with a few characters changed, dropped or added."""

    @st.composite
    def mutate(draw: st.DrawFn) -> str:
        chars = list(notation)
        for _ in range(draw(st.integers(1, 4))):
            where = draw(st.integers(0, len(chars)))
            kind = draw(st.sampled_from(["replace", "insert", "delete"]))
            char = draw(st.sampled_from([*list("0123456789.-_,BWbw xyz|/=:;"), "\n", "é"]))
            if kind == "insert" or where == len(chars):
                chars.insert(where, char)
            elif kind == "replace":
                chars[where] = char
            else:
                del chars[where]
        return "".join(chars)

    return mutate()


def messages(message: descriptor.Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Any message of this type: a random subset of its fields, each random (structure from the descriptor)."""
    cls: Any = _class(message)
    if message.full_name == "google.protobuf.Struct":
        json_values = st.recursive(
            st.none() | st.booleans() | st.floats(allow_nan=False) | ints | texts,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
            max_leaves=6,
        )
        return st.dictionaries(texts, json_values, max_size=4).map(_struct)
    if depth > 3:
        return st.just(cls())
    fields = {field.name: _field(field, depth) for field in message.fields}
    return st.fixed_dictionaries({}, optional=fields).map(lambda values: cls(**values))


def _class(message: descriptor.Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(message)


def _struct(values: dict) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def _single(field: descriptor.FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.name in ("game", "name") and field.type == _FD.TYPE_STRING:
        return games
    if field.message_type is not None:
        if field.message_type.full_name == "gamerules.v1.Position":
            return positions(depth)
        return messages(field.message_type, depth + 1)
    if field.type == _FD.TYPE_STRING:
        return texts
    if field.type == _FD.TYPE_BOOL:
        return st.booleans()
    if field.type in (_FD.TYPE_INT32, _FD.TYPE_SINT32, _FD.TYPE_ENUM):
        return ints
    if field.type in (_FD.TYPE_INT64, _FD.TYPE_SINT64):
        return st.integers(-(2**63), 2**63 - 1)
    if field.type in (_FD.TYPE_UINT32, _FD.TYPE_UINT64):
        return st.integers(0, 2**32 - 1)
    if field.type in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT):
        return st.floats(width=32)
    raise AssertionError(f"no strategy for {field.full_name}")


def _field(field: descriptor.FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    single = _single(field, depth)
    if field.is_repeated:  # type: ignore[attr-defined]
        return st.lists(single, max_size=6)
    return single


def positions(depth: int = 0) -> st.SearchStrategy[pb.Position]:
    real = st.sampled_from(POSITIONS)
    return st.one_of(
        real,
        real.map(lambda position: pb.Position(notation=position.notation)),
        real.map(lambda position: _without_notation(position)),
        real.flatmap(lambda position: _mutated(position.notation).map(lambda text: pb.Position(notation=text))),
        messages(pb.Position.DESCRIPTOR, depth + 1),
    )


def _without_notation(position: pb.Position) -> pb.Position:
    structured = pb.Position()
    structured.CopyFrom(position)
    structured.ClearField("notation")
    return structured


def requests(method: descriptor.MethodDescriptor) -> st.SearchStrategy[Message]:
    """Wholly random requests, and requests built around a real position of the right game (so that the
    engines, the paging and the search are reached) with some of their fields random."""
    return st.one_of(messages(method.input_type), _coherent(method))


@st.composite
def _coherent(draw: st.DrawFn, method: descriptor.MethodDescriptor) -> Message:
    sample = draw(st.sampled_from(SAMPLES))
    request: Any = draw(messages(method.input_type))
    fields = method.input_type.fields_by_name
    for name in fields:  # keep about half of the random fields
        if draw(st.booleans()):
            request.ClearField(name)
    real = st.sampled_from([sample.position, pb.Position(notation=sample.position.notation)])
    if "game" in fields:
        request.game = draw(st.sampled_from([sample.game, f"games/{sample.game}"]))
    if "name" in fields:
        request.name = f"games/{sample.game}"
    if "position" in fields:  # mostly this game's real position; now and then anything
        request.position.CopyFrom(draw(real) if draw(st.integers(0, 4)) else draw(positions()))
    if "positions" in fields:
        request.positions.extend(draw(st.lists(real, max_size=4)))
    moves = st.sampled_from(sample.moves) if sample.moves else texts
    if "move" in fields and draw(st.integers(0, 4)):
        request.move.notation = draw(moves)
    if "moves" in fields:
        request.moves.extend(pb.Move(notation=move) for move in draw(st.lists(moves, max_size=3)))
    if "level" in fields:
        game_levels = [level.name for level in GAME_LEVELS[sample.game].levels]
        request.level = draw(st.sampled_from(["", *game_levels]) | texts)
    if "rating" in fields and draw(st.booleans()):  # a bot by rating: mostly in the range, alone or beside a level
        request.rating = draw(st.integers(MIN_RATING - 100, MAX_RATING + 100) | st.integers(-(2**31), 2**31 - 1))
        if draw(st.booleans()):
            request.ClearField("level")
    if "limits" in fields and draw(st.booleans()):
        small = st.integers(-1, 6)
        request.limits.CopyFrom(pb.SearchLimits(max_time_ms=draw(small) * 20, max_depth=draw(small)))
    if "page_size" in fields and draw(st.booleans()):
        request.page_size = draw(st.integers(-1, 5))
    return request


# --- the server and the checks -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_stub() -> Iterator[tuple[pb_grpc.GameRulesStub, grpc.Channel]]:
    """Its own server: searches capped at 100 ms so best-move examples stay quick."""
    config = ServerConfig(
        max_request_bytes=MAX_REQUEST_BYTES, service=ServiceConfig(max_think_ms=100, search_slots=2, search_queue=4)
    )
    running = create_server(config, address="127.0.0.1:0")
    with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield pb_grpc.GameRulesStub(channel), channel
    running.shutdown(1)


ANSWERS: dict[str, int] = {}  # the answers checked, by status code name: the run's count, printed


@pytest.fixture(scope="module", autouse=True)
def count_answers() -> Iterator[None]:
    yield
    print(f"gRPC fuzz: {sum(ANSWERS.values())} answers checked, by code {dict(sorted(ANSWERS.items()))}")


def check_answer(call: Any, request: Message) -> None:
    try:
        call(request, timeout=30)
        ANSWERS["OK"] = ANSWERS.get("OK", 0) + 1
        return
    except grpc.RpcError as error:
        code, details = error.code(), error.details()
        ANSWERS[code.name] = ANSWERS.get(code.name, 0) + 1
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and status is None:
        assert request.ByteSize() > MAX_REQUEST_BYTES, details  # gRPC's own size limit: no Status to carry
        return
    assert code in ACCEPTABLE, f"{code}: {details}"
    assert status is not None, f"{code} without a google.rpc.Status: {details}"
    infos = [detail for detail in status.details if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1, status
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    assert info.domain == "gamerules.v1" and info.reason, info


_EXAMPLES = {"BestMove": 40, "ListGames": 5}


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda method: method.name)
def test_random_requests_get_ok_or_a_client_error(fuzz_stub, method):
    stub, _ = fuzz_stub
    call = getattr(stub, method.name)

    @settings(
        max_examples=_EXAMPLES.get(method.name, 80) * FUZZ_SCALE,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(requests(method))
    def answers_well(request: Message) -> None:
        check_answer(call, request)

    answers_well()


def test_the_server_still_serves_after_the_fuzzing(fuzz_stub):
    stub, channel = fuzz_stub
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert len(stub.ListGames(pb.ListGamesRequest(), timeout=10).games) == len(GAMES)
    answer = stub.LegalMoves(pb.LegalMovesRequest(game="reversi", position=POSITIONS[0]), timeout=10)
    assert answer.total_size > 0


@pytest.mark.parametrize("text", ["é" * 50_000, "\U0001f600" * 30_000, "x" * 200_000])
def test_errors_quoting_huge_input_still_fit_in_the_answer(fuzz_stub, text):
    # gRPC clients drop answers whose metadata passes 8 KiB: every error must stay far below, whatever it quotes.
    stub, _ = fuzz_stub
    check_answer(stub.GetGame, pb.GetGameRequest(name=text))
    check_answer(stub.Score, pb.ScoreRequest(game="reversi", position=pb.Position(notation=text)))
    check_answer(stub.ApplyMove, pb.ApplyMoveRequest(game="kalah", position=POSITIONS[4], move=pb.Move(notation=text)))
    options = struct_pb2.Struct()
    options.update({text[:1000]: 1})
    check_answer(stub.NewGame, pb.NewGameRequest(game="strands", options=options, seed=text[:5000]))
