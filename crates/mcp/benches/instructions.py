#!/usr/bin/env python3
"""Instructions per MCP call, counted by callgrind: a figure the machine's noise cannot move, for
comparing builds whose wall-clock difference is smaller than that noise.

Usage: python3 crates/mcp/benches/instructions.py BINARY [MODE] [SHORT LONG]

MODE is one of:
- `advance` (the default): `continue_workflow` advances in steady state. Runs `BINARY mcp` under
  `valgrind --tool=callgrind` twice, concurrently: a start and SHORT advances (default 220), then a
  start and LONG advances (default 420), all on one run of a one-step loop, and prints
  (instructions of LONG - instructions of SHORT) / (LONG - SHORT): the user-space instructions of
  one advance across all of the server's threads, start-up and the start excluded.
- `first`: the first `continue_workflow` in a fresh server process. A server outside valgrind
  starts SHORT runs (default 5); then one server under callgrind only initializes, and one
  initializes and advances each run once. Prints (second - first) for the first advance and
  for each further one, so the first call's extra work stands beside the steady state. Each
  counted server lists its tools and then waits SETTLE seconds (environment, default 2) before
  its first call, as a client's first tool call comes after its model's first turn: what a
  server prepares in the background once it starts counts in every run, not in the first call.
- `start`: `start_workflow` in a workspace that is a git repository with one commit, SHORT
  (default 20) against LONG (default 40) starts, children traced too (`git` included), so the
  figure holds every process a start runs.

Kernel work (the fsync, the writes, a process start) is not counted. Under valgrind the CPU has no
SHA extensions, so SHA-256 counts its software instructions. Each run's callgrind files are kept
and named, for `callgrind_annotate --inclusive=yes FILE`.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

WORKFLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-loop.yaml")


def fresh_workspace(git=False):
    home, workspace = tempfile.mkdtemp(), tempfile.mkdtemp()
    os.makedirs(os.path.join(workspace, ".switchyard/workflows"))
    shutil.copy(WORKFLOW, os.path.join(workspace, ".switchyard/workflows/bench-loop.yaml"))
    if git:
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["git", "-C", workspace, "init", "--quiet"], **quiet)
        subprocess.run(["git", "-C", workspace, "-c", "user.name=bench", "-c", "user.email=bench@invalid",
                        "commit", "--quiet", "--allow-empty", "-m", "first"], **quiet)
    return home, workspace


class Server:
    """`BINARY mcp` over stdio, under callgrind unless `counted` is false."""

    def __init__(self, binary, home, workspace, counted=True, children=False):
        self.out = tempfile.mkdtemp()
        env = dict(os.environ, SWITCHYARD_HOME=home)
        env.pop("SWITCHYARD_STORE", None)
        command = [binary, "mcp"]
        if counted:
            command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s/callgrind.%%p" % self.out,
                       "--trace-children=%s" % ("yes" if children else "no")] + command
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env, cwd=workspace)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "instructions", "version": "1"}})
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        frame = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write((json.dumps(frame) + "\n").encode())
        self.process.stdin.flush()
        while True:
            answer = json.loads(self.process.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def call(self, tool, arguments):
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "error" not in answer and not answer["result"].get("isError"), answer
        return answer["result"]["structuredContent"]

    def start(self, workspace, goal):
        return self.call("start_workflow", {"workflowId": "bench-loop", "workspacePath": workspace, "goal": goal})

    def advance(self, token):
        return self.call("continue_workflow", {"continueToken": token, "output": {"notesMarkdown": "step"}})

    def finish(self):
        """Closes stdin, waits, and returns (instructions over every counted process, files)."""
        self.process.stdin.close()
        self.process.wait()
        paths = sorted(glob.glob(self.out + "/callgrind.*"))
        total = 0
        for path in paths:
            with open(path) as file:
                totals = [line for line in file if line.startswith(("summary:", "totals:"))]
            total += int(totals[-1].split()[1])
        return total, paths


def concurrently(jobs):
    results = {}
    threads = [threading.Thread(target=lambda key=key, job=job: results.__setitem__(key, job()))
               for key, job in jobs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def advance_mode(binary, short, long):
    def run(advances):
        home, workspace = fresh_workspace()
        server = Server(binary, home, workspace)
        step = server.start(workspace, "count")
        for _ in range(advances):
            step = server.advance(step["continueToken"])
        return server.finish()

    results = concurrently({short: lambda: run(short), long: lambda: run(long)})
    for advances in (short, long):
        print("%d advances: %d instructions (%s)" % (advances, results[advances][0], results[advances][1][0]))
    print("instructions per advance: %.0f" % ((results[long][0] - results[short][0]) / (long - short)))


def first_mode(binary, runs):
    home, workspace = fresh_workspace()
    starter = Server(binary, home, workspace, counted=False)
    tokens = [starter.start(workspace, "first %d" % index)["continueToken"] for index in range(runs)]
    starter.finish()

    settle = float(os.environ.get("SETTLE", "2"))

    def run(advances):
        server = Server(binary, home, workspace)
        server.request("tools/list", {})
        time.sleep(settle)
        for token in tokens[:advances]:
            server.advance(token)
        return server.finish()

    # One after the other: both servers share the store, and the advancing one writes to it.
    idle = run(0)
    one = run(1)
    every = run(runs)
    print("initialize only: %d instructions (%s)" % (idle[0], idle[1][0]))
    print("initialize + 1 advance: %d instructions (%s)" % (one[0], one[1][0]))
    print("initialize + %d advances: %d instructions (%s)" % (runs, every[0], every[1][0]))
    first = one[0] - idle[0]
    further = (every[0] - one[0]) / (runs - 1)
    print("first advance in a fresh process: %d instructions" % first)
    print("each further advance (first advance of another run): %.0f instructions" % further)
    print("first / further: %.1fx" % (first / further))


def start_mode(binary, short, long):
    def run(starts):
        home, workspace = fresh_workspace(git=True)
        server = Server(binary, home, workspace, children=True)
        for index in range(starts):
            server.start(workspace, "start %d" % index)
        return server.finish()

    results = concurrently({short: lambda: run(short), long: lambda: run(long)})
    for starts in (short, long):
        total, paths = results[starts]
        print("%d starts: %d instructions in %d processes (%s)" % (starts, total, len(paths), paths[0]))
    print("instructions per start_workflow (children included): %.0f"
          % ((results[long][0] - results[short][0]) / (long - short)))


def main():
    arguments = sys.argv[1:]
    if not arguments:
        sys.exit(__doc__)
    binary = os.path.abspath(arguments.pop(0))
    mode = arguments.pop(0) if arguments and not arguments[0].isdigit() else "advance"
    numbers = [int(argument) for argument in arguments]
    if mode == "advance":
        short, long = numbers if len(numbers) == 2 else (220, 420)
        if long <= short:
            sys.exit("LONG must be more advances than SHORT")
        advance_mode(binary, short, long)
    elif mode == "first":
        runs = numbers[0] if numbers else 5
        if runs < 2:
            sys.exit("`first` needs at least 2 runs")
        first_mode(binary, runs)
    elif mode == "start":
        short, long = numbers if len(numbers) == 2 else (20, 40)
        if long <= short:
            sys.exit("LONG must be more starts than SHORT")
        start_mode(binary, short, long)
    else:
        sys.exit("unknown mode `%s`: advance, first or start" % mode)


if __name__ == "__main__":
    main()
