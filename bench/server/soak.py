#!/usr/bin/env python3
"""The soak: mcp-gen's generated invoices server on the PostgreSQL store under mixed load
(reads and keyed writes, retried as a careful agent retries) for --minutes, while the upstream
and the database fail on a fixed schedule. At the end every write intent is accounted for in the
upstream's own ledger, and the server's memory is compared with what it held after warm-up.

Usage: python3 bench/server/soak.py [--minutes 30] [--concurrency 16] [--no-build]
                                    [--pg-restart] [--json FILE]

Faults, each for 10 s of every minute: upstream connections reset before the work, reset after
it (the invoice exists, the answer is lost), bursts of 503, answers later than the server's
timeout (after the work), bodies sent slowly; then every store connection killed with
pg_terminate_backend. With --pg-restart, PostgreSQL itself is restarted (pg_ctlcluster) once, at
half time. Needs PostgreSQL on 127.0.0.1:5432 (trust auth, database test) and psql.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402  (shares the process helpers)

FAULTS = [
    ("reset", {"reset": 0.02}),
    ("reset after commit", {"reset_after_commit": 0.02}),
    ("503 bursts", {"error_5xx": 0.005, "burst": 20}),
    ("late answers", {"timeout": 0.01, "timeout_ms": 1500}),
    ("slow bodies", {"slow_body": 0.02, "slow_ms": 400}),
    ("none", {}),
]


def faults(port, setting):
    req = urllib.request.Request("http://127.0.0.1:%d/_faults" % port, json.dumps(setting).encode(),
                                 {"content-type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def psql(sql):
    return subprocess.run(["psql", bench.PG, "-qAtc", sql], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--warmup-minutes", type=float, default=5)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--pg-restart", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "mcp-gen-bench-server", "-p", "invoices-mcp"],
                       cwd=bench.ROOT, check=True)
    schema = bench.SCHEMA
    psql("CREATE SCHEMA IF NOT EXISTS %s" % schema)
    procs = []
    seconds = args.minutes * 60
    try:
        up_port, port = bench.free_port(), bench.free_port()
        procs.append(bench.Proc("upstream", [os.path.join(bench.RELEASE, "bench-upstream"), "--port", str(up_port)],
                                up_port))
        store = "%s?options=-csearch_path%%3D%s&application_name=mcp-gen-soak" % (bench.PG, schema)
        server = bench.Proc("server", [os.path.join(bench.RELEASE, "invoices-mcp"), "serve", "--http",
                                       "127.0.0.1:%d" % port, "--upstream", "http://127.0.0.1:%d" % up_port,
                                       "--store", store, "--timeout-ms", "1000", "--wait-ms", "3000"],
                            port, {"INVOICES_BEARER_TOKEN": "soak", "RUST_LOG": "warn"})
        procs.append(server)
        load = subprocess.Popen([os.path.join(bench.RELEASE, "bench-load"), "--target",
                                 "http://127.0.0.1:%d/mcp/v1" % port, "--kind", "stateless", "--call", "mixed",
                                 "--read-share", "0.7", "--retry", "1", "--concurrency", str(args.concurrency),
                                 "--seconds", str(seconds), "--warmup", "0"],
                                stdout=subprocess.PIPE, text=True)
        started = time.time()
        samples, events = [], []
        restarted = False

        def sampler():
            while load.poll() is None:
                try:
                    samples.append((time.time() - started, server.rss_mb()))
                except OSError:
                    return
                time.sleep(10)

        threading.Thread(target=sampler, daemon=True).start()
        while load.poll() is None and time.time() - started < seconds:
            elapsed = time.time() - started
            name, setting = FAULTS[int(elapsed // 10) % len(FAULTS)]
            faults(up_port, setting)
            if name == "none":
                killed = psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                              "WHERE application_name = 'mcp-gen-soak'").stdout.strip()
                events.append((round(elapsed), "pg_terminate_backend", killed))
                if args.pg_restart and not restarted and elapsed > seconds / 2:
                    # The cluster on port 5432, as Debian's pg_lsclusters lists it.
                    cluster = next((l.split()[:2] for l in subprocess.run(
                        ["pg_lsclusters", "-h"], capture_output=True, text=True).stdout.splitlines()
                        if l.split()[2:3] == ["5432"]), ["15", "main"])
                    r = subprocess.run(["pg_ctlcluster", *cluster, "restart"], capture_output=True, text=True)
                    events.append((round(elapsed), "postgresql restarted", r.returncode))
                    restarted = True
            time.sleep(10 - (time.time() - started) % 10)
        faults(up_port, {})
        out, _ = load.communicate(timeout=600)
        result = json.loads(out.strip().splitlines()[-1])
        with urllib.request.urlopen("http://127.0.0.1:%d/_stats?expect=%d" % (up_port, result["intent_end"])) as r:
            ledger = json.loads(r.read())
        log = open(os.path.join(bench.TMP, "server.log"), errors="replace").read()
        panics = len(re.findall(r"panicked", log))
        alive = server.proc.poll() is None
    finally:
        for p in procs:
            p.stop()
        psql("DROP SCHEMA IF EXISTS %s CASCADE" % schema)

    warm = [m for t, m in samples if t >= args.warmup_minutes * 60]
    after_warmup = warm[0] if warm else 0.0
    peak_after = max(warm) if warm else 0.0
    report = {
        "minutes": args.minutes, "concurrency": args.concurrency, "calls": result["calls"],
        "calls_per_s": round(result["calls_per_s"]), "write_intents": result["intents"],
        "intents_done": result["intents_done"], "intents_failed": result["intents_failed"],
        "retries": result["retries"], "final_errors": result["fatal_errors"],
        "broken_streams": result["transport_errors"],
        "retryable_answers": result["tool_errors"], "upstream_faults": ledger["faults_injected"],
        "invoices": ledger["invoices"], "missing_intents": ledger["missing"],
        "duplicated_intents": ledger["duplicated"], "panics": panics, "server_alive": alive,
        "rss_mb_after_warmup": round(after_warmup, 1), "rss_mb_peak_after_warmup": round(peak_after, 1),
        "rss_mb_end": round(samples[-1][1], 1) if samples else 0.0,
        "growth_pct": round(100.0 * (peak_after - after_warmup) / after_warmup, 1) if after_warmup else None,
        "pg_events": len(events), "first_events": events[:3], "error_sample": result.get("error_sample"),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"report": report, "rss": samples, "events": events}, f, indent=1)
    print(json.dumps(report, indent=1))
    ok = (report["missing_intents"] == 0 and report["duplicated_intents"] == 0 and report["intents_failed"] == 0
          and report["final_errors"] == 0
          and panics == 0 and alive and (report["growth_pct"] or 0) < 10)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    bench.TMP = __import__("tempfile").mkdtemp(prefix="bench-soak-")
    bench.SCHEMA = "bench_soak_%d" % os.getpid()
    main()
