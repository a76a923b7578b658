#!/usr/bin/env python3
"""Where a fresh server's first `continue_workflow` spends its time: on a CPU, waiting for one, or
elsewhere (the disk, the other side of a pipe), beside a warm server's first advance of another
run and its steady advances.

Usage: python3 crates/mcp/benches/first_call.py BINARY [ROUNDS] [PAUSE]

BINARY is a `switchyard` build. A first server starts 2 * ROUNDS runs (default 10) of the one-step
loop and exits. Then, ROUNDS times, a fresh `BINARY mcp` on the same store initializes, lists its
tools, waits PAUSE seconds (default 0), and advances:
- `first`: one run, the server's first tool call;
- `other run`: another run at once, a warm process's first advance of a run it has not seen;
- `steady`: the first run again, 30 times back to back, of which the last 20 count.

For each call it reads, before and after, every thread's `/proc/PID/task/TID/schedstat` (time on a
CPU and time runnable but waiting for one, in nanoseconds, summed over the server's threads) and
the process's minor page faults (`/proc/PID/stat`). It prints the median of each over the rounds:
wall time as the client sees it, CPU time (threads that ran side by side add up, so it can exceed
the wall time), run-queue wait and page faults. CPU time includes the kernel's work for the
process (system calls, page faults), which `instructions.py` does not count.
"""

import glob
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from instructions import Server, fresh_workspace  # noqa: E402


def counters(pid):
    """(ns on a CPU, ns waiting for one) over every thread, and minor page faults."""
    on_cpu = waiting = 0
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as file:
                ran, waited, _ = file.read().split()
        except (OSError, ValueError):
            continue  # a thread that ended between the listing and the read
        on_cpu += int(ran)
        waiting += int(waited)
    with open("/proc/%d/stat" % pid) as file:
        minor_faults = int(file.read().rsplit(")", 1)[1].split()[7])
    return on_cpu, waiting, minor_faults


def measured_advance(server, token):
    before = counters(server.process.pid)
    started = time.perf_counter()
    step = server.advance(token)
    wall = time.perf_counter() - started
    after = counters(server.process.pid)
    return step, (wall * 1e3, (after[0] - before[0]) / 1e6, (after[1] - before[1]) / 1e6, after[2] - before[2])


def main():
    arguments = sys.argv[1:]
    if not arguments:
        sys.exit(__doc__)
    binary = os.path.abspath(arguments[0])
    rounds = int(arguments[1]) if len(arguments) > 1 else 10
    pause = float(arguments[2]) if len(arguments) > 2 else 0.0
    home, workspace = fresh_workspace()
    starter = Server(binary, home, workspace, counted=False)
    tokens = [starter.start(workspace, "first call %d" % index)["continueToken"] for index in range(2 * rounds)]
    starter.finish()

    rows = {"first": [], "other run": [], "steady": []}
    for index in range(rounds):
        server = Server(binary, home, workspace, counted=False)
        server.request("tools/list", {})
        time.sleep(pause)
        step, figures = measured_advance(server, tokens[2 * index])
        rows["first"].append(figures)
        _, figures = measured_advance(server, tokens[2 * index + 1])
        rows["other run"].append(figures)
        token = step["continueToken"]
        for advance in range(30):
            step, figures = measured_advance(server, token)
            token = step["continueToken"]
            if advance >= 10:
                rows["steady"].append(figures)
        server.finish()

    print("medians over %d fresh servers, the first call %.1f s after tools/list:" % (rounds, pause))
    print("%-10s %9s %9s %11s %12s" % ("call", "wall ms", "CPU ms", "run queue", "page faults"))
    for name, figures in rows.items():
        wall, on_cpu, waiting, faults = (statistics.median(row[column] for row in figures) for column in range(4))
        print("%-10s %9.3f %9.3f %8.3f ms %12.0f" % (name, wall, on_cpu, waiting, faults))


if __name__ == "__main__":
    main()
