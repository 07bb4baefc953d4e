"""The asyncio client against a real server: the same methods as the sync client (checked by signature), the
same answers, the same errors with their Status details, deadlines and retries of UNAVAILABLE only."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
from typing import TypeVar

import grpc
import pytest

import gamerules_client as gc
from tests.api.conftest import free_port
from tests.clients.test_client import START, fake

__all__ = ["fake"]

T = TypeVar("T")


def run(coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    return asyncio.run(main())


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(value) for name, value in vars(cls).items() if not name.startswith("_")}


def test_the_same_methods_with_the_same_arguments_as_the_sync_client():
    sync, aio = _public(gc.GameRulesClient), _public(gc.AsyncGameRulesClient)
    assert sync.keys() == aio.keys() and "best_move" in aio
    for name, signature in sync.items():
        assert list(signature.parameters.values()) == list(aio[name].parameters.values()), name
        is_async = inspect.iscoroutinefunction(getattr(gc.AsyncGameRulesClient, name))
        is_async_iterator = inspect.isasyncgenfunction(getattr(gc.AsyncGameRulesClient, name))
        assert is_async or is_async_iterator, name
    assert inspect.signature(gc.GameRulesClient.__init__).parameters.keys() == (
        inspect.signature(gc.AsyncGameRulesClient.__init__).parameters.keys()
    )


def test_a_game_through_the_asyncio_client(grpc_address):
    async def play() -> None:
        async with gc.AsyncGameRulesClient(grpc_address) as client:
            assert {game.id for game in await client.list_games()} >= {"reversi", "kalah"}
            assert (await client.get_game("games/reversi")).name == "games/reversi"
            start = await client.new_game("reversi", {"size": 8}, seed="1")
            assert start.position.notation == START and start.to_move == 1
            page = await client.legal_moves("reversi", START, page_size=3)
            assert page.total_size == 4 and len(page.moves) == 3 and page.next_page_token
            every = [move.notation async for move in client.iter_legal_moves("reversi", START, page_size=3)]
            assert sorted(every) == ["c4", "d3", "e6", "f5"]
            step = await client.apply_move("reversi", START, "d3")
            replay = await client.apply_moves("reversi", START, ["d3"])
            assert replay.steps[-1].position == step.position
            assert list((await client.score("reversi", step.position)).scores) == [4, 1]
            scores = await client.batch_score("reversi", [START, step.position])
            assert [list(score.scores) for score in scores] == [[2, 2], [4, 1]]
            best = await client.best_move("reversi", START, "expert", max_depth=2, top_n=2, seed="7")
            assert best.move.notation in every and best.depth == 2 and len(best.alternatives) == 2
            updates = [update async for update in client.analyze_position("reversi", START, "expert", max_depth=3)]
            assert updates[-1].final and not any(update.final for update in updates[:-1])
            assert updates[-1].analysis.move.notation in every
            svg = await client.render_position("reversi", START, size=200, show_legal_moves=True)
            assert svg.startswith(b"<svg") and b"</svg>" in svg
            # Calls run concurrently on one channel.
            answers = await asyncio.gather(*(client.score("reversi", START) for _ in range(8)))
            assert all(list(answer.scores) == [2, 2] for answer in answers)
            assert await client.ready()

    run(play())


def test_the_same_errors_as_the_sync_client(grpc_address):
    async def fail() -> list[gc.GameRulesError]:
        errors = []
        async with gc.AsyncGameRulesClient(grpc_address) as client:
            for call in (
                client.apply_move("reversi", START, "a1"),
                client.score("reversi", "not a position"),
                client.new_game("chess"),
            ):
                with pytest.raises(gc.GameRulesError) as caught:
                    await call
                errors.append(caught.value)
        return errors

    illegal, malformed, unknown = run(fail())
    assert type(illegal) is gc.FailedPreconditionError and illegal.reason == "ILLEGAL_MOVE"
    assert illegal.fields == ["move"] and illegal.precondition_violations[0].type == "ILLEGAL_MOVE"
    assert type(malformed) is gc.InvalidArgumentError and malformed.reason == "INVALID_NOTATION"
    assert malformed.field_violations[0].field == "position.notation"
    assert type(unknown) is gc.NotFoundError and unknown.metadata["game"] == "games/chess"


def test_unavailable_is_retried_and_other_codes_are_not(fake):
    servicer, address = fake

    async def calls() -> None:
        async with gc.AsyncGameRulesClient(address, timeout=4) as client:
            assert [game.id for game in await client.list_games()] == ["fake"]
            assert servicer.calls == 3
            servicer.code, servicer.failures, servicer.calls = grpc.StatusCode.RESOURCE_EXHAUSTED, 5, 0
            with pytest.raises(gc.ResourceExhaustedError):
                await client.list_games()
            assert servicer.calls == 1
            await client.best_move("reversi", START, timeout=2)

    run(calls())
    cheap, search = servicer.time_remaining[2], servicer.time_remaining[-1]
    assert cheap is not None and 0 < cheap <= 4.1  # the default deadline travelled with the call
    assert search is not None and 0 < search <= 2.1


def test_an_unreachable_server_raises():
    async def call() -> None:
        async with gc.AsyncGameRulesClient(f"127.0.0.1:{free_port()}", timeout=0.5, max_attempts=2) as client:
            assert not await client.ready(timeout=0.5)
            with pytest.raises(gc.GameRulesError) as caught:
                await client.list_games()
            assert caught.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

    run(call())
