"""Which cores the best-move searches run on, and which the calls of the rules: a split of the cores the
server may use, so that a flood of best moves barely moves the latency of the rules calls.

Why cores and not only priority. A search takes all the CPU it is given. At nice 10 (``searches.py``) the
kernel gives a contended core to the rules calls first, but a rules call still crosses several threads (gRPC's
poller, a request thread, the client), and each wake-up that lands on a core running a search waits its turn.
The serving benchmark (``python -m bench --only soak --part flood --search-cpus all auto``) measures that tail
as a few milliseconds at p99 with every core shared, and most of it gone with the split. A core no search runs
on has no such wait; so by default (``auto``) a server that owns its cores runs its searches on all but the
first quarter of them (at least one core each way), and its workers, whose threads serve the rules calls, on
that first quarter.

``auto`` shares every core instead (no split) on one core, and when the process has a CPU quota below its
cores (a container limited to a share of a node's cores: its cores are not its own, and another process's
threads may run there anyway). ``all`` never splits; a list (``1``, ``2-7``, ``1,3``) names the search cores,
and the rules get the other cores the server may use. Linux only: elsewhere there is no split.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

AUTO, ALL = "auto", "all"
_CGROUP = Path("/sys/fs/cgroup")
_PROC_CGROUP = Path("/proc/self/cgroup")


@dataclass(frozen=True, slots=True)
class Split:
    """The cores of the rules calls (the server's workers) and of the searches; disjoint, neither empty."""

    rules: frozenset[int]
    search: frozenset[int]


def parse(text: str) -> frozenset[int]:
    """A core list (``0``, ``2-7``, ``1,3-4``) as a set; ValueError when it is not one."""
    cores: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"expected a core list such as 1 or 2-7 or 1,3, got {text!r}")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"the range {part.strip()!r} runs backwards")
        cores.update(range(low, high + 1))
    return frozenset(cores)


def text(cores: frozenset[int]) -> str:
    """A core set as a list ``parse`` reads back (``0,2,3``)."""
    return ",".join(str(core) for core in sorted(cores))


def usable() -> frozenset[int]:
    """The cores this process may run on (empty where the platform does not say)."""
    getter = getattr(os, "sched_getaffinity", None)
    return frozenset(getter(0)) if getter is not None else frozenset()


def quota() -> float | None:
    """The smallest CPU quota, in cores, of this process's cgroup and of its parents (cgroup v2 ``cpu.max``, v1
    ``cpu.cfs_quota_us``), None without one: a quota set on a parent (a systemd slice, a pod) binds too."""
    found = [limit for folder in _cgroup_folders() if (limit := _folder_quota(folder)) is not None]
    return min(found) if found else None


def _cgroup_folders() -> list[Path]:
    """The folders of this process's CPU cgroup and of its parents up to the mount, deepest first."""
    try:
        lines = _PROC_CGROUP.read_text().splitlines()
    except OSError:
        return [_CGROUP, _CGROUP / "cpu"]
    folders: list[Path] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # the v2 hierarchy
            mount = _CGROUP
        elif "cpu" in controllers.split(","):  # v1's cpu controller, often mounted with cpuacct
            mount = _CGROUP / controllers if (_CGROUP / controllers).is_dir() else _CGROUP / "cpu"
        else:
            continue
        folder = mount / path.strip("/")
        folders.append(folder)
        while folder != mount:
            folder = folder.parent
            folders.append(folder)
    return folders


def _folder_quota(folder: Path) -> float | None:
    try:
        limit, period = (folder / "cpu.max").read_text().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        pass
    try:
        limit_us = int((folder / "cpu.cfs_quota_us").read_text())
        period_us = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return limit_us / period_us if limit_us > 0 else None


def plan(setting: str, cores: frozenset[int] | None = None, cpu_quota: float | None = None) -> Split | None:
    """The split for ``--search-cpus`` (``auto``, ``all`` or a core list) over ``cores`` (default: ``usable()``,
    with ``quota()``), or None: every core shared. ValueError for a list that leaves no core to either side."""
    if cores is None:
        cores, cpu_quota = usable(), quota()
    setting = setting.strip().lower()
    if setting == ALL or not cores:
        return None
    if setting == AUTO:
        if len(cores) < 2 or (cpu_quota is not None and cpu_quota < len(cores)):
            return None
        ordered = sorted(cores)
        rules = frozenset(ordered[: math.ceil(len(ordered) / 4)])
        return Split(rules, cores - rules)
    search = parse(setting) & cores
    if not search or search == cores:
        raise ValueError(
            f"--search-cpus {setting!r} must name some but not all of the cores the server may use ({text(cores)})"
        )
    return Split(cores - search, search)


def pin_process(cores: frozenset[int]) -> None:
    """Run every thread of this process on ``cores`` (threads and processes it starts later inherit it);
    OSError where the platform refuses."""
    for task in Path("/proc/self/task").iterdir():
        try:
            os.sched_setaffinity(int(task.name), cores)
        except ProcessLookupError:  # a thread that ended meanwhile
            continue


def pin_thread(cores: frozenset[int]) -> None:
    """Run the calling thread on ``cores``."""
    os.sched_setaffinity(0, cores)
