#!/usr/bin/env python3
"""Instructions per durable advance in process, counted by callgrind.

Usage: python3 crates/runtime/benches/instructions.py BINARY [SHORT LONG] [--top N]

BINARY is the `advance_instructions` bench binary, as printed by
`cargo bench -p switchyard-runtime --bench advance_instructions --no-run`
(target/release/deps/advance_instructions-<hash>).
It runs BINARY under `valgrind --tool=callgrind` twice, side by side: SHORT advances (default 200)
and LONG advances (default 400) on one run each, and prints
(instructions of LONG - instructions of SHORT) / (LONG - SHORT): the user-space instructions of one
advance across all threads (the caller's, the store's writer, the checkpointer), start-up and the
run's start excluded. Kernel work (the fsync, the writes) is not counted. Under valgrind the CPU
has no SHA extensions, so SHA-256 counts its software instructions.

With --top N it also prints the N functions with the most inclusive instructions per advance (the
same difference, function by function, from `callgrind_annotate --inclusive=yes`). Both callgrind
files are kept and their paths printed.
"""

import argparse
import os
import re
import subprocess
import tempfile
import threading


def count(binary, advances, out_dir, results):
    out_file = os.path.join(out_dir, "callgrind.%d" % advances)
    env = dict(os.environ, ADVANCES=str(advances))
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file, binary],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out_file) as file:
        totals = [line for line in file if line.startswith(("summary:", "totals:"))]
    results[advances] = (int(totals[-1].split()[1]), out_file)


def inclusive(out_file):
    """Inclusive instructions by function name, from callgrind_annotate's function list. A function
    whose code was inlined from several files is listed once per file, one part inside another, so
    the largest part stands for the whole."""
    listing = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--auto=no", "--threshold=100", out_file],
        check=True, capture_output=True, text=True).stdout
    by_function = {}
    for line in listing.splitlines():
        found = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.+)$", line)
        if not found or "=>" in line:
            continue
        location = re.sub(r" \[[^]]*\]$", "", found.group(2).strip())
        name = location.split(":", 1)[1] if ":" in location and not location.startswith("???") else location
        by_function[name] = max(by_function.get(name, 0), int(found.group(1).replace(",", "")))
    return by_function


def main():
    parser = argparse.ArgumentParser(description="Instructions per durable advance in process.")
    parser.add_argument("binary")
    parser.add_argument("short", nargs="?", type=int, default=200)
    parser.add_argument("long", nargs="?", type=int, default=400)
    parser.add_argument("--top", type=int, default=0)
    arguments = parser.parse_args()
    if arguments.long <= arguments.short:
        parser.error("LONG must be more advances than SHORT")
    binary = os.path.abspath(arguments.binary)
    out_dir = tempfile.mkdtemp(prefix="switchyard-instructions-")
    results = {}
    runs = [threading.Thread(target=count, args=(binary, n, out_dir, results))
            for n in (arguments.short, arguments.long)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    span = arguments.long - arguments.short
    for advances in (arguments.short, arguments.long):
        print("%d advances: %d instructions (%s)" % (advances, *results[advances]))
    print("instructions per advance: %.0f" % ((results[arguments.long][0] - results[arguments.short][0]) / span))
    if arguments.top:
        short, long = inclusive(results[arguments.short][1]), inclusive(results[arguments.long][1])
        difference = {name: (long[name] - short.get(name, 0)) / span for name in long}
        for name, per_advance in sorted(difference.items(), key=lambda item: -item[1])[:arguments.top]:
            print("%10.0f  %s" % (per_advance, name))


if __name__ == "__main__":
    main()
