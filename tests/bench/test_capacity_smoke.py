"""``bench/capacity.py``'s arithmetic: the CPU of a process tree, and the plan from a level's cost."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from bench.capacity import plan_rows, tree_cpu_s


def test_a_process_tree_s_cpu_counts_its_children():
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        give_up = time.monotonic() + 60
        while (spent := tree_cpu_s(child.pid)) < 0.2:  # the child's own CPU, read from /proc
            assert time.monotonic() < give_up, "the child got no CPU"
            time.sleep(0.02)
        # The tree's CPU less this process's own is the child's: what it spent by then, at least.
        assert tree_cpu_s(os.getpid()) - time.process_time() >= spent - 0.02  # a clock tick's rounding
    finally:
        child.kill()
        child.wait()


def test_the_plan_takes_the_larger_of_cores_and_slots_and_never_fewer_than_two_pods():
    args = argparse.Namespace(move_every=10.0, rules_per_move=3)
    # 1,000 games, a move each 10 s: 100 moves a second at 1 s CPU and wall each = 100 cores, 100 searches.
    row = plan_rows("x", 1.0, 1.0, 0.0, 0.0, args)[1]
    assert "1,000 games:   100.0 server cores,  100.0 searches at once,   72 server pods" in row  # 100 / 1.4
    slow = plan_rows("x", 0.001, 1.0, 0.0, 0.0, args)[1]  # waiting, not computing: the slots decide
    assert "0.1 server cores,  100.0 searches at once,   50 server pods" in slow
    # Four calls a move (three rules calls and the best move's own) at 1 ms of gateway CPU each: 0.4 cores.
    gateway = plan_rows("x", 0.0, 0.0, 0.001, 0.002, args)[1]
    assert "0.4 gateway cores,   2 gateway pods" in gateway and "0.4 server cores" in gateway
    assert plan_rows("x", 0.0, 0.0, 0.0, 0.0, args)[0].endswith(
        "   2 server pods;   0.0 gateway cores,   2 gateway pods"
    )
