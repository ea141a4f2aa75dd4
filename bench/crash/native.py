#!/usr/bin/env python3
"""The crash experiment on a native server (issue 29, CONTRACT R6): the orders example
(`examples/orders`) places orders with its own handler, in the transaction where the runtime
also completes the call's idempotency record. No upstream: the effect is a row in the service's
own database, so exactly-once must hold without any upstream honouring keys.

Clients run intents (`create_order`, keyed `intent-N`, the intent in the order's note) and retry
on a broken stream or a retryable error, as 2026-07-28 clients must. Meanwhile the harness kills
server processes: through the service's crash points, right after the handler wrote the order and
before anything committed (`after-write`), and after the commit but before the answer left
(`after-commit`), and with SIGKILL at random moments. At the end the database says how many
orders each intent made.

  python3 bench/crash/native.py                          # SQLite, then PostgreSQL with 2 replicas
  python3 bench/crash/native.py --intents 2000 --crashes 6 --only native/sqlite

Needs a release build (the script builds `orders-service`), Python 3, and for PostgreSQL a
server on 127.0.0.1:5432 (trust auth, database `test`) and `psql`.
"""

import argparse
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PG, REPO, Fleet, Proxy, Replica, Stats, free_port, log, run_intent  # noqa: E402

POINTS = ["after-write", "after-commit"]


class OrdersReplica(Replica):
    """One orders-service process, with a crash file of its own."""

    def __init__(self, index, binary, store, workdir, lease_secs, outside):
        super().__init__(index, binary, 0, store, workdir)
        self.crash_file = os.path.join(workdir, "crash%d" % index)
        self.lease_secs = lease_secs
        self.outside = outside

    def start(self):
        env = dict(os.environ, RUST_LOG="error")
        self.proc = subprocess.Popen(
            [str(self.binary), "--http", "127.0.0.1:%d" % self.port, "--store", self.store,
             "--crash-file", self.crash_file, "--lease-secs", str(self.lease_secs)]
            + (["--write-outside-transaction"] if self.outside else []),
            cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.workdir, "replica%d.log" % self.index), "a"),
        )
        self.starts += 1
        import socket
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


def build(debug=False):
    """The orders service: a release build to measure, a debug one to check (CI reuses the test
    build's artifacts instead of compiling every dependency again)."""
    profile = [] if debug else ["--release"]
    subprocess.run(["cargo", "build", "-q", "-p", "orders-service"] + profile, cwd=REPO, check=True)
    return REPO / "target" / ("debug" if debug else "release") / "orders-service"


def order(intent):
    return {"customer": "cus_%d" % (intent % 97), "currency": "EUR", "note": "intent-%d" % intent,
            "lines": [{"sku": "SKU-%d" % (intent % 13), "quantity": 1 + intent % 5, "unit_price": 1250}],
            "idempotency_key": "intent-%d" % intent}


def counts(store, schema, workdir):
    """Orders per intent (note), read from the service's database."""
    query = "SELECT note, COUNT(*) FROM orders WHERE note LIKE 'intent-%' GROUP BY note"
    if schema:
        out = subprocess.run(["psql", PG, "-At", "-F", "\t", "-c", "SET search_path TO %s; %s" % (schema, query)],
                             check=True, capture_output=True, text=True).stdout
        rows = [line.split("\t") for line in out.splitlines() if "\t" in line]
        return {note: int(n) for note, n in rows}
    db = sqlite3.connect(os.path.join(workdir, "orders.db"))
    try:
        return {note: n for note, n in db.execute(query)}
    finally:
        db.close()


def experiment(name, binary, replicas, store_kind, outside, intents, crashes, workers, workdir, seed, lease_secs):
    rng = random.Random(seed)
    schema = None
    if store_kind == "postgres":
        schema = "mcpgen_native_crash_%d_%d" % (os.getpid(), int(time.time() * 1000))
        subprocess.run(["psql", PG, "-q", "-c", "CREATE SCHEMA %s" % schema], check=True)
        store = "%s?options=-csearch_path%%3D%s" % (PG, schema)
    else:
        store = "sqlite://" + os.path.join(workdir, "orders.db")
    reps = [OrdersReplica(i, binary, store, workdir, lease_secs, outside) for i in range(replicas)]
    fleet = Fleet(reps, restart_ms=200)
    fleet.crashes = {point: 0 for point in POINTS} | {"random": 0}
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
            run_intent(port, n, True, stats, args=order(n), tool="create_order")
            with todo_lock:
                done[0] += 1

    def crash_point(point):
        """Arms `point` on every replica; the first to reach it dies there."""
        starts = [r.starts for r in reps]
        for r in reps:
            Path(r.crash_file).write_text(point)
        while done[0] < intents:
            died = [i for i, r in enumerate(reps) if r.starts > starts[i] or not r.alive()]
            if died:
                for r in reps:
                    Path(r.crash_file).unlink(missing_ok=True)
                fleet.crashes[point] += 1
                return
            time.sleep(0.001)
        for r in reps:
            Path(r.crash_file).unlink(missing_ok=True)

    def chaos():
        # Crash k of `crashes` once k/(crashes+1) of the intents are done: in turn right after
        # the handler's write, after the commit, and at a random moment.
        for k in range(1, crashes + 1):
            while done[0] < k * intents // (crashes + 1):
                time.sleep(0.005)
            kind = (k - 1) % 3
            if kind < 2:
                crash_point(POINTS[kind])
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
    made = counts(store, schema, workdir)
    if schema:
        subprocess.run(["psql", PG, "-q", "-c", "SET client_min_messages = warning; DROP SCHEMA %s CASCADE" % schema],
                       check=True)
    total = sum(made.values())
    dup = sum(1 for v in made.values() if v > 1)
    missing = sum(1 for i in range(intents) if made.get("intent-%d" % i, 0) == 0)
    return dict(name=name, intents=intents, crashes=sum(fleet.crashes.values()), **{
        k.replace("-", "_"): v for k, v in fleet.crashes.items()}, orders=total, duplicate_intents=dup,
        missing=missing, seconds=round(elapsed, 1), **stats.c)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--intents", type=int, default=10_000)
    ap.add_argument("--crashes", type=int, default=12, help="kills per configuration (a third of each kind)")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--lease-secs", type=int, default=3,
                    help="how long a dead server's reservation holds a retry off")
    ap.add_argument("--only", help="comma-separated configuration names")
    ap.add_argument("--seed", type=int, default=20261205)
    ap.add_argument("--debug", action="store_true", help="a debug build (CI: checks the guarantee, measures nothing)")
    a = ap.parse_args()
    binary = build(debug=a.debug)
    # The control writes each order outside the call's transaction: the same harness must find
    # the duplicates the transaction prevents.
    configs = [("native/sqlite", 1, "sqlite", False), ("native/postgres/2x", 2, "postgres", False),
               ("control/outside-transaction", 1, "sqlite", True)]
    if a.only:
        configs = [c for c in configs if c[0] in a.only.split(",")]
    rows = []
    for name, replicas, store, outside in configs:
        with tempfile.TemporaryDirectory(prefix="mcpgen-native-crash-") as work:
            log("%s: %d intents, %d workers, %d crashes ..." % (name, a.intents, a.workers, a.crashes))
            row = experiment(name, binary, replicas, store, outside, a.intents, a.crashes, a.workers, work, a.seed,
                             a.lease_secs)
            log("  %s" % row)
            rows.append(row)
    print("| configuration | intents | crashes (after write + after commit + random) | orders | intents with two orders | missing | failed | broken streams | retryable answers | replays | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d (%d + %d + %d) | %d | %d | %d | %d | %d | %d | %d | %.1f |" % (
            r["name"], r["intents"], r["crashes"], r["after_write"], r["after_commit"], r["random"], r["orders"],
            r["duplicate_intents"], r["missing"], r["failed"], r["broken"], r["retryable"], r["replayed"],
            r["seconds"]))
    bad = [r["name"] for r in rows if not r["name"].startswith("control/")
           and (r["duplicate_intents"] or r["missing"] or r["failed"] or r["gave_up"])]
    control = [r for r in rows if r["name"].startswith("control/")]
    if control and not any(r["duplicate_intents"] for r in control):
        log("the control made no duplicate: the experiment could not have seen one")
        return 1
    if bad:
        log("duplicated, missing or failed intents in: %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
