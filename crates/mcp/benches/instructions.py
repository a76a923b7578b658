#!/usr/bin/env python3
"""Instructions per `continue_workflow` advance, counted by callgrind: a figure the machine's noise
cannot move, for comparing builds whose wall-clock difference is smaller than that noise.

Usage: python3 crates/mcp/benches/instructions.py BINARY [SHORT LONG]

Runs `BINARY mcp` under `valgrind --tool=callgrind` twice, concurrently: a start and SHORT advances
(default 220), then a start and LONG advances (default 420), all on one run of a one-step loop,
and prints (instructions of LONG - instructions of SHORT) / (LONG - SHORT): the user-space
instructions of one advance across all of the server's threads, start-up and the start excluded.
Kernel work (the fsync, the writes) is not counted. Under valgrind the CPU has no SHA extensions,
so SHA-256 counts its software instructions. Each run's callgrind file is kept and named, for
`callgrind_annotate --inclusive=yes FILE`.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

WORKFLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-loop.yaml")


def instructions(binary, advances, results):
    home, workspace, out = tempfile.mkdtemp(), tempfile.mkdtemp(), tempfile.mkdtemp()
    os.makedirs(os.path.join(workspace, ".switchyard/workflows"))
    shutil.copy(WORKFLOW, os.path.join(workspace, ".switchyard/workflows/bench-loop.yaml"))
    env = dict(os.environ, SWITCHYARD_HOME=home)
    env.pop("SWITCHYARD_STORE", None)
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s/callgrind.%%p" % out, binary, "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=workspace)
    next_id = 0

    def request(method, params):
        nonlocal next_id
        next_id += 1
        frame = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}
        server.stdin.write((json.dumps(frame) + "\n").encode())
        server.stdin.flush()
        while True:
            answer = json.loads(server.stdout.readline())
            if answer.get("id") == next_id:
                return answer

    def call(tool, arguments):
        answer = request("tools/call", {"name": tool, "arguments": arguments})
        assert "error" not in answer and not answer["result"].get("isError"), answer
        return answer["result"]["structuredContent"]

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "instructions", "version": "1"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()
    step = call("start_workflow", {"workflowId": "bench-loop", "workspacePath": workspace, "goal": "count"})
    for _ in range(advances):
        step = call("continue_workflow", {"continueToken": step["continueToken"], "output": {"notesMarkdown": "step"}})
    server.stdin.close()
    server.wait()
    path = glob.glob(out + "/callgrind.*")[0]
    with open(path) as file:
        totals = [line for line in file if line.startswith(("summary:", "totals:"))]
    results[advances] = (int(totals[-1].split()[1]), path)


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    short, long = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) == 4 else (220, 420)
    if long <= short:
        sys.exit("LONG must be more advances than SHORT")
    results = {}
    runs = [threading.Thread(target=instructions, args=(binary, n, results)) for n in (short, long)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    for advances in (short, long):
        print("%d advances: %d instructions (%s)" % (advances, *results[advances]))
    per_advance = (results[long][0] - results[short][0]) / (long - short)
    print("instructions per advance: %.0f" % per_advance)


if __name__ == "__main__":
    main()
