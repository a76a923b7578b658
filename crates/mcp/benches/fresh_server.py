#!/usr/bin/env python3
"""A fresh server's first calls, as the official Python SDK sees them, for two or more builds.

Usage: python3 crates/mcp/benches/fresh_server.py BINARY [BINARY ...] [--repetitions N]

Needs the `mcp` package (`python3 -m venv VENV && VENV/bin/pip install mcp`; run it with that
venv's python). Each repetition starts, for each BINARY in turn (the order alternating from one
repetition to the next), a fresh `BINARY mcp` over stdio through the SDK's `stdio_client` and
`ClientSession`, on a store of that build's own which earlier servers left, in a workspace holding
`bench-steps.json` (WorkRail's format). It times, as the client sees them:
- `initialize`: from spawning the process to the answer of `initialize`;
- `tools/list`;
- the first `start_workflow` and the first `continue_workflow` of the server;
- a second `start_workflow` and `continue_workflow` on the same server (later calls).

Beside each call's wall time it prints the server's CPU time for it (every thread's
`/proc/PID/task/TID/schedstat`, read before and after): the rest of the wall time is the client's
own work (the SDK parses each answer and, on a tool's first call, compiles a validator of its
output schema), the pipe, and waiting for a CPU. Medians over the repetitions (default 20).
"""

import argparse
import asyncio
import glob
import os
import shutil
import statistics
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

WORKFLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-steps.json")

CALLS = ["initialize", "tools/list", "first start_workflow", "first continue_workflow", "second start_workflow",
         "second continue_workflow"]


def server_cpu_ms(pid):
    """CPU time of every thread of `pid` so far, in milliseconds."""
    total = 0
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as file:
                total += int(file.read().split()[0])
        except (OSError, ValueError):
            continue  # a thread that ended between the listing and the read
    return total / 1e6


def server_pid(home):
    """The pid of the `mcp` server whose SWITCHYARD_HOME is `home` (the SDK does not expose it)."""
    for environ in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(environ, "rb") as file:
                if ("SWITCHYARD_HOME=%s" % home).encode() in file.read().split(b"\0"):
                    return int(environ.split("/")[2])
        except OSError:
            continue
    raise RuntimeError("no server runs on %s" % home)


class Build:
    def __init__(self, binary):
        self.binary = binary
        self.home = tempfile.mkdtemp(prefix="fresh-server-home-")
        self.workspace = tempfile.mkdtemp(prefix="fresh-server-workspace-")
        os.makedirs(os.path.join(self.workspace, ".switchyard/workflows"))
        shutil.copy(WORKFLOW, os.path.join(self.workspace, ".switchyard/workflows/bench-steps.json"))
        self.wall = {call: [] for call in CALLS}
        self.cpu = {call: [] for call in CALLS}

    def parameters(self):
        env = dict(os.environ, SWITCHYARD_HOME=self.home)
        env.pop("SWITCHYARD_STORE", None)
        return StdioServerParameters(command=self.binary, args=["mcp"], env=env, cwd=self.workspace)

    async def repetition(self, record=True):
        """One fresh server: its first calls, timed."""
        timings = []
        began = time.perf_counter()
        async with stdio_client(self.parameters()) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                timings.append(("initialize", time.perf_counter() - began, None))
                pid = server_pid(self.home)

                async def timed(call, request):
                    cpu = server_cpu_ms(pid)
                    started = time.perf_counter()
                    answer = await request
                    timings.append((call, time.perf_counter() - started, server_cpu_ms(pid) - cpu))
                    return answer

                await timed("tools/list", session.list_tools())
                for ordinal in ("first", "second"):
                    started = await timed("%s start_workflow" % ordinal, session.call_tool(
                        "start_workflow",
                        {"workflowId": "bench-steps", "workspacePath": self.workspace, "goal": "a fresh server"}))
                    assert not started.is_error, started
                    token = started.structured_content["continueToken"]
                    advanced = await timed("%s continue_workflow" % ordinal, session.call_tool(
                        "continue_workflow", {"continueToken": token, "output": {"notesMarkdown": "done"}}))
                    assert not advanced.is_error, advanced
        if record:
            for call, wall, cpu in timings:
                self.wall[call].append(wall * 1e3)
                if cpu is not None:
                    self.cpu[call].append(cpu)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--repetitions", type=int, default=20)
    arguments = parser.parse_args()
    builds = [Build(os.path.abspath(binary)) for binary in arguments.binaries]
    # Each build's store is created by a server not timed, so every timed one opens a store left
    # by the server before it, as a client's restart finds it.
    for build in builds:
        await build.repetition(record=False)
    print("load before: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    for repetition in range(arguments.repetitions):
        for build in builds if repetition % 2 == 0 else reversed(builds):
            await build.repetition()
    print("load after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    print("\nmedians of %d fresh servers each, wall time as the client sees it (server CPU):" % arguments.repetitions)
    print("| call | " + " | ".join(build.binary for build in builds) + " |")
    print("|---|" + "---|" * len(builds))
    for call in CALLS:
        cells = []
        for build in builds:
            cell = "%.2f ms" % statistics.median(build.wall[call])
            if build.cpu[call]:
                cell += " (%.2f ms)" % statistics.median(build.cpu[call])
            cells.append(cell)
        print("| %s | %s |" % (call, " | ".join(cells)))


if __name__ == "__main__":
    asyncio.run(main())
