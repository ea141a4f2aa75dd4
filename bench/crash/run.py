#!/usr/bin/env python3
"""The crash experiment (issue 5, CONTRACT R1-R6): does a billing tool bill twice when its server
dies mid-call and the client retries, as 2026-07-28 clients must?

For each configuration, a pool of client threads runs N intents ("bill customer X for line Y"),
each a `tools/call create_invoice` over Streamable HTTP. A client that sees a broken stream (the
connection refused, reset or cut before the answer) re-sends the same call with a new request id,
and one that gets a retryable tool error waits `retry_after_ms` and re-sends it. Meanwhile the
harness SIGKILLs server processes, at least `--crashes` times per run: half of them right after
the upstream committed an invoice and before its answer left (the upstream kills the replica
that sent the request), half at a random moment. A killed server is restarted. At the end the
upstream's database says how many invoices each intent produced.

Configurations:
  naive          no key (create_invoice declared keyless); the upstream ignores keys
  key/ignore     caller key; the upstream ignores Idempotency-Key; SQLite store
  key/honour     caller key; the upstream dedupes on Idempotency-Key; SQLite store
  key/honour/2x  two replicas behind a round-robin TCP proxy sharing a PostgreSQL store

Then the replay overhead: sequential calls without crashes, first call vs its replay (and the
naive server's call as the baseline), median and p99 latency.

Needs: a release build of this repository (the script builds what is missing), PostgreSQL on
127.0.0.1:5432 (trust auth, database `test`) and `psql` for the two-replica configuration.
"""

import argparse
import http.client
import itertools
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from upstream import Upstream  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PG = "postgres://postgres@127.0.0.1:5432/test"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build():
    """The keyed server (generated/invoices) and the naive one (generated here, not checked in)."""
    target = REPO / "target"
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "mcp-gen", "-p", "invoices-mcp"], cwd=REPO, check=True)
    naive = target / "bench-crash" / "invoices-naive"
    subprocess.run(
        [str(target / "release" / "mcp-gen"), "build", "--spec", "specs/invoices/openapi.yaml",
         "--overlay", "bench/crash/naive-overlay.yaml", "--out", str(naive)],
        cwd=REPO, check=True, stdout=subprocess.DEVNULL,
    )
    (naive / "Cargo.lock").write_bytes((REPO / "Cargo.lock").read_bytes())
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=naive, env=env, check=True)
    return target / "release" / "invoices-mcp", target / "release" / "invoices-naive-mcp"


class Replica:
    def __init__(self, index, binary, upstream_port, store, workdir):
        self.index = index
        self.binary = binary
        self.port = free_port()
        self.upstream = "http://127.0.0.1:%d/r%d" % (upstream_port, index)
        self.store = store
        self.workdir = workdir
        self.proc = None
        self.starts = 0

    def start(self):
        env = dict(os.environ, INVOICES_BEARER_TOKEN="t", INVOICES_NAIVE_BEARER_TOKEN="t", INVOICES_LOG="error",
                   INVOICES_NAIVE_LOG="error")
        self.proc = subprocess.Popen(
            [str(self.binary), "serve", "--http", "127.0.0.1:%d" % self.port, "--upstream", self.upstream,
             "--store", self.store, "--timeout-ms", "1000", "--wait-ms", "2000"],
            cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.workdir, "replica%d.log" % self.index), "a"),
        )
        self.starts += 1
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("replica %d exited at start; see %s" % (self.index, self.workdir))
                time.sleep(0.02)
        raise RuntimeError("replica %d did not start" % self.index)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            return True
        return False


class Fleet:
    """The server replicas; a killed one is restarted after `restart_ms`."""

    def __init__(self, replicas, restart_ms):
        self.replicas = replicas
        self.restart_ms = restart_ms
        self.lock = threading.Lock()
        self.crashes = {"after_commit": 0, "random": 0}
        self.armed = False
        self.stop = False
        for r in replicas:
            r.start()
        threading.Thread(target=self.keeper, daemon=True).start()

    def keeper(self):
        while not self.stop:
            for r in self.replicas:
                if not r.alive() and not self.stop:
                    time.sleep(self.restart_ms / 1000)
                    with self.lock:
                        if not r.alive():
                            r.start()
            time.sleep(0.01)

    def kill(self, index, reason):
        with self.lock:
            if self.replicas[index].kill():
                self.crashes[reason] += 1
                return True
        return False

    def on_commit(self, index):
        """The upstream committed an invoice for replica `index`: kill it now if armed."""
        if not self.armed:
            return False
        with self.lock:
            if not self.armed:
                return False
            self.armed = False
        return self.kill(index, "after_commit")

    def shutdown(self):
        self.stop = True
        for r in self.replicas:
            r.kill()


class Proxy:
    """Round-robin TCP proxy, one backend per connection; a backend that refuses is skipped."""

    def __init__(self, backends):
        self.backends = backends
        self.next = itertools.count()
        self.port = free_port()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(256)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client):
        first = next(self.next)
        backend = None
        for i in range(len(self.backends)):
            port = self.backends[(first + i) % len(self.backends)]
            try:
                backend = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                continue
        if backend is None:
            client.close()
            return

        def pipe(src, dst):
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    dst.sendall(data)
            except OSError:
                pass
            finally:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        t = threading.Thread(target=pipe, args=(backend, client), daemon=True)
        t.start()
        pipe(client, backend)
        t.join()
        client.close()
        backend.close()


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
request_ids = itertools.count(1)


def tools_call(port, arguments, timeout=30, tool="create_invoice"):
    """One tools/call as a stateless 2026-07-28 client sends it. Raises on a broken stream."""
    body = json.dumps({"jsonrpc": "2.0", "id": next(request_ids), "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments, "_meta": META}})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/mcp/v1", body=body, headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool,
            "connection": "close"})
        response = conn.getresponse()
        data = response.read()
    finally:
        conn.close()
    if response.status != 200:
        raise ConnectionError("HTTP %d" % response.status)
    return json.loads(data)


def arguments(intent, keyed):
    args = {"customer": "cus_%d" % (intent % 97), "currency": "EUR",
            "lines": [{"description": "intent-%d" % intent, "quantity": 1 + intent % 5, "unit_amount": 1250}]}
    if keyed:
        args["idempotency_key"] = "intent-%d" % intent
    return args


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {"attempts": 0, "broken": 0, "retryable": 0, "replayed": 0, "ok": 0, "failed": 0, "gave_up": 0}

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n


def run_intent(port, intent, keyed, stats, args=None, tool="create_invoice"):
    args = args or arguments(intent, keyed)
    for attempt in range(1, 2001):
        stats.add("attempts")
        try:
            msg = tools_call(port, args, tool=tool)
        except (OSError, http.client.HTTPException, ValueError):
            # A broken stream: re-send the same call with a new request id.
            stats.add("broken")
            time.sleep(min(0.02 * attempt, 0.5))
            continue
        result = msg.get("result")
        if result is None:
            stats.add("failed")
            return
        if result.get("isError"):
            body = json.loads(result["content"][0]["text"])
            if body.get("retryable"):
                stats.add("retryable")
                time.sleep((body.get("retry_after_ms") or 200) / 1000)
                continue
            stats.add("failed")
            log("intent %d failed: %s" % (intent, body))
            return
        if (result.get("_meta") or {}).get("dev.mcp-gen/idempotency", {}).get("replayed"):
            stats.add("replayed")
        stats.add("ok")
        return
    stats.add("gave_up")


def experiment(name, binary, keyed, honour, replicas, store_kind, intents, crashes, workers, workdir, seed):
    rng = random.Random(seed)
    up_db = os.path.join(workdir, "upstream.db")
    schema = None
    if store_kind == "postgres":
        schema = "mcpgen_crash_%d_%d" % (os.getpid(), int(time.time() * 1000))
        subprocess.run(["psql", PG, "-q", "-c", "CREATE SCHEMA %s" % schema], check=True)
        store = "%s?options=-csearch_path%%3D%s" % (PG, schema)
    else:
        store = "sqlite://" + os.path.join(workdir, "store.db")
    fleet = None
    upstream = Upstream(up_db, honour, lambda i: fleet.on_commit(i) if fleet else False)
    up_port = free_port()
    up_server = upstream.serve(up_port)
    reps = [Replica(i, binary, up_port, store, workdir) for i in range(replicas)]
    fleet = Fleet(reps, restart_ms=200)
    proxy = Proxy([r.port for r in reps]) if replicas > 1 else None
    port = proxy.port if proxy else reps[0].port

    stats = Stats()
    todo = iter(range(intents))
    todo_lock = threading.Lock()
    done = [0]

    def worker():
        while True:
            with todo_lock:
                n = next(todo, None)
            if n is None:
                return
            run_intent(port, n, keyed, stats)
            with todo_lock:
                done[0] += 1

    def chaos():
        # Crash k of `crashes` once k/(crashes+1) of the intents are done: odd ones right after
        # an upstream commit, even ones at once.
        for k in range(1, crashes + 1):
            while done[0] < k * intents // (crashes + 1):
                time.sleep(0.005)
            if k % 2:
                fleet.armed = True
                while fleet.armed and done[0] < intents:
                    time.sleep(0.001)
            else:
                time.sleep(rng.random() * 0.01)
                fleet.kill(rng.randrange(replicas), "random")

    started = time.time()
    threads = [threading.Thread(target=worker) for _ in range(workers)]
    chaos_thread = threading.Thread(target=chaos, daemon=True)
    for t in threads:
        t.start()
    chaos_thread.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    fleet.shutdown()
    up_server.shutdown()
    counts = upstream.counts()
    if schema:
        subprocess.run(["psql", PG, "-q", "-c", "SET client_min_messages = warning; DROP SCHEMA %s CASCADE" % schema], check=True)
    made = sum(counts.values())
    dup_intents = sum(1 for v in counts.values() if v > 1)
    missing = sum(1 for i in range(intents) if counts.get("intent-%d" % i, 0) == 0)
    row = dict(name=name, intents=intents, crashes=fleet.crashes["after_commit"] + fleet.crashes["random"],
               after_commit=fleet.crashes["after_commit"], random=fleet.crashes["random"], invoices=made,
               duplicate_intents=dup_intents, duplicate_invoices=made - len(counts), missing=missing,
               seconds=round(elapsed, 1), **stats.c)
    row["duplicate_rate"] = dup_intents / intents
    return row


def latency(binary, keyed, n, workdir):
    """Sequential calls without crashes: first-call latencies, and replay latencies if keyed."""
    upstream = Upstream(os.path.join(workdir, "upstream.db"), True, lambda i: False)
    up_port = free_port()
    up_server = upstream.serve(up_port)
    rep = Replica(0, binary, up_port, "sqlite://" + os.path.join(workdir, "store.db"), workdir)
    rep.start()
    first, replay = [], []
    try:
        for i in range(n + 50):
            args = arguments(1_000_000 + i, keyed)
            t0 = time.perf_counter()
            msg = tools_call(rep.port, args)
            t1 = time.perf_counter()
            assert not msg["result"].get("isError"), msg
            if keyed:
                again = tools_call(rep.port, args)
                t2 = time.perf_counter()
                assert again["result"]["_meta"]["dev.mcp-gen/idempotency"]["replayed"], again
                strip = lambda r: json.dumps({k: v for k, v in r.items() if k != "_meta"})
                assert strip(again["result"]) == strip(msg["result"]), "replay differs"
            if i >= 50:  # warm-up
                first.append((t1 - t0) * 1000)
                if keyed:
                    replay.append((t2 - t1) * 1000)
    finally:
        rep.kill()
        up_server.shutdown()
    return first, replay


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--intents", type=int, default=10_000, help="intents per configuration")
    ap.add_argument("--crashes", type=int, default=10, help="server kills per configuration (at least 2)")
    ap.add_argument("--workers", type=int, default=8, help="concurrent clients")
    ap.add_argument("--latency-calls", type=int, default=1000)
    ap.add_argument("--only", help="comma-separated configuration names")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--json", help="also write the results here")
    a = ap.parse_args()
    keyed_bin, naive_bin = build()
    configs = [
        ("naive", naive_bin, False, False, 1, "sqlite"),
        ("key/ignore", keyed_bin, True, False, 1, "sqlite"),
        ("key/honour", keyed_bin, True, True, 1, "sqlite"),
        ("key/honour/2x", keyed_bin, True, True, 2, "postgres"),
    ]
    if a.only:
        wanted = a.only.split(",")
        configs = [c for c in configs if c[0] in wanted]
    rows = []
    for name, binary, keyed, honour, replicas, store in configs:
        with tempfile.TemporaryDirectory(prefix="mcpgen-crash-") as work:
            log("%s: %d intents, %d workers, %d crashes ..." % (name, a.intents, a.workers, a.crashes))
            row = experiment(name, binary, keyed, honour, replicas, store, a.intents, a.crashes, a.workers, work,
                             a.seed)
            log("  %s" % row)
            rows.append(row)
    print("| configuration | intents | crashes (after commit + random) | invoices | intents billed twice | duplicate rate | missing | broken streams | retryable answers | replays | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d (%d + %d) | %d | %d | %.3f%% | %d | %d | %d | %d | %.1f |" % (
            r["name"], r["intents"], r["crashes"], r["after_commit"], r["random"], r["invoices"],
            r["duplicate_intents"], 100 * r["duplicate_rate"], r["missing"], r["broken"], r["retryable"],
            r["replayed"], r["seconds"]))
    lat = {}
    if a.latency_calls > 0:
        with tempfile.TemporaryDirectory(prefix="mcpgen-lat-") as work:
            naive_first, _ = latency(naive_bin, False, a.latency_calls, work)
        with tempfile.TemporaryDirectory(prefix="mcpgen-lat-") as work:
            first, replay = latency(keyed_bin, True, a.latency_calls, work)
        lat = {"naive_call": naive_first, "keyed_first_call": first, "keyed_replay": replay}
        print()
        print("| call (ms, %d sequential, SQLite store) | median | p99 | median vs naive |" % a.latency_calls)
        print("|---|---|---|---|")
        base = statistics.median(naive_first)
        for label, values in lat.items():
            print("| %s | %.2f | %.2f | %.2fx |" % (label, statistics.median(values), p(values, 0.99),
                                                   statistics.median(values) / base))
        print()
        print("replay vs first call: median %+.2f ms, p99 %+.2f ms" % (
            statistics.median(replay) - statistics.median(first), p(replay, 0.99) - p(first, 0.99)))
    if a.json:
        summary = {k: {"median_ms": statistics.median(v), "p99_ms": p(v, 0.99)} for k, v in lat.items()}
        Path(a.json).write_text(json.dumps({"runs": rows, "latency": summary}, indent=2) + "\n")


if __name__ == "__main__":
    main()
