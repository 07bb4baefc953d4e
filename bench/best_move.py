"""BestMove's contract measured through the REST gateway, as a portal calls it (``python -m bench.best_move``):
the production server (two workers, searches in their processes) and gateway on loopback.

- Proofs within the caller's time: FFO #1 (14 empties, g8 +18) at ``maxTimeMs`` 9,999, 10,000 and 30,000 alike
  (the cap is 10 s); FFO #40-#44 (20-23 empties) each with 10 s proved with a best move the suite names (FFO #40
  alone may instead search at least 7 s); Kalah(6,3) from the start proved +2 within 10 s; the empty 3x3 Dots
  and Boxes board proved -3.
- A caller's time is used: each game's strongest level given 2 s from a midgame position spends at least 1.4 s
  or proves, and never answers ``nodes`` (the ratio: the time spent over the time given).
- The line and the alternatives: Reversi ``expert`` at 1 s from a midgame answers a ``pv`` of at least 4 moves
  when its depth is 6 or more, alternatives best first, and an analysis answers its best alternative.
- A REST client that hangs up: the server's CPU falls to idle within 0.5 s (CPU time of the server's processes,
  read from ``/proc``, against a search that would have run 8 s more).
- A starved box: with two CPU burners, 8 BestMoves two at a time (``maxTimeMs`` 5000, ``Grpc-Timeout: 1S``) all
  answer 200 within 1.2 s; the baseline is the same calls on the idle box, in the same run.

``--quick`` runs one FFO #1 time and skips the 10 s proofs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.native import FFO, ffo
from bench.soak import children, servers, verdict

FFO_1 = "..BBBBB./.WWWBB.W/.WWWBBWB/.WBWBWBB/WBBBWBBB/..BWBWBB/.BBBWWW./.WWWWW.. 1 black=1"
KALAH_6_3 = "3,3,3,3,3,3,0/3,3,3,3,3,3,0 1 seeds=3"
DOTS_3X3 = "+.+.+.+/......./+.+.+.+/......./+.+.+.+/......./+.+.+.+ 1"
# Past the opening, not yet within the proofs' reach (the budget contract test's).
MIDGAMES = {
    "reversi": ("expert", "......../.B....B./.B.B.B../.BWWWWW./WBWBBW../.BWB..W./.B.B..../B..BBB.. 2 black=1"),
    "kalah": ("hard", "0,6,9,0,3,9,7/0,1,1,2,4,0,6 1 seeds=4"),
    "dots-and-boxes": (
        "hard",
        "+.+-+-+.+.+/..........|/+.+-+.+-+.+/|.........|/+.+-+.+-+-+/|.|...|..../+.+.+.+.+-+/|...|....../"
        "+.+-+.+.+-+/|........../+.+-+.+.+.+ 1",
    ),
    "petak-sawah": ("hard", ""),  # a new game's start: more cells than any reach
    "strands": ("hard", ""),
}
USED = 0.7


def call(base: str, game: str, body: dict[str, Any], timeout: str = "", path: str = "bestMove") -> tuple[int, dict]:
    request = urllib.request.Request(f"{base}/v1/games/{game}:{path}", data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if timeout:
        request.add_header("Grpc-Timeout", timeout)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            text = answer.read()
            if path == "analyze":
                lines = [json.loads(line) for line in text.splitlines() if line.strip()]
                return answer.status, lines[-1]["result"]["analysis"]
            return answer.status, json.loads(text)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def position(base: str, game: str, notation: str) -> dict[str, Any]:
    if notation:
        return {"notation": notation}
    status, body = call(base, game, {"seed": "bench"}, path="newGame")
    assert status == 200, body
    return dict(body["position"])


def proofs(base: str, quick: bool) -> bool:
    ok = True
    print("Proofs within the caller's time (REST, the server's cap 10 s):")
    for time_ms in (9_999,) if quick else (9_999, 10_000, 30_000):
        began = time.perf_counter()
        status, body = call(base, "reversi", {"position": {"notation": FFO_1}, "limits": {"maxTimeMs": time_ms}})
        got = (body.get("move", {}).get("notation"), body.get("value"), body.get("exact"))
        met = status == 200 and got == ("g8", 18, True)
        ok &= met
        print(f"  FFO #1 at maxTimeMs {time_ms:,}: {got} in {time.perf_counter() - began:.2f} s: {verdict(met)}")
    if quick:
        return ok
    ffos = [
        (f"FFO #{n} ({'/'.join(FFO[n][3])} {FFO[n][2]:+d})", "reversi", ffo(n).to_notation(), (FFO[n][3], FFO[n][2]))
        for n in range(40, 45)
    ]
    cases = [
        *ffos,
        ("Kalah(6,3) from the start (+2)", "kalah", KALAH_6_3, (None, 2)),
        ("the empty 3x3 Dots and Boxes board (-3)", "dots-and-boxes", DOTS_3X3, (None, -3)),
    ]
    for name, game, notation, (moves, value) in cases:
        began = time.perf_counter()
        status, body = call(base, game, {"position": {"notation": notation}, "limits": {"maxTimeMs": 10_000}})
        spent = time.perf_counter() - began
        proved = (
            body.get("exact") and body.get("value") == value and (moves is None or body["move"]["notation"] in moves)
        )
        met = status == 200 and (proved or (name.startswith("FFO #40 ") and spent >= 7.0))
        ok &= bool(met)
        state = f"proved {body.get('value')}" if body.get("exact") else f"unproved, {body.get('stopReason')}"
        print(f"  {name} with 10 s: {state}, {spent:.2f} s, depth {body.get('depth')}: {verdict(bool(met))}")
    return ok


def time_used(base: str) -> bool:
    ok = True
    print(f"Each game's strongest level with 2 s from a midgame (goal: {USED:.0%} used, or proved; never 'nodes'):")
    for game, (level, notation) in MIDGAMES.items():
        body = {"position": position(base, game, notation), "level": level, "limits": {"maxTimeMs": 2000}}
        began = time.perf_counter()
        status, answer = call(base, game, body)
        spent = time.perf_counter() - began
        met = status == 200 and answer.get("stopReason") != "nodes" and (answer.get("exact") or spent >= 1.4)
        ok &= bool(met)
        print(
            f"  {game} {level}: {spent / 2:.2f}x of the time, stopReason {answer.get('stopReason')}, "
            f"depth {answer.get('depth')}, pv {len(answer.get('pv', []))}: {verdict(bool(met))}"
        )
    return ok


def lines(base: str) -> bool:
    level, notation = MIDGAMES["reversi"]
    body = {"position": {"notation": notation}, "level": level, "limits": {"maxTimeMs": 1000}, "topN": 4}
    status, played = call(base, "reversi", body)
    _, analysed = call(base, "reversi", {**body, "purpose": "analysis"}, path="analyze")
    values = [scored["value"] for scored in played.get("alternatives", [])]
    pv, depth = len(played.get("pv", [])), played.get("depth", 0)
    met_pv = status == 200 and (depth < 6 or pv >= 4)
    met_sorted = values == sorted(values, reverse=True) and len(values) == 4
    best = analysed.get("alternatives", [{}])[0].get("move")
    met_best = best == analysed.get("move")
    print(
        f"Reversi expert at 1 s from a midgame: depth {depth}, pv {pv} moves (goal: 4 from depth 6): "
        f"{verdict(met_pv)}; alternatives {values}: {verdict(met_sorted)}; the analysis answers its best "
        f"alternative: {verdict(met_best)}"
    )
    return met_pv and met_sorted and met_best


def cpu_seconds(pid: int) -> float:
    """The CPU time of ``pid`` and its children (the server, its workers and their search processes)."""
    total = 0.0
    for each in [pid, *children(pid)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def hang_up(base: str, pid: int) -> bool:
    """A REST BestMove of 8 s whose client closes its connection after 0.5 s: how long the server's processes
    keep burning CPU after it: until the end of the first quarter second in which they used under 5 % of a
    core (so 0.25 s at best)."""
    host, port = base.removeprefix("http://").split(":")
    body = json.dumps(
        {"position": {"notation": MIDGAMES["reversi"][1]}, "level": "expert", "limits": {"maxTimeMs": 8000}}
    ).encode()
    head = (
        f"POST /v1/games/reversi:bestMove HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nGrpc-Timeout: 20S\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(head + body)
        time.sleep(0.5)
    closed = time.perf_counter()
    idle_at = None
    while time.perf_counter() - closed < 8.5:
        before, began = cpu_seconds(pid), time.perf_counter()
        time.sleep(0.25)
        if (cpu_seconds(pid) - before) / (time.perf_counter() - began) < 0.05:
            idle_at = time.perf_counter() - closed  # the end of the first idle quarter second
            break
    met = idle_at is not None and idle_at <= 0.5
    told = "never within 8.5 s" if idle_at is None else f"{idle_at:.2f} s"
    print(f"A REST client that hangs up after 0.5 s of an 8 s search: idle after {told} (goal: 0.5 s): {verdict(met)}")
    return met


def _burn(until: float) -> None:
    while time.monotonic() < until:
        pass


@contextlib.contextmanager
def burners(count: int, seconds: float) -> Iterator[None]:
    """``count`` processes that keep a core busy each for at most ``seconds``."""
    context = multiprocessing.get_context("spawn")
    until = time.monotonic() + seconds
    processes = [context.Process(target=_burn, args=(until,), daemon=True) for _ in range(count)]
    for process in processes:
        process.start()
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
            process.join()


def starved_calls(base: str) -> list[tuple[int, float]]:
    level, notation = MIDGAMES["reversi"]
    body = {"position": {"notation": notation}, "level": level, "limits": {"maxTimeMs": 5000}}

    def one(_: int) -> tuple[int, float]:
        began = time.perf_counter()
        status, _answer = call(base, "reversi", body, timeout="1S")
        return status, time.perf_counter() - began

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, range(8)))


def starvation(base: str) -> bool:
    idle = starved_calls(base)
    with burners(2, 30):
        time.sleep(0.5)
        starved = starved_calls(base)
    slowest, slowest_idle = max(t for _, t in starved), max(t for _, t in idle)
    met = all(status == 200 for status, _ in starved) and slowest <= 1.2
    print(
        f"8 BestMoves two at a time (maxTimeMs 5000, Grpc-Timeout 1S) beside two CPU burners: statuses "
        f"{sorted({s for s, _ in starved})}, the slowest {slowest:.2f} s, {slowest / slowest_idle:.2f}x the idle "
        f"box's {slowest_idle:.2f} s (goal: all 200 within 1.2 s): {verdict(met)}"
    )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one FFO #1 time, no 10 s proofs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as logs, servers("process", Path(logs)) as running:
        results = [
            proofs(running.rest, args.quick),
            time_used(running.rest),
            lines(running.rest),
            hang_up(running.rest, running.server_pid),
            starvation(running.rest),
        ]
    print(f"BestMove's contract: {sum(results)} of {len(results)} parts met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
