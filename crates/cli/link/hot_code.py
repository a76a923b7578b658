#!/usr/bin/env python3
"""Writes `hot-code.txt`: the functions the `switchyard` binary runs in its everyday work, which
an optimised link places side by side (`../build.rs` says why).

Usage: python3 crates/cli/link/hot_code.py BINARY [ALSO ...] [--from CALLGRIND_FOLDER]

BINARY is a build with symbols, v0 names and the same dependencies as the release build:
`cargo build --profile profiling -p switchyard` (target/profiling/switchyard; `.cargo/config.toml`
asks for v0 names, so leave RUSTFLAGS unset). The script runs it under
`valgrind --tool=callgrind` through four workloads:

- `rest`: `switchyard mcp` over stdio and `switchyard serve` over HTTP, each initialized and its
  tools listed, left a few seconds to settle, then stopped: what a server runs before its
  first tool call;
- `mcp`: `switchyard mcp` over stdio, `list_workflows`, a `start_workflow` and 40
  `continue_workflow` advances of the MCP benchmarks' loop (`crates/mcp/benches/bench-loop.yaml`);
- `runner`: `switchyard run` against the runner benchmarks' fake model, through the `run_memory`
  benchmark (`cargo bench -p switchyard-runner --bench run_memory`, 50 and 500 turns);
- `commands`: `switchyard validate` and `switchyard list` over the WorkRail corpus in
  `../shared/testdata` (some of its files are meant to fail; the exit code is not looked at).

Every function callgrind saw run in the binary, and every alias rustc made of it, is written as
a pattern over its symbol, one per line: the hash that names each crate (`Cs…_`, which changes
with the build profile, the dependencies and the compiler) and the back-references that count
bytes after it (`B…_`) become `*`, so the list matches the same functions in a release or dist
build. C functions (SQLite, aws-lc, mimalloc) keep their plain names. The functions come in
groups by the workloads that ran them, in the order GROUPS gives.

With CALLGRIND_FOLDER (printed by an earlier run), BINARY's functions are read from that run's
files instead of running the workloads again.

ALSO are builds already linked with the list, of another profile (`cargo build --profile bench
-p switchyard`, copied aside: it has symbols, the release build has none). The workloads run with
each of them too, and what they ran is added: a build of another profile inlines and names some
functions differently, and each such function left out of the laid-out section costs the pages
around it (the kernel maps up to 64 KiB around a faulting page of a file, more when it reads
ahead). Callgrind names only the functions outside the laid-out section of such a build, which
are exactly the ones missing.
"""

import argparse
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUTPUT = os.path.join(HERE, "hot-code.txt")
CORPUS = os.path.abspath(os.path.join(ROOT, "..", "shared", "testdata", "workrail"))
# Seconds a server at rest is left before it stops (see `rest_workload`).
SETTLE = 3
BASE62 = re.compile(r"[0-9a-zA-Z]*_")
DECIMAL = re.compile(r"0|[1-9][0-9]*")


class Symbol:
    """A reader over one v0 symbol name (the Rust mangling RFC 2603 grammar), copying it to
    `out` with crate hashes and back-references replaced by `*`."""

    def __init__(self, text):
        self.text, self.at, self.out = text, 0, []

    def peek(self):
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self, count=1):
        piece = self.text[self.at:self.at + count]
        if len(piece) != count:
            raise ValueError("ends early")
        self.at += count
        self.out.append(piece)
        return piece

    def base62(self, keep=True):
        match = BASE62.match(self.text, self.at)
        if not match:
            raise ValueError("base-62 number expected")
        self.at = match.end()
        self.out.append(match.group() if keep else "*_")

    def decimal(self):
        match = DECIMAL.match(self.text, self.at)
        if not match:
            raise ValueError("decimal expected")
        self.at = match.end()
        self.out.append(match.group())
        return int(match.group())

    def undisambiguated_identifier(self):
        if self.peek() == "u":
            self.take()
        length = self.decimal()
        if self.peek() == "_":
            self.take()
        self.take(length)

    def identifier(self, crate_root=False):
        if self.peek() == "s":
            self.take()
            self.base62(keep=not crate_root)
        self.undisambiguated_identifier()

    def backref(self):
        self.take()  # B
        self.base62(keep=False)

    def numbered(self, tag):
        """An optional `tag` and the base-62 number after it (a lifetime, a binder)."""
        if self.peek() == tag:
            self.take()
            self.base62()

    def until_end(self, read):
        """`read` again and again, up to the `E` that closes the list, which it takes."""
        while self.peek() != "E":
            read()
        self.take()

    def path(self):
        tag = self.peek()
        if tag == "C":
            self.take()
            self.identifier(crate_root=True)
        elif tag == "M":
            self.take()
            self.impl_path()
            self.type()
        elif tag == "X":
            self.take()
            self.impl_path()
            self.type()
            self.path()
        elif tag == "Y":
            self.take()
            self.type()
            self.path()
        elif tag == "N":
            self.take()
            self.take()  # namespace
            self.path()
            self.identifier()
        elif tag == "I":
            self.take()
            self.path()
            self.until_end(self.generic_arg)
        elif tag == "B":
            self.backref()
        else:
            raise ValueError("path expected at %d" % self.at)

    def impl_path(self):
        if self.peek() == "s":
            self.take()
            self.base62()
        self.path()

    def generic_arg(self):
        if self.peek() == "L":
            self.numbered("L")
        elif self.peek() == "K":
            self.take()
            self.const()
        else:
            self.type()

    def type(self):
        tag = self.peek()
        if tag and tag in "abcdefhijlmnopstuvxyz":
            self.take()
        elif tag in ("C", "M", "X", "Y", "N", "I"):
            self.path()
        elif tag == "B":
            self.backref()
        elif tag == "A":
            self.take()
            self.type()
            self.const()
        elif tag in ("S", "P", "O"):
            self.take()
            self.type()
        elif tag in ("R", "Q"):
            self.take()
            self.numbered("L")
            self.type()
        elif tag == "F":
            self.take()
            self.numbered("G")
            if self.peek() == "U":
                self.take()
            if self.peek() == "K":
                self.take()
                if self.peek() == "C":
                    self.take()
                else:
                    self.undisambiguated_identifier()
            self.until_end(self.type)
            self.type()
        elif tag == "D":
            self.take()
            self.numbered("G")
            self.until_end(self.dyn_trait)
            self.numbered("L")
        elif tag == "T":
            self.take()
            self.until_end(self.type)
        else:
            raise ValueError("type expected at %d" % self.at)

    def dyn_trait(self):
        self.path()
        while self.peek() == "p":
            self.take()
            self.undisambiguated_identifier()
            self.type()

    def const(self):
        tag = self.peek()
        if tag == "B":
            self.backref()
        elif tag == "p":
            self.take()
        else:
            self.type()
            if self.peek() == "n":
                self.take()
            match = re.compile(r"[0-9a-f]*_").match(self.text, self.at)
            if not match:
                raise ValueError("const data expected")
            self.at = match.end()
            self.out.append(match.group())


def pattern(name):
    """The pattern for one function's symbol, or None for one left out."""
    if name.startswith("_R"):
        symbol = Symbol(name)
        symbol.take(2)
        try:
            symbol.path()
            if symbol.at < len(name) and name[symbol.at] not in ".$":
                symbol.path()  # the instantiating crate
        except ValueError:
            return None
        rest = name[symbol.at:]
        # A symbol ThinLTO promoted across codegen units ends in `.llvm.<number>`.
        rest = re.sub(r"\.llvm\.[0-9]+$", ".llvm.*", rest)
        if not re.fullmatch(r"(\.llvm\.\*)?", rest):
            return None
        return "".join(symbol.out) + rest
    # A C function, or a copy the C compiler specialised (`sqlite3ExprListDup.constprop.0`).
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[a-z]+\.[0-9]+)*", name) and not name.startswith("_ZN"):
        return name
    return None


def executed(paths):
    """The names of the functions that ran, from callgrind files (of every object: callgrind
    does not count code outside a binary's `.text` as the binary's, so a binary already linked
    with the hot-code layout shows its hot functions under `???`)."""
    names = set()
    for path in paths:
        functions = {}
        with open(path, errors="replace") as file:
            for line in file:
                found = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if not found:
                    continue
                kind, number, text = found.groups()
                if text is not None:
                    functions[number] = text
                if kind == "fn":
                    # Callgrind tells recursion levels apart with `'2`, `'3`...
                    names.add(re.sub(r"'[0-9]+$", "", functions[number]))
    return names


def functions_of(binary):
    """The function symbols `binary` defines, by name, and the names at each address."""
    listing = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    address_of, at_address = {}, {}
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            at_address.setdefault(fields[0], []).append(fields[2])
            address_of.setdefault(fields[2], fields[0])
    return address_of, at_address


def ran_in(names, binary_functions):
    """Of `names`, those the binary defines, and every other symbol at the address of one of
    them: rustc merges functions whose code is identical into one, the others becoming aliases
    of it; callgrind reports a run of it under any of its names, while its section is named
    after one."""
    address_of, at_address = binary_functions
    every = set()
    for name in names:
        if name in address_of:
            every.update(at_address[address_of[name]])
    return every


def under_callgrind(binary, out):
    """A stand-in for BINARY that runs it under callgrind, writing into `out`."""
    wrapper = os.path.join(out, "switchyard")
    with open(wrapper, "w") as file:
        file.write("#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --trace-children=no "
                   "--callgrind-out-file=%s/callgrind.%%p %s \"$@\"\n" % (out, binary))
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IEXEC)
    return wrapper


def rest_workload(wrapper):
    """What a server runs before its first tool call, where the MCP benchmarks measure its memory
    at rest: `mcp` over stdio and `serve` over HTTP, each initialized and its tools listed, then
    left for SETTLE seconds, time for the threads a server starts (the store's writer and
    checkpointer) to reach their rest under valgrind."""
    sys.path.insert(0, os.path.join(ROOT, "crates", "mcp", "benches"))
    import instructions

    home, workspace = instructions.fresh_workspace()
    server = instructions.Server(wrapper, home, workspace, counted=False)
    server.request("tools/list", {})
    time.sleep(SETTLE)
    server.finish()

    environment = dict(os.environ, SWITCHYARD_HOME=home)
    environment.pop("SWITCHYARD_STORE", None)
    serve = subprocess.Popen([wrapper, "serve", "--port", "0"], env=environment, cwd=workspace,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # valgrind writes its own lines to stderr first; the server's start line names its address.
    address = None
    while address is None:
        line = serve.stderr.readline().decode(errors="replace")
        if not line:
            sys.exit("`switchyard serve` ended before naming its address")
        address = next((word for word in line.split() if word.startswith("http://")), None)
    threading.Thread(target=serve.stderr.read, daemon=True).start()
    endpoint = address.rstrip("/").removesuffix("/mcp") + "/mcp"
    session = None

    def post(message):
        nonlocal session
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if session:
            headers.update({"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
        request = urllib.request.Request(endpoint, json.dumps(message).encode(), headers)
        with urllib.request.urlopen(request, timeout=120) as response:
            session = response.headers.get("Mcp-Session-Id", session)
            response.read()

    post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "hot-code", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    post({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    time.sleep(SETTLE)
    serve.terminate()
    serve.wait()


def mcp_workload(wrapper):
    sys.path.insert(0, os.path.join(ROOT, "crates", "mcp", "benches"))
    import instructions

    home, workspace = instructions.fresh_workspace()
    server = instructions.Server(wrapper, home, workspace, counted=False)
    server.call("list_workflows", {"workspacePath": workspace})
    step = server.start(workspace, "hot code")
    for _ in range(40):
        step = server.advance(step["continueToken"])
    server.finish()


def runner_workload(wrapper):
    environment = dict(os.environ, SWITCHYARD_BIN=wrapper, RUN_MEMORY_REPEATS="1")
    subprocess.run(["cargo", "bench", "-p", "switchyard-runner", "--bench", "run_memory"],
                   cwd=ROOT, env=environment, check=True, stdout=subprocess.DEVNULL)


def command_workload(wrapper):
    home = tempfile.mkdtemp()
    environment = dict(os.environ, SWITCHYARD_HOME=home)
    environment.pop("SWITCHYARD_STORE", None)
    for arguments in (["validate", CORPUS], ["list"]):
        subprocess.run([wrapper] + arguments, env=environment, cwd=CORPUS,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


WORKLOADS = {"rest": rest_workload, "mcp": mcp_workload, "runner": runner_workload, "commands": command_workload}

# The order of the groups of functions, by the workloads that ran them: each long-lived process,
# a server (`mcp`) and a runner, finds all of its functions in one stretch of code. What a server
# runs before its first tool call (`rest`) is one group whatever else ran it, so a server at rest
# has only that stretch in memory, not pages scattered over the rest.
GROUPS = [("commands",), ("commands", "mcp"), ("rest",), ("mcp",), ("mcp", "runner"), ("commands", "mcp", "runner"),
          ("commands", "runner"), ("runner",)]


def run_workloads(binary):
    """Runs every workload with `binary` under callgrind; returns the folder of their files."""
    if not shutil.which("valgrind"):
        sys.exit("valgrind is needed (apt-get install valgrind)")
    out = tempfile.mkdtemp(prefix="hot-code-")
    print("callgrind files of %s in %s" % (binary, out))
    for name, workload in WORKLOADS.items():
        os.makedirs(os.path.join(out, name))
        workload(under_callgrind(binary, os.path.join(out, name)))
    return out


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("binary")
    parser.add_argument("also", nargs="*")
    parser.add_argument("--from", dest="folder")
    arguments = parser.parse_args()
    binary = os.path.realpath(arguments.binary)
    sources = [(binary, arguments.folder or run_workloads(binary))]
    sources += [(also, run_workloads(also)) for also in map(os.path.realpath, arguments.also)]
    # Each pattern with the workloads that ran it, written in GROUPS order.
    ran_by = {}
    for built, out in sources:
        binary_functions = functions_of(built)
        for name in WORKLOADS:
            files = sorted(glob.glob(os.path.join(out, name, "callgrind.*")))
            names = ran_in(executed(files), binary_functions)
            for found in filter(None, map(pattern, names)):
                ran_by.setdefault(found, set()).add(name)
    groups = {}
    for found, workloads in ran_by.items():
        group = ("rest",) if "rest" in workloads else tuple(sorted(workloads))
        groups.setdefault(group, []).append(found)
    with open(OUTPUT, "w") as file:
        file.write("# The functions the switchyard binary runs in its everyday work, as patterns over their\n"
                   "# symbols: written by hot_code.py (see there), read by ../build.rs.\n")
        for workloads in sorted(groups, key=GROUPS.index):
            file.write("# run by: %s\n" % ", ".join(workloads))
            for line in sorted(groups[workloads]):
                file.write(line + "\n")
    print("%d patterns written to %s" % (len(ran_by), os.path.relpath(OUTPUT, ROOT)))


if __name__ == "__main__":
    main()
