"""The real-application suite: generated servers in front of real applications, each from the
description it publishes, driven by the official MCP Python SDK in both protocol eras.

Usage: python3 bench/real/run.py [--app NAME ...] [--eras 2026-07-28,legacy] [--keep]

For each bench/real/<name>/app.py (see bench/real/APPS.md): installs the application at its pinned
version into target/real/<name>/venv, starts it on loopback, takes its description, runs
`mcp-gen verify` before and after the overlay's patches, compiles the description with the overlay,
builds the crate in the repository's target/ (so only the crate's own code compiles), serves it
with SQLite in front of the application, and runs the application's scenario in each era. Prints
one table per application and era, then the suite's table. Exits 1 when a step fails that the
application's KNOWN does not explain, or when a call the application served answered
`unexpected_answer`.
"""

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(BENCH))
TARGET = os.path.join(ROOT, "target")
HARNESS_VENV = os.path.join(TARGET, "real-venv")
HARNESS_PY = os.path.join(HARNESS_VENV, "bin", "python")
# The official MCP Python SDK, as tests/python/requirements.txt pins it.
SDK = "mcp==2.3.0"
ERAS = ["2026-07-28", "legacy"]


def log(msg):
    print(f"[real] {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pip_install(venv, requirements):
    """A venv with exactly `requirements` (a stamp file says what it holds)."""
    stamp = os.path.join(venv, "requirements.stamp")
    want = "\n".join(requirements) + "\n"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return 0.0
    t0 = time.time()
    log(f"installing {' '.join(requirements)} into {os.path.relpath(venv, ROOT)}")
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", *requirements],
                   check=True)
    with open(stamp, "w") as f:
        f.write(want)
    return time.time() - t0


class Env:
    """What an application's start() gets (bench/real/APPS.md)."""

    def __init__(self, name, venv, tmp):
        self.name, self.venv, self.tmp = name, venv, tmp
        self.redis_url = "redis://127.0.0.1:6379/9"
        self._databases = []

    def bin(self, name):
        return os.path.join(self.venv, "bin", name)

    def port(self):
        return free_port()

    def log(self, name):
        return os.path.join(self.tmp, name)

    def spawn(self, cmd, log_name, extra_env=None, cwd=None):
        env = dict(os.environ)
        env["PATH"] = os.path.join(self.venv, "bin") + os.pathsep + env.get("PATH", "")
        env.update(extra_env or {})
        out = open(self.log(log_name), "w")
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd or self.tmp,
                                start_new_session=True)

    def wait_http(self, url, timeout=120, ok=(200,), headers=None, procs=()):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            for p in procs:
                if p.poll() is not None:
                    raise RuntimeError(f"{p.args[0]} exited with {p.returncode} while starting")
            try:
                req = urllib.request.Request(url, headers=headers or {})
                with urllib.request.urlopen(req, timeout=5) as r:
                    if r.status in ok:
                        return
                    last = r.status
            except urllib.error.HTTPError as e:
                if e.code in ok:
                    return
                last = e.code
            except OSError as e:
                last = e
            time.sleep(0.5)
        raise RuntimeError(f"{url} did not answer within {timeout}s (last: {last})")

    def fetch(self, url, filename, headers=None):
        path = os.path.join(self.tmp, filename)
        req = urllib.request.Request(url, headers=headers or {})
        with urllib.request.urlopen(req, timeout=60) as r, open(path, "wb") as f:
            f.write(r.read())
        return path

    def pg_database(self):
        name = f"real_{self.name}_{os.getpid()}"
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-q", "-c",
                        f"DROP DATABASE IF EXISTS {name}", "-c", f"CREATE DATABASE {name}"], check=True,
                       stdout=subprocess.DEVNULL)
        self._databases.append(name)
        return name

    def cleanup(self):
        for name in self._databases:
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-q", "-c",
                            f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, 15)
    except OSError:
        proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)
        except OSError:
            proc.kill()
        proc.wait()


def mcp_gen():
    """The compiler: MCPGEN, else the release build CI makes, else a debug build made now."""
    if os.environ.get("MCPGEN"):
        return os.environ["MCPGEN"]
    release = os.path.join(TARGET, "release", "mcp-gen")
    if os.path.exists(release):
        return release
    subprocess.run(["cargo", "build", "-q", "--bin", "mcp-gen"], cwd=ROOT, check=True)
    return os.path.join(TARGET, "debug", "mcp-gen")


def without_patches(text):
    """The overlay as a person wrote it before verify: `patches` (the last key) cut off."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("patches:"):
            # The comment block just above `patches:` goes with it.
            j = i
            while j > 0 and lines[j - 1].startswith("#"):
                j -= 1
            return "".join(lines[:j])
    return text


def verify(compiler, spec, overlay, upstream, secrets, scenario=None, write=None):
    cmd = [compiler, "verify", "--spec", spec, "--overlay", overlay, "--upstream", upstream]
    if scenario:
        cmd += ["--writes", scenario]
    if write:
        cmd += ["--write-overlay", write]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **secrets))
    summary = next((l for l in reversed(r.stdout.splitlines()) if "call(s) made" in l), "")
    mismatches = None
    if "mismatch(es)" in summary:
        mismatches = int(summary.split(";")[1].split("mismatch")[0].strip())
    if r.returncode == 2:
        log(f"verify failed:\n{r.stdout}\n{r.stderr}")
    return {"code": r.returncode, "summary": summary, "mismatches": mismatches, "report": r.stdout}


def build_server(compiler, name, spec, overlay):
    out = os.path.join(TARGET, "real", name, "crate")
    if os.path.exists(out):
        shutil.rmtree(out)
    subprocess.run([compiler, "build", "--spec", spec, "--overlay", overlay, "--out", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # The repository's lock file and target directory: the same dependencies, compiled once.
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(out, "Cargo.lock"))
    r = subprocess.run(["cargo", "build", "-q", "--message-format=json-render-diagnostics"], cwd=out,
                       env=dict(os.environ, CARGO_TARGET_DIR=TARGET), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cargo build of {name}-mcp failed:\n{r.stderr[-4000:]}")
    exe = None
    for line in r.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        exe = m.get("executable") or exe
    with open(os.path.join(out, "tools.json")) as f:
        tools = len(json.load(f)["tools"])
    return exe, tools


def serve(binary, upstream, secrets, tmp):
    port = free_port()
    logf = open(os.path.join(tmp, "mcp-server.log"), "w")
    cmd = [binary, "serve", "--http", f"127.0.0.1:{port}", "--upstream", upstream,
           "--store", f"sqlite://{os.path.join(tmp, 'store.db')}"]
    proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, env=dict(os.environ, **secrets),
                            start_new_session=True, cwd=tmp)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the generated server exited: {open(logf.name).read()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/mcp/v1"
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the generated server did not listen")


# ---- the scenario's side ------------------------------------------------------------------

def error_code(structured, texts):
    def find(v):
        if isinstance(v, dict):
            if isinstance(v.get("code"), str):
                return v["code"]
            for x in v.values():
                c = find(x)
                if c:
                    return c
        return None

    c = find(structured)
    for t in texts:
        if c:
            break
        try:
            c = find(json.loads(t))
        except (ValueError, TypeError):
            pass
    return c or "error"


class Scenario:
    """What an application's scenario(s) gets (bench/real/APPS.md)."""

    def __init__(self, client, tools, era, origin, headers):
        self.client, self.tools, self.era = client, tools, era
        self.tag = "py" + era.replace("-", "") + uuid.uuid4().hex[:6]
        self.rows = []
        self.retries = []
        self._origin, self._headers = origin, headers

    def key(self):
        return "real-" + uuid.uuid4().hex

    def http(self, method, path, json_body=None, headers=None, **kw):
        json_body = kw.get("json", json_body)
        data = None if json_body is None else json.dumps(json_body).encode()
        h = dict(self._headers)
        if data is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        req = urllib.request.Request(self._origin + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                body = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            body, status = e.read(), e.code
        try:
            return status, json.loads(body) if body else None
        except ValueError:
            return status, body.decode(errors="replace")

    async def _call(self, tool, args):
        from mcp import MCPError

        try:
            r = await self.client.call_tool(tool, args)
        except MCPError as e:
            return f"mcp_error {e.code}", None
        except Exception as e:  # the SDK refuses a result off its outputSchema
            return f"raised:{type(e).__name__}: {e}"[:100], None
        texts = [c.text for c in r.content if c.type == "text"]
        s = r.structured_content
        if s is None and texts:
            try:
                s = json.loads(texts[0])
            except ValueError:
                s = None
        if r.is_error:
            return error_code(s, texts), s
        return "ok", s

    async def step(self, name, tool, args, expect="ok", check=None):
        if tool not in self.tools:
            self.rows.append((name, tool, "no such tool", False))
            return None
        outcome, s = await self._call(tool, args)
        passed = outcome == expect or (isinstance(expect, (set, frozenset, list, tuple)) and outcome in expect)
        note = ""
        if passed and check:
            note = check(s) or ""
            passed = not note
        self.rows.append((name, tool, outcome + (f" ({note})" if note else ""), passed))
        return s if outcome == "ok" else None

    async def retried(self, name, tool, args, count):
        """The write sent twice with one key: one effect upstream, the same answer twice."""
        args = dict(args, idempotency_key=self.key())
        before = count()
        first = await self.step(name, tool, args)
        second = await self.step(f"{name}, retried with its key", tool, args,
                                 check=lambda s: None if s == first else "answer differs from the first")
        after = count()
        reached = after - before
        self.retries.append(reached == 1)
        self.rows.append((f"{name}: effects upstream", "(the application, directly)", f"{reached}", reached == 1))


async def run_era(app, url, era, upstream):
    from mcp import Client

    async with Client(url, mode=era) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        s = Scenario(client, tools, era, upstream["origin"], upstream.get("http_headers", {}))
        await app.scenario(s)
    return s


def load_app(name):
    path = os.path.join(BENCH, name, "app.py")
    spec = importlib.util.spec_from_file_location(f"real_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def print_table(title, rows, known):
    print(f"\n### {title}\n")
    print("| step | tool | outcome | pass |\n| --- | --- | --- | --- |")
    for name, tool, outcome, ok in rows:
        mark = "yes" if ok else ("known: " + known[name] if name in known else "**NO**")
        print(f"| {name} | `{tool}` | {outcome} | {mark} |")


def run_app(name, eras, keep):
    app = load_app(name)
    t0 = time.time()
    venv = os.path.join(TARGET, "real", name, "venv")
    installed = pip_install(venv, app.REQUIREMENTS)
    tmp = tempfile.mkdtemp(prefix=f"real-{name}-")
    env = Env(name, venv, tmp)
    procs = []
    result = {"name": app.TITLE, "version": app.VERSION, "origin": app.ORIGIN, "eras": {}, "retries": [],
              "unexpected": 0, "unexplained": 0, "install_s": installed}
    known = getattr(app, "KNOWN", {})
    try:
        t1 = time.time()
        up = app.start(env)
        procs += up["procs"]
        result["start_s"] = time.time() - t1
        up.setdefault("origin", "/".join(up["upstream"].split("/")[:3]))
        secrets = up.get("secrets", {})
        compiler = mcp_gen()
        overlay = os.path.join(BENCH, name, "overlay.yaml")
        scenario = os.path.join(BENCH, name, "scenario.yaml")
        scenario = scenario if os.path.exists(scenario) else None
        # verify before the overlay's patches, with the patches it writes, and with the overlay.
        bare = os.path.join(tmp, "overlay.unpatched.yaml")
        with open(overlay) as f, open(bare, "w") as g:
            g.write(without_patches(f.read()))
        written = os.path.join(tmp, "overlay.written.yaml")
        before = verify(compiler, up["description"], bare, up["upstream"], secrets, scenario, written)
        after_written = verify(compiler, up["description"], written, up["upstream"], secrets, scenario)
        after = verify(compiler, up["description"], overlay, up["upstream"], secrets, scenario)
        result["verify"] = (before, after_written, after)
        print(f"\n### {app.TITLE} {app.VERSION}: mcp-gen verify\n")
        print(f"- without the overlay's patches: {before['summary']}")
        print(f"- with the patches verify wrote: {after_written['summary']}")
        print(f"- with bench/real/{name}/overlay.yaml: {after['summary']}")
        if os.environ.get("REAL_VERBOSE"):
            print("\n```\n" + before["report"] + "```")
        t2 = time.time()
        binary, tools = build_server(compiler, name, up["description"], overlay)
        result["build_s"] = time.time() - t2
        result["tools"] = tools
        server, url = serve(binary, up["upstream"], secrets, tmp)
        procs.append(server)
        for era in eras:
            try:
                s = asyncio.run(run_era(app, url, era, up))
                rows = s.rows
                result["retries"] += s.retries
            except BaseException as e:  # noqa: BLE001 - a client failure is a failed row, not a crash
                while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                    e = e.exceptions[0]
                rows = [("(client)", "-", f"failed: {type(e).__name__}: {e}"[:160], False)]
            result["eras"][era] = rows
            print_table(f"{app.TITLE} {app.VERSION}, era {era}", rows, known)
            for step, _tool, outcome, ok in rows:
                if outcome.startswith("unexpected_answer"):
                    result["unexpected"] += 1
                if not ok and step not in known:
                    result["unexplained"] += 1
    except Exception as e:  # noqa: BLE001 - the suite goes on to the next application
        log(f"{name}: {type(e).__name__}: {e}")
        result["error"] = f"{type(e).__name__}: {e}"[:300]
        result["unexplained"] += 1
    finally:
        for p in reversed(procs):
            stop(p)
        env.cleanup()
        if keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result["seconds"] = time.time() - t0
    return result


def main():
    # The venv's python links to this one: compare prefixes, not executables.
    if os.path.realpath(sys.prefix) != os.path.realpath(HARNESS_VENV):
        pip_install(HARNESS_VENV, [SDK])
        os.execv(HARNESS_PY, [HARNESS_PY, os.path.abspath(__file__)] + sys.argv[1:])
    p = argparse.ArgumentParser()
    p.add_argument("--app", action="append", help="one application (default: every bench/real/<name>/app.py)")
    p.add_argument("--eras", default=",".join(ERAS))
    p.add_argument("--keep", action="store_true", help="keep each application's temporary directory and logs")
    a = p.parse_args()
    names = a.app or sorted(d for d in os.listdir(BENCH) if os.path.exists(os.path.join(BENCH, d, "app.py")))
    eras = a.eras.split(",")
    t0 = time.time()
    results = [run_app(n, eras, a.keep) for n in names]
    print("\n### The suite\n")
    head = "| application | version | origin | tools | " + " | ".join(f"steps {e}" for e in eras)
    print(head + " | keyed retries reaching it once | verify: before → after | seconds |")
    print("|" + " --- |" * (7 + len(eras)))
    for r in results:
        cells = []
        for e in eras:
            rows = r["eras"].get(e, [])
            cells.append(f"{sum(1 for x in rows if x[3])}/{len(rows)}" if rows else "—")
        v = r.get("verify")
        vtext = f"{v[0]['mismatches']} → {v[2]['mismatches']}" if v else "—"
        retries = f"{sum(r['retries'])}/{len(r['retries'])}" if r["retries"] else "—"
        print(f"| {r['name']} | {r['version']} | {r['origin']} | {r.get('tools', '—')} | " + " | ".join(cells)
              + f" | {retries} | {vtext} | {r['seconds']:.0f} |")
        if r.get("error"):
            print(f"\n{r['name']}: {r['error']}\n")
    total = time.time() - t0
    unexpected = sum(r["unexpected"] for r in results)
    unexplained = sum(r["unexplained"] for r in results)
    print(f"\n{total:.0f} s in all; {unexplained} unexplained failure(s); {unexpected} unexpected_answer(s)")
    sys.exit(1 if unexplained or unexpected else 0)


if __name__ == "__main__":
    main()
