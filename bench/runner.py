#!/usr/bin/env python3
"""Run mcp-gen and its peers on the same OpenAPI documents; print a table.

Called by bench/peers.sh (which installs the peers and picks the documents);
see bench/README.md. Standard library only, so any python3 can run it.

Every measured command is a direct child of this process: wall time is taken
around it, and peak RSS is the child's ru_maxrss from os.wait4 (what
/usr/bin/time -v reports as "Maximum resident set size").  A watchdog enforces
the timeout and an RSS ceiling (MEM_LIMIT_MB) by polling /proc.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = "/usr/bin/time"  # GNU time


@dataclass
class Result:
    wall: float | None = None  # best wall seconds
    rss_mb: float | None = None  # peak RSS, MB (max over runs)
    tools: int | None = None
    status: str = "ok"  # ok | timeout | failed: ...
    runs: list[float] = field(default_factory=list)
    note: str = ""


@dataclass
class Proc:
    wall: float
    rss_mb: float
    rc: int | None
    status: str  # ok | timeout | oom | failed
    stdout: str
    stderr: str


def _rss_kb(pid: int | None) -> int:
    if not pid:
        return 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Timed:
    """A command run under `/usr/bin/time -f %M` in its own process group.

    Peak RSS comes from GNU time's report on its child (a plain fork of the small
    `time` process, so the figure is the tool's own), not from this Python
    process's wait4: Python spawns with vfork, and Linux then charges the
    parent's RSS to the child's ru_maxrss. A /proc poll backs the figure up when
    the tool had to be killed, and drives the RSS ceiling.
    """

    def __init__(self, cmd, stdout, stderr, env=None, cwd=None):
        if shutil.which(cmd[0]) is None:
            raise FileNotFoundError(2, "not found", cmd[0])
        fd, self.rss_file = tempfile.mkstemp(prefix="rss-")
        os.close(fd)
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen([TIME, "-f", "%M", "-o", self.rss_file, *cmd], stdout=stdout, stderr=stderr,
                                  stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
        self.child: int | None = None
        self.peak_kb = 0

    def tool_pid(self) -> int | None:
        if self.child is None:
            try:
                with open(f"/proc/{self.p.pid}/task/{self.p.pid}/children") as f:
                    kids = f.read().split()
                self.child = int(kids[0]) if kids else None
            except OSError:
                pass
        return self.child

    def poll_rss(self) -> int:
        self.peak_kb = max(self.peak_kb, _rss_kb(self.tool_pid()))
        return self.peak_kb

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def stop(self) -> None:
        """Kill the tool (GNU time then reports on it and exits)."""
        pid = self.tool_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill_all(self) -> None:
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def finish(self, timeout: float = 10) -> tuple[int | None, float]:
        """Reap; return (tool's exit code or None, peak RSS MB)."""
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill_all()
            self.p.wait()
        self.kill_all()  # stray grandchildren
        kb = 0
        try:
            with open(self.rss_file) as f:
                lines = [l for l in f.read().splitlines() if l.strip()]
            kb = int(lines[-1]) if lines and lines[-1].strip().isdigit() else 0
        except OSError:
            pass
        os.unlink(self.rss_file)
        kb = max(kb, self.peak_kb)
        return self.p.returncode, kb / 1024.0


def run_cmd(cmd, timeout: float, mem_mb: float, stdout=subprocess.DEVNULL, cwd=None, env=None) -> Proc:
    """Run cmd to completion under the watchdog; time it and take its peak RSS."""
    errf = tempfile.TemporaryFile()
    outf = tempfile.TemporaryFile() if stdout is None else stdout
    t = Timed(cmd, outf, errf, env=env, cwd=cwd)
    status = "ok"
    while True:
        if t.p.poll() is not None:
            wall = t.elapsed()
            break
        elapsed = t.elapsed()
        if elapsed > timeout or t.poll_rss() > mem_mb * 1024:
            status = "timeout" if elapsed > timeout else "oom"
            wall = elapsed
            t.stop()
            break
        time.sleep(0.002 if elapsed < 0.2 else 0.01 if elapsed < 2 else 0.05)
    rc, rss = t.finish()
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    out = ""
    if stdout is None:
        outf.seek(0)
        out = outf.read().decode("utf-8", "replace")
    if status == "ok" and rc != 0:
        status = "failed"
    return Proc(wall, rss, rc, status, out, err)


def short_reason(text: str, rc) -> str:
    """The most telling line of a failed tool's stderr, shortened."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    pick = None
    pats = [r"\b(\w*Error|error|Error|ERROR|panicked|Exception)\b", r"(fail|invalid|cannot|unable)"]
    for pat in pats:
        for l in reversed(lines):
            if re.search(pat, l, re.I) and not l.startswith(("at ", "File \"", "^", "~")):
                pick = l
                break
        if pick:
            break
    if pick is None:
        pick = lines[-1] if lines else f"exit {rc}"
    pick = re.sub(r"\x1b\[[0-9;]*m", "", pick)
    pick = re.sub(r"^\S*\d{4}-\d\d-\d\dT\S+\s+", "", pick)  # tracing timestamp
    pick = re.sub(r"^(ERROR|WARN)\s+[\w:]+:\s+", "", pick)  # tracing level and target
    pick = re.sub(r"^Application error:\s+", "", pick)
    return pick[:110]


# ---------------------------------------------------------------- the tools

def bench_mcpgen(doc: str, a) -> Result:
    res = Result()
    for _ in range(a.runs):
        pr = run_cmd([a.mcpgen, "catalog", "--spec", doc], a.timeout, a.mem_limit)
        if pr.status != "ok":
            return fail(res, pr)
        res.runs.append(pr.wall)
        res.rss_mb = max(res.rss_mb or 0, pr.rss_mb)
    res.wall = min(res.runs)
    if a.count_tools:  # one extra, untimed run to count the tools it lists
        pr = run_cmd([a.mcpgen, "catalog", "--spec", doc], a.timeout, a.mem_limit, stdout=None)
        try:
            v = json.loads(pr.stdout)
            res.tools = len(v["tools"] if isinstance(v, dict) else v)
        except Exception:  # noqa: BLE001
            pass
    return res


def bench_fastmcp(doc: str, a) -> Result:
    res = Result()
    py = os.path.join(a.venv, "bin", "python")
    for _ in range(a.peer_runs):
        pr = run_cmd([py, os.path.join(HERE, "fastmcp_list.py"), doc], a.timeout, a.mem_limit, stdout=None)
        if pr.status != "ok":
            return fail(res, pr)
        m = re.search(r"tools=(\d+)", pr.stdout)
        res.tools = int(m.group(1)) if m else None
        mi = re.search(r"import=([\d.]+)", pr.stdout)
        res.note = f"python imports {float(mi.group(1)):.1f}s" if mi else ""
        res.runs.append(pr.wall)
        res.rss_mb = max(res.rss_mb or 0, pr.rss_mb)
    res.wall = min(res.runs)
    return res


def bench_omg(doc: str, a) -> Result:
    res = Result()
    exe = os.path.join(a.npm_dir, "node_modules", ".bin", "openapi-mcp-generator")
    for _ in range(a.peer_runs):
        out = tempfile.mkdtemp(prefix="omg-", dir=a.scratch)
        try:
            pr = run_cmd([exe, "--input", doc, "--output", out, "--force", "--base-url", "http://127.0.0.1:9"],
                         a.timeout, a.mem_limit)
            if pr.status == "ok" and not os.path.exists(os.path.join(out, "src", "index.ts")):
                pr.status, pr.stderr = "failed", (pr.stderr + "\nno src/index.ts written")
            if pr.status != "ok":
                return fail(res, pr)
            with open(os.path.join(out, "src", "index.ts"), encoding="utf-8", errors="replace") as f:
                res.tools = sum(1 for l in f if re.match(r'^  \["[^"]+", \{$', l.rstrip()))
        finally:
            shutil.rmtree(out, ignore_errors=True)
        res.runs.append(pr.wall)
        res.rss_mb = max(res.rss_mb or 0, pr.rss_mb)
    res.wall = min(res.runs)
    return res


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mcp_post(port: int, body: dict, session: str | None, timeout: float):
    """POST one JSON-RPC message to a streamable-HTTP MCP endpoint; return (json or None, session id)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    c.request("POST", "/mcp", body=json.dumps(body), headers=headers)
    r = c.getresponse()
    sid = r.getheader("Mcp-Session-Id") or session
    ctype = r.getheader("Content-Type", "")
    if r.status >= 400:
        raise RuntimeError(f"HTTP {r.status}: {r.read(300).decode('utf-8', 'replace')}")
    want = body.get("id")
    if want is None:  # notification: 202, no body
        r.read()
        c.close()
        return None, sid
    if "text/event-stream" in ctype:
        data: list[str] = []
        while True:
            line = r.readline()
            if not line:
                break
            line = line.decode("utf-8").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line == "" and data:
                msg = json.loads("\n".join(data))
                data = []
                if isinstance(msg, dict) and msg.get("id") == want:
                    c.close()
                    return msg, sid
        raise RuntimeError("SSE stream ended without a response")
    msg = json.loads(r.read())
    c.close()
    return msg, sid


def bench_rmcp(doc: str, a) -> Result:
    """Start rmcp-openapi-server on DOC; time spawn → tools/list answer; peak RSS of the server."""
    res = Result()
    exe = os.path.join(a.tools_dir, "bin", "rmcp-openapi-server")
    for _ in range(a.peer_runs):
        port = _free_port()
        errf = tempfile.TemporaryFile()
        env = dict(os.environ, RMCP_OPENAPI_LOG="warn")
        t = Timed([exe, doc, "--base-url", "http://127.0.0.1:9", "--port", str(port), "--bind-address",
                   "127.0.0.1"], errf, errf, env=env)  # its tracing log goes to stdout
        status, err_msg, tools = "ok", "", None
        try:
            # wait for the port (the server binds only after loading and converting the spec)
            while True:
                elapsed = t.elapsed()
                if t.p.poll() is not None:
                    status = "failed"
                    break
                if elapsed > a.timeout:
                    status = "timeout"
                    break
                if t.poll_rss() > a.mem_limit * 1024:
                    status = "oom"
                    break
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.005 if elapsed < 1 else 0.05)
            if status == "ok":
                left = max(1.0, a.timeout - t.elapsed())
                init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "mcp-gen-bench", "version": "0"}}}
                r1, sid = _mcp_post(port, init, None, left)
                if r1 is None or "error" in r1:
                    raise RuntimeError(f"initialize: {r1}")
                _mcp_post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid, left)
                all_tools: list = []
                cursor = None
                while True:
                    req = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
                    if cursor:
                        req["params"]["cursor"] = cursor
                    r2, sid = _mcp_post(port, req, sid, left)
                    if r2 is None or "error" in r2:
                        raise RuntimeError(f"tools/list: {str(r2)[:200]}")
                    all_tools += r2["result"].get("tools", [])
                    cursor = r2["result"].get("nextCursor")
                    if not cursor:
                        break
                tools = len(all_tools)
                if t.elapsed() > a.timeout:
                    status = "timeout"
        except Exception as e:  # noqa: BLE001
            status, err_msg = "failed", f"client: {e}"
        wall = t.elapsed()
        t.stop()
        rc, rss = t.finish()
        errf.seek(0)
        err = errf.read().decode("utf-8", "replace")
        if status != "ok":
            return fail(res, Proc(wall, rss, rc, status, "", err + ("\n" + err_msg if err_msg else "")))
        res.tools = tools
        res.runs.append(wall)
        res.rss_mb = max(res.rss_mb or 0, rss)
    res.wall = min(res.runs)
    return res


def fail(res: Result, pr: Proc) -> Result:
    res.rss_mb = pr.rss_mb
    if pr.status == "timeout":
        res.status = "timeout"
        res.wall = pr.wall
    elif pr.status == "oom":
        res.status = f"failed: RSS over {pr.rss_mb / 1024:.0f} GB limit after {pr.wall:.0f}s"
    else:
        res.status = "failed: " + short_reason(pr.stderr, pr.rc)
    return res


TOOLS = {
    "mcp-gen": bench_mcpgen,
    "fastmcp": bench_fastmcp,
    "openapi-mcp-generator": bench_omg,
    "rmcp-openapi-server": bench_rmcp,
}

# ---------------------------------------------------------------- documents

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def count_ops(doc: str, index: dict[str, str]) -> str:
    if doc in index:
        return index[doc]
    try:
        with open(doc, "rb") as f:
            raw = f.read()
        try:
            spec = json.loads(raw)
        except ValueError:
            import yaml  # only present where pyyaml is; fine to miss

            spec = yaml.safe_load(raw)
        return str(sum(1 for item in (spec.get("paths") or {}).values() if isinstance(item, dict)
                       for m in item if m in HTTP_METHODS))
    except Exception:  # noqa: BLE001
        return "?"


def load_index(corpus: str) -> dict[str, str]:
    out = {}
    path = os.path.join(corpus, "index.tsv")
    if os.path.exists(path):
        with open(path) as f:
            next(f, None)
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 3:
                    out[os.path.realpath(os.path.join(corpus, cols[0]))] = cols[2]
    return out


def label(doc: str, corpus: str) -> str:
    root = os.path.realpath(corpus) + os.sep
    d = os.path.realpath(doc)
    if d.startswith(root):
        d = d[len(root):]
        if d.startswith("directory/"):
            d = d[len("directory/"):]
    return d


# ---------------------------------------------------------------- output

def secs(x: float) -> str:
    return f"{x:.3f}" if x < 1 else f"{x:.2f}"


def cell_time(r: Result) -> str:
    if r.status == "ok":
        return secs(r.wall)
    if r.status == "timeout":
        return f"timeout (>{r.wall:.0f}s)"
    return r.status


def cell_ratio(r: Result, base: Result) -> str:
    if base.status != "ok" or not base.wall:
        return "-"
    if r.status == "ok":
        x = r.wall / base.wall
        return f"{x:.1f}x" if x < 100 else f"{x:.0f}x"
    if r.status == "timeout":
        return f">{r.wall / base.wall:.0f}x"
    return "-"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("docs", nargs="+")
    ap.add_argument("--mcpgen", required=True)
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peer-runs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--mem-limit", type=float, default=12288, help="MB of RSS before a tool is killed")
    ap.add_argument("--corpus", default="/work/corpus")
    ap.add_argument("--venv", default=os.path.join(HERE, ".venv"))
    ap.add_argument("--npm-dir", default=os.path.join(HERE, ".npm"))
    ap.add_argument("--tools-dir", default=os.path.join(HERE, ".tools"))
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--json", default=None, help="also write raw results here")
    ap.add_argument("--no-count-tools", dest="count_tools", action="store_false")
    a = ap.parse_args()
    a.scratch = a.scratch or tempfile.mkdtemp(prefix="mcpgen-bench-")
    names = [t.strip() for t in a.tools.split(",") if t.strip()]
    for n in names:
        if n not in TOOLS:
            ap.error(f"unknown tool {n}; known: {', '.join(TOOLS)}")
    if "mcp-gen" not in names:
        names.insert(0, "mcp-gen")
    index = load_index(a.corpus)

    rows = []
    for doc in a.docs:
        d = os.path.realpath(doc)
        info = {"doc": label(d, a.corpus), "path": d, "mb": os.path.getsize(d) / 1e6, "ops": count_ops(d, index)}
        print(f"== {info['doc']} ({info['mb']:.1f} MB, {info['ops']} ops)", file=sys.stderr, flush=True)
        results = {}
        for n in names:
            try:
                r = TOOLS[n](d, a)
            except FileNotFoundError as e:
                r = Result(status=f"failed: not installed ({os.path.basename(e.filename or '?')})")
            except Exception as e:  # noqa: BLE001 - a bench harness bug must not lose the other rows
                r = Result(status=f"failed: harness: {type(e).__name__}: {str(e)[:80]}")
            results[n] = r
            extra = f" tools={r.tools}" if r.tools is not None else ""
            print(f"   {n:22s} {cell_time(r):>10s}  {r.rss_mb or 0:8.0f} MB{extra}  runs={['%.2f' % x for x in r.runs]}",
                  file=sys.stderr, flush=True)
        rows.append((info, results))

    peers = [n for n in names if n != "mcp-gen"]
    # Long table: one line per (document, tool).
    print("| doc | size MB | ops | tool | wall s (best) | peak MB | tools listed | × mcp-gen |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for info, results in rows:
        base = results["mcp-gen"]
        for i, n in enumerate(names):
            r = results[n]
            head = f"| {info['doc']} | {info['mb']:.1f} | {info['ops']} " if i == 0 else "| | | "
            ratio = "1.0x" if n == "mcp-gen" and r.status == "ok" else ("-" if n == "mcp-gen" else cell_ratio(r, base))
            rss = f"{r.rss_mb:.0f}" if r.rss_mb else "-"
            print(f"{head}| {n} | {cell_time(r)} | {rss} | {r.tools if r.tools is not None else '-'} | {ratio} |")
    # Compact summary: seconds and ratios only.
    print()
    print("| doc | MB | mcp-gen s | " + " | ".join(f"{p} s (×)" for p in peers) + " |")
    print("|---|---:|---:|" + "---:|" * len(peers))
    for info, results in rows:
        base = results["mcp-gen"]
        cells = []
        for p in peers:
            r = results[p]
            if r.status == "ok":
                cells.append(f"{secs(r.wall)} ({cell_ratio(r, base)})")
            elif r.status == "timeout":
                cells.append(f"timeout ({cell_ratio(r, base)})")
            else:
                cells.append("failed")
        print(f"| {info['doc']} | {info['mb']:.1f} | {cell_time(base)} | " + " | ".join(cells) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{**info, "results": {n: vars(r) for n, r in res.items()}} for info, res in rows], f, indent=1)
    shutil.rmtree(a.scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
