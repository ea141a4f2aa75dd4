#!/usr/bin/env python3
"""The server bench: mcp-gen's generated invoices server against FastMCP's `from_openapi` server
and rmcp-openapi-server, all in front of the same fast loopback upstream, and against the
upstream alone. Prints one table (see bench/server/README.md).

Usage: python3 bench/server/run.py [--seconds 10] [--warmup 2] [--only mcp-gen,fastmcp,rmcp]
                                   [--json FILE] [--no-build]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
RELEASE = os.path.join(ROOT, "target", "release")
SPEC = os.path.join(ROOT, "specs", "invoices", "openapi.yaml")
PG = "postgres://postgres@127.0.0.1:5432/test"
HZ = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def log(*a):
    print("[bench/server]", *a, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("exited with %s before listening" % proc.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("not listening on %d after %ds" % (port, seconds))


class Proc:
    """A server process, with its CPU time and resident memory read from /proc."""

    def __init__(self, name, argv, port, env=None):
        self.name, self.port = name, port
        self.proc = subprocess.Popen(argv, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(TMP, name.replace("/", "-") + ".log"), "wb"), start_new_session=True)
        wait_port(port, self.proc)

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / HZ  # utime + stime

    def rss_mb(self):
        with open("/proc/%d/statm" % self.proc.pid) as f:
            return int(f.read().split()[1]) * PAGE / 1e6

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)


class Peak(threading.Thread):
    """Polls a process's RSS while a phase runs; keeps the highest."""

    def __init__(self, proc):
        super().__init__(daemon=True)
        self.p, self.peak, self.done = proc, 0.0, threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                self.peak = max(self.peak, self.p.rss_mb())
            except OSError:
                return
            time.sleep(0.05)


PHASES = iter(range(1, 1_000_000))


def load(target, kind, call, concurrency, seconds, warmup, extra=()):
    # Each run's write intents are numbered apart from every other run's: a key (and arguments)
    # seen before would be a replay, not a new write.
    base = next(PHASES) * 100_000_000
    argv = [os.path.join(RELEASE, "bench-load"), "--target", target, "--kind", kind, "--call", call,
            "--concurrency", str(concurrency), "--seconds", str(seconds), "--warmup", str(warmup),
            "--threads", "1", "--intent-base", str(base), *extra]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + warmup + 120)
    if out.returncode != 0:
        raise RuntimeError("bench-load failed: " + out.stderr[-500:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def phase(server, target, kind, call, concurrency, args, extra=()):
    """One measured run against `server` (None: the upstream alone)."""
    peak = Peak(server) if server else None
    if peak:
        peak.start()
    cpu0 = server.cpu_seconds() if server else 0.0
    r = load(target, kind, call, concurrency, args.seconds, args.warmup, extra)
    if server:
        # CPU over warm-up and window alike, divided by every call answered in both.
        r["cpu_s"] = server.cpu_seconds() - cpu0
        peak.done.set()
        peak.join()
        r["peak_mb"] = peak.peak
    bad = r["tool_errors"] + r["http_errors"] + r["transport_errors"]
    log("%-22s %-7s c=%-5d %8.0f calls/s p50 %7d us p99 %7d us errors %d%s" % (
        server.name if server else "upstream", call, concurrency, r["calls_per_s"], r["p50_us"], r["p99_us"], bad,
        (" (%s)" % r["error_sample"][:160]) if bad and r.get("error_sample") else ""))
    return r


def session_tools(port, path):
    """tools/list through an initialize-based session: the peers name tools their own way."""
    def post(body, session=None):
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if session:
            headers.update({"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), json.dumps(body).encode(), headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read().decode()
            sid = r.headers.get("mcp-session-id")
        if text.startswith("event:") or text.startswith("data:") or "\ndata:" in text:
            text = [l[5:] for l in text.splitlines() if l.startswith("data:")][-1]
        return (json.loads(text) if text.strip() else None), sid

    _, sid = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    listed, _ = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, sid)
    return listed["result"]["tools"]


def pick(tools):
    """The peer's get-invoice and create-invoice tools, and whether the body is one argument."""
    read = write = None
    body_arg = ""
    for t in tools:
        props = t["inputSchema"].get("properties", {})
        required = t["inputSchema"].get("required", [])
        text = (t["name"] + " " + (t.get("description") or "")).lower()
        if required == ["invoice_id"] and not ({"per_page", "after"} & set(props)) and "void" not in text \
                and "pdf" not in text and "render" not in text:
            read = t["name"]
        if "lines" in props:
            write = t["name"]
        for name, p in props.items():
            if "lines" in p.get("properties", {}):
                write, body_arg = t["name"], name
    if not read or not write:
        raise RuntimeError("cannot tell the peer's tools apart: %s" % [t["name"] for t in tools])
    return read, write, body_arg


def fmt_ms(us):
    return "%.2f" % (us / 1000.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--only", default="mcp-gen,fastmcp,rmcp")
    ap.add_argument("--json")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--inflight-delay-ms", type=int, default=250,
                    help="the upstream's delay in the 1,000-in-flight phase, so that the calls are in flight at once")
    args = ap.parse_args()
    only = set(args.only.split(","))

    if not args.no_build:
        log("building the bench and the generated invoices server (release)")
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "mcp-gen-bench-server", "-p", "invoices-mcp"],
                       cwd=ROOT, check=True)
    peers = [p for p in ("fastmcp", "rmcp") if p in only]
    if peers:
        installs = "; ".join({"fastmcp": "install_fastmcp", "rmcp": "install_rmcp"}[p] for p in peers)
        subprocess.run(["bash", "-c", 'log(){ echo "[install] $*" >&2; }; source "$BENCH/install.sh"; ' + installs],
                       env=dict(os.environ, BENCH=BENCH), check=True)

    results, procs = [], []

    def record(server, workload, concurrency, r):
        r.update(server=server, workload=workload, concurrency=concurrency)
        results.append(r)

    def start(name, argv, port, env=None):
        p = Proc(name, argv, port, env)
        procs.append(p)
        return p

    try:
        up_port, slow_port = free_port(), free_port()
        upstream = start("upstream", [os.path.join(RELEASE, "bench-upstream"), "--port", str(up_port)], up_port)
        start("upstream-slow", [os.path.join(RELEASE, "bench-upstream"), "--port", str(slow_port),
                                "--delay-ms", str(args.inflight_delay_ms), "--workers", "1"], slow_port)
        up = "http://127.0.0.1:%d" % up_port
        slow = "http://127.0.0.1:%d" % slow_port

        # The baseline: the same operations straight to the upstream.
        for call, c in (("read", 1), ("read", 64), ("write", 1), ("write", 64)):
            record("upstream", call, c, phase(None, up, "direct", call, c, args))
        direct = {(r["workload"], r["concurrency"]): r for r in results}

        if "mcp-gen" in only:
            exe = os.path.join(RELEASE, "invoices-mcp")
            env = {"INVOICES_BEARER_TOKEN": "bench", "RUST_LOG": "warn"}
            db = os.path.join(TMP, "store.db")
            for store_name, store in (("sqlite", "sqlite://" + db), ("postgres", "%s?options=-csearch_path%%3D%s" % (PG, SCHEMA))):
                for upstream_url, calls in ((up, "fast"), (slow, "inflight")):
                    port = free_port()
                    name = "mcp-gen/%s%s" % (store_name, "" if calls == "fast" else "/slow")
                    if store_name == "postgres" and calls == "inflight":
                        continue
                    s = start(name, [exe, "serve", "--http", "127.0.0.1:%d" % port, "--upstream", upstream_url,
                                     "--store", store, "--max-in-flight", "4096"], port, env)
                    target = "http://127.0.0.1:%d/mcp/v1" % port
                    if calls == "inflight":
                        record("mcp-gen", "read", 1000, phase(s, target, "stateless", "read", 1000, args))
                    else:
                        if store_name == "sqlite":
                            for c in (1, 64):
                                record("mcp-gen", "read", c, phase(s, target, "stateless", "read", c, args))
                        for c in (1, 64):
                            record("mcp-gen", "keyed/" + store_name, c, phase(s, target, "stateless", "keyed", c, args))
                        record("mcp-gen", "replay/" + store_name, 64, phase(s, target, "stateless", "replay", 64, args))
                    s.stop()
                    procs.remove(s)

        peer_argv = {
            "fastmcp": lambda port, url: ([os.path.join(BENCH, ".venv", "bin", "python"),
                                           os.path.join(BENCH, "server", "fastmcp_server.py"), SPEC_JSON,
                                           "--upstream", url, "--port", str(port)], "/mcp"),
            "rmcp": lambda port, url: ([os.path.join(BENCH, ".tools", "bin", "rmcp-openapi-server"), SPEC_JSON,
                                        "--base-url", url, "--port", str(port), "--bind-address", "127.0.0.1"], "/mcp"),
        }
        for peer in peers:
            for upstream_url, calls in ((up, "fast"), (slow, "inflight")):
                port = free_port()
                argv, path = peer_argv[peer](port, upstream_url)
                s = start(peer + ("" if calls == "fast" else "/slow"), argv, port, {"RUST_LOG": "warn"})
                read_tool, write_tool, body_arg = pick(session_tools(port, path))
                extra = ["--read-tool", read_tool, "--write-tool", write_tool] + (["--body-arg", body_arg] if body_arg else [])
                target = "http://127.0.0.1:%d%s" % (port, path)
                if calls == "inflight":
                    record(peer, "read", 1000, phase(s, target, "session", "read", 1000, args, extra))
                else:
                    for c in (1, 64):
                        record(peer, "read", c, phase(s, target, "session", "read", c, args, extra))
                    for c in (1, 64):
                        record(peer, "write", c, phase(s, target, "session", "write", c, args, extra))
                s.stop()
                procs.remove(s)
    finally:
        for p in procs:
            p.stop()

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print_table(results, direct, args.inflight_delay_ms)


def print_table(results, direct, delay_ms):
    """The table, then each goal of issue 35 with the figure that meets or misses it."""
    print("| server | workload | concurrency | p50 added ms | p99 added ms | calls/s | CPU ms/call | peak RSS MB | errors | mcp-gen calls/s ÷ this |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ours = {}
    for r in results:
        if r["server"] == "mcp-gen":
            ours.setdefault((r["workload"].split("/")[0], r["concurrency"]), r)
    for r in results:
        kind = r["workload"].split("/")[0]
        if r["server"] == "upstream":
            added50 = added99 = "—"
        elif r["concurrency"] == 1000:
            # Against the slow upstream: what the server adds to its fixed delay.
            added50, added99 = fmt_ms(r["p50_us"] - delay_ms * 1000), fmt_ms(r["p99_us"] - delay_ms * 1000)
        else:
            base = direct[("read" if kind == "read" else "write", r["concurrency"])]
            added50, added99 = fmt_ms(r["p50_us"] - base["p50_us"]), fmt_ms(r["p99_us"] - base["p99_us"])
        cpu = "%.3f" % (1000.0 * r["cpu_s"] / max(1, r["answered"])) if "cpu_s" in r else "—"
        mem = "%.0f" % r["peak_mb"] if "peak_mb" in r else "—"
        errors = r["tool_errors"] + r["http_errors"] + r["transport_errors"]
        mine = ours.get(("keyed" if kind == "write" else kind, r["concurrency"]))
        ratio = "%.1fx" % (mine["calls_per_s"] / r["calls_per_s"]) \
            if mine and r["server"] not in ("mcp-gen", "upstream") and r["calls_per_s"] else ""
        print("| %s | %s | %d | %s | %s | %.0f | %s | %s | %d | %s |" % (
            r["server"], r["workload"], r["concurrency"], added50, added99, r["calls_per_s"], cpu, mem, errors, ratio))

    def find(server, workload, c):
        return next((r for r in results if r["server"] == server and r["workload"] == workload
                     and r["concurrency"] == c), None)

    goals = []
    read1, read64, read1000 = find("mcp-gen", "read", 1), find("mcp-gen", "read", 64), find("mcp-gen", "read", 1000)
    if read1:
        added = (read1["p50_us"] - direct[("read", 1)]["p50_us"]) / 1000.0
        goals.append(("reads add at most 0.15 ms at p50, concurrency 1", "%.3f ms" % added, added <= 0.15))
    if read64:
        goals.append(("reads serve 15,000 calls/s at concurrency 64", "%.0f" % read64["calls_per_s"],
                      read64["calls_per_s"] >= 15000))
    for store, floor in (("sqlite", 8000), ("postgres", 4000)):
        r = find("mcp-gen", "keyed/" + store, 64)
        if r:
            goals.append(("keyed writes serve %d calls/s on %s at concurrency 64" % (floor, store),
                          "%.0f" % r["calls_per_s"], r["calls_per_s"] >= floor))
    if read1000:
        goals.append(("peak memory at 1,000 in-flight calls under 100 MB", "%.0f MB" % read1000["peak_mb"],
                      read1000["peak_mb"] < 100))
    for peer in sorted({r["server"] for r in results} - {"mcp-gen", "upstream"}):
        behind = [(r["workload"], r["concurrency"]) for r in results if r["server"] == peer and
                  (m := ours.get(("keyed" if r["workload"] == "write" else r["workload"], r["concurrency"])))
                  and m["calls_per_s"] < r["calls_per_s"]]
        goals.append(("ahead of %s in calls/s on every shared workload" % peer,
                      "behind on %s" % behind if behind else "ahead on all", not behind))
    print()
    print("| goal | measured | |")
    print("|---|---|---|")
    for goal, figure, met in goals:
        print("| %s | %s | %s |" % (goal, figure, "met" if met else "missed"))


INLINE = """
import json, sys, yaml
spec = json.loads(json.dumps(yaml.safe_load(open(sys.argv[1])), default=str))
shared = spec.get("components", {}).get("parameters", {})
def inline(ps):
    return [shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p for p in ps]
for item in spec["paths"].values():
    for key, op in item.items():
        if key == "parameters":
            item[key] = inline(op)
        elif isinstance(op, dict) and "parameters" in op:
            op["parameters"] = inline(op["parameters"])
json.dump(spec, open(sys.argv[2], "w"))
"""


if __name__ == "__main__":
    TMP = tempfile.mkdtemp(prefix="bench-server-")
    SCHEMA = "bench_server_%d" % os.getpid()
    SPEC_JSON = os.path.join(TMP, "invoices.json")
    # The peers read the spec as JSON, with parameter $refs inlined: rmcp-openapi-server drops
    # a referenced path parameter (its get-invoice tool would take no invoice id).
    subprocess.run([os.path.join(BENCH, ".venv", "bin", "python"), "-c", INLINE, SPEC, SPEC_JSON], check=True)
    subprocess.run(["psql", PG, "-qc", "CREATE SCHEMA IF NOT EXISTS %s" % SCHEMA], check=False,
                   stdout=subprocess.DEVNULL)
    try:
        main()
    finally:
        subprocess.run(["psql", PG, "-qc", "DROP SCHEMA IF EXISTS %s CASCADE" % SCHEMA], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(TMP, ignore_errors=True)
