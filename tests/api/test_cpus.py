"""The split of the cores between the searches and the rules calls (``service/api/cpus.py``): the plan from
``--search-cpus``, and a real server and gateway whose processes and threads run where the plan says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.api import cpus
from service.api.rpc import searches
from service.api.rpc import server as server_module
from service.api.rpc.server import ServerConfig
from service.api.rpc.servicer import ServiceConfig
from tests.api.conftest import running_gateway
from tests.api.test_serving import best_move_request, fresh_stub, server_process

EIGHT = frozenset(range(8))


def test_core_lists_read_and_write_back() -> None:
    assert cpus.parse("1") == {1}
    assert cpus.parse("2-4,7") == {2, 3, 4, 7}
    assert cpus.parse(cpus.text(frozenset({0, 2, 3}))) == {0, 2, 3}
    for bad in ("", "a", "3-", "-1", "4-2", "1;2"):
        with pytest.raises(ValueError):
            cpus.parse(bad)


def test_auto_gives_the_rules_the_first_quarter_of_cores_the_server_owns() -> None:
    assert cpus.plan("auto", frozenset({0, 1}), None) == cpus.Split(frozenset({0}), frozenset({1}))
    assert cpus.plan("auto", EIGHT, None) == cpus.Split(frozenset({0, 1}), frozenset(range(2, 8)))
    assert cpus.plan("auto", frozenset({4, 5, 6}), 3.0) == cpus.Split(frozenset({4}), frozenset({5, 6}))
    assert cpus.plan("auto", frozenset({0}), None) is None  # one core: nothing to split
    assert cpus.plan("auto", EIGHT, 2.0) is None  # a quota below the cores: they are shared with others
    assert cpus.plan("all", EIGHT, None) is None


def test_a_list_names_the_search_cores_and_must_leave_some_to_each_side() -> None:
    assert cpus.plan("2-7", EIGHT, None) == cpus.Split(frozenset({0, 1}), frozenset(range(2, 8)))
    assert cpus.plan("7,9", EIGHT, None) == cpus.Split(frozenset(range(7)), frozenset({7}))  # 9: not ours
    for bad in ("0-7", "9", "x"):
        with pytest.raises(ValueError):
            cpus.plan(bad, EIGHT, None)


def test_the_quota_is_the_smallest_of_the_cgroup_and_its_parents(tmp_path, monkeypatch) -> None:
    """cgroup v2: a quota on a parent (a slice, a pod) binds a child without one; v1: the cpu controller's own
    mount; no quota anywhere: None."""
    monkeypatch.setattr(cpus, "_CGROUP", tmp_path)
    monkeypatch.setattr(cpus, "_PROC_CGROUP", tmp_path / "self-cgroup")
    (tmp_path / "self-cgroup").write_text("0::/kubepods/pod1/server\n")
    (tmp_path / "kubepods" / "pod1" / "server").mkdir(parents=True)
    (tmp_path / "kubepods" / "pod1" / "server" / "cpu.max").write_text("max 100000\n")
    assert cpus.quota() is None
    (tmp_path / "kubepods" / "pod1" / "cpu.max").write_text("200000 100000\n")
    assert cpus.quota() == 2.0
    (tmp_path / "self-cgroup").write_text("4:cpu,cpuacct:/docker/abc\n2:memory:/docker/abc\n")
    v1 = tmp_path / "cpu,cpuacct" / "docker" / "abc"
    v1.mkdir(parents=True)
    (v1 / "cpu.cfs_quota_us").write_text("150000\n")
    (v1 / "cpu.cfs_period_us").write_text("100000\n")
    assert cpus.quota() == 1.5
    (v1 / "cpu.cfs_quota_us").write_text("-1\n")
    assert cpus.quota() is None


def test_a_platform_that_refuses_the_split_leaves_every_core_shared(monkeypatch) -> None:
    def refuse(cores: frozenset[int]) -> None:
        raise PermissionError("not permitted")

    monkeypatch.setattr(cpus, "pin_process", refuse)
    split = ServerConfig(rules_cores=frozenset({0}), service=ServiceConfig(search_cores=frozenset({1})))
    shared = server_module._split_cores(split)
    assert shared.rules_cores is None and shared.service.search_cores is None


def test_the_server_flag_and_its_environment_variable(monkeypatch) -> None:
    config = server_module.parse_args(["--search-cpus", "all"])
    assert config.rules_cores is None and config.service.search_cores is None
    with pytest.raises(SystemExit):
        server_module.parse_args(["--search-cpus", "nonsense"])
    if len(cpus.usable()) >= 2:
        monkeypatch.setenv("GAMERULES_SEARCH_CPUS", cpus.text(frozenset({max(cpus.usable())})))
        config = server_module.parse_args([])
        assert config.service.search_cores == {max(cpus.usable())}
        assert config.rules_cores == cpus.usable() - {max(cpus.usable())}


def affinity_of_every_thread(pid: int) -> set[frozenset[int]]:
    """The core sets of the process's threads (a thread that ends meanwhile is left out)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.add(frozenset(os.sched_getaffinity(int(task.name))))
        except (ProcessLookupError, FileNotFoundError):
            continue
    return found


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    below = children(pid)
    return below + [grandchild for child in below for grandchild in descendants(child)]


needs_two_cores = pytest.mark.skipif(
    not {0, 1} <= cpus.usable(), reason="the split needs cores 0 and 1 to be this process's"
)


@needs_two_cores
def test_a_real_server_runs_its_workers_and_searches_on_their_own_cores() -> None:
    """Every thread of the server and its workers on core 0, the search processes a BestMove starts on 1 (at
    the searches' nice)."""
    with server_process("--search-cpus", "1", workers=2) as running:
        channel, stub = fresh_stub(running.address)
        with channel:
            answer = stub.BestMove(best_move_request(pb.SearchLimits(max_time_ms=50)), timeout=30)
            assert answer.move.notation
        pids = [running.process.pid, *descendants(running.process.pid)]
        placed = {pid: affinity_of_every_thread(pid) for pid in pids}
        searching = [pid for pid, cores in placed.items() if cores == {frozenset({1})}]
        assert searching, placed  # the search process of the worker that took the call
        assert all(os.getpriority(os.PRIO_PROCESS, pid) == searches.SEARCH_NICE for pid in searching)
        for pid, cores in placed.items():
            assert cores in ({frozenset({0})}, {frozenset({1})}), (pid, cores)
        for pid in running.worker_pids():
            assert placed[pid] == {frozenset({0})}


@needs_two_cores
def test_the_gateway_runs_on_the_cores_it_is_given() -> None:
    with (
        server_process("--search-cpus", "all", workers=1) as running,
        running_gateway(running.address, workers=2, extra=("--cpus", "0")) as url,
    ):
        port = url.rpartition(":")[2]
        gateways = [
            int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit() and _is_gateway(entry, port)
        ]
        assert gateways
        for pid in [*gateways, *(child for gateway in gateways for child in descendants(gateway))]:
            assert affinity_of_every_thread(pid) == {frozenset({0})}


def _is_gateway(entry: Path, port: str) -> bool:
    try:
        command = (entry / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"service.api.rest.gateway_server" in command and f"127.0.0.1:{port}".encode() in command
