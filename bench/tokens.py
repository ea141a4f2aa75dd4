#!/usr/bin/env python3
"""Token economy and tools/list size of mcp-gen against FastMCP and openapi-mcp-generator, on
the same operations of the same OpenAPI documents. Run through bench/tokens.sh (which installs
the peers and finds the o200k_base vocabulary); see bench/README.md, section "Token economy".

Needs the bench/.venv interpreter (tiktoken, fastmcp, PyYAML) and node.

Per document and generator it collects every tool served, each mapped back to its operation
(METHOD, path), and compares:
  * model-visible tokens per tool, o200k_base: count(name) + count(description) +
    count(compact JSON of inputSchema), each of the three encoded on its own (encode_ordinary)
    and summed -- what mcp-gen's `tokens` subcommand counts (src/tokens.rs). Compact JSON is
    json.dumps(schema, separators=(",", ":"), ensure_ascii=False): serde_json's to_string.
    Means are taken over the operations that all generators produced (the intersection).
  * the whole tools/list payload: compact JSON (UTF-8 bytes) of the list of every tool the
    generator serves, as sent on the wire (output schemas, annotations, titles included).
  * mcp-gen's fidelity: constraints preserved / constraints (`mcp-gen fidelity --json`).

Internal mode (run by this script in a child process, under a timeout):
  tokens.py --fastmcp-dump DOC OUT
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

# The default documents (relative to the corpus root): label, path. Documents named on the
# command line replace this set.
DEFAULT_DOCS = [
    ("Stripe", "directory/stripe.com.json"),
    ("Twilio", "twilio/twilio_api_v2010.yaml"),
    ("Asana", "directory/asana.com.json"),
    ("GitHub", "directory/github.com/api.github.com.json"),
    ("Slack", "directory/slack.com.json"),
    ("Box", "directory/box.com.json"),
    ("DigitalOcean", "directory/digitalocean.com.json"),
    ("Notion", "directory/notion.com.json"),
]

GENS = ("mcp-gen", "FastMCP", "openapi-mcp-generator")
PEERS = ("FastMCP", "openapi-mcp-generator")
SHORT = {"mcp-gen": "mcp-gen", "FastMCP": "FastMCP", "openapi-mcp-generator": "OMG"}

# Targets (not tuned here; the script only reports them).
TOK_VS_FASTMCP = 0.5
BYTES_VS_FASTMCP = 0.1


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def compact(v) -> str:
    """serde_json::to_string's form: no whitespace, non-ASCII written as is."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------- tokenizer
def o200k(path: str):
    """o200k_base built from a local vocabulary file (tiktoken's own pattern and specials)."""
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as public

    real = tiktoken.load.load_tiktoken_bpe
    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # read the file itself, never a cache or the network

    def local(_url, expected_hash=None):
        # expected_hash is OpenAI's sha256 of the published file: the local copy must match it.
        return real(path, expected_hash)

    public.load_tiktoken_bpe = local
    try:
        params = public.o200k_base()
    finally:
        public.load_tiktoken_bpe = real
    return tiktoken.Encoding(**params)


class Counter:
    def __init__(self, enc):
        self.enc = enc

    def n(self, text: str | None) -> int:
        return len(self.enc.encode_ordinary(text)) if text else 0

    def visible(self, tool: dict) -> int:
        return self.n(tool.get("name")) + self.n(tool.get("description")) + self.n(compact(tool.get("inputSchema", {})))


# ---------------------------------------------------------------------------- subprocesses
@dataclass
class Run:
    rc: int | None
    status: str  # "ok", "exit N", "timeout", "memory", "error"
    seconds: float
    stderr: str
    peak_mb: float = 0.0

    def ok(self, allowed=(0,)) -> bool:
        return self.status == "ok" and self.rc in allowed

    def why(self, timeout: float) -> str:
        if self.status == "timeout":
            return f"timeout (>{timeout:.0f}s)"
        if self.status == "memory":
            return f"killed at {self.peak_mb:.0f} MB RSS"
        lines = [l.strip() for l in self.stderr.splitlines() if l.strip()]
        err = next((l for l in reversed(lines) if "error" in l.lower()), lines[-1] if lines else "")
        return f"failed (exit {self.rc}): {err[:160]}"


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run(cmd, timeout: float, mem_mb: float, stdout_path: str | None = None, cwd=None) -> Run:
    """Runs cmd in its own process group; kills the group at `timeout` s or `mem_mb` RSS."""
    t0 = time.monotonic()
    with open(stdout_path or os.devnull, "wb") as out, tempfile.TemporaryFile() as err:
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, start_new_session=True)
        except OSError as e:
            return Run(None, "error", 0.0, str(e))
        status, peak = "ok", 0.0
        while True:
            try:
                p.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            peak = max(peak, rss_mb(p.pid))
            over_time = time.monotonic() - t0 > timeout
            if over_time or peak > mem_mb:
                status = "timeout" if over_time else "memory"
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                break
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Run(p.returncode, status, time.monotonic() - t0, text, peak)


# ---------------------------------------------------------------------------- FastMCP (child)
def fastmcp_dump(doc: str, out: str) -> int:
    """Child mode: build FastMCP.from_openapi on DOC and write its tools with their routes."""
    from fastmcp import FastMCP

    try:  # fastmcp 4.x takes an httpx2 client; older versions httpx.
        import httpx2 as httpx
    except ImportError:  # pragma: no cover
        import httpx

    with open(doc, "rb") as f:
        raw = f.read()
    if doc.endswith((".yaml", ".yml")):
        import yaml

        spec = yaml.safe_load(raw)
    else:
        spec = json.loads(raw)
    base = "http://127.0.0.1:9"  # as bench/fastmcp_list.py: nothing is ever called
    servers = spec.get("servers") or []
    if servers and isinstance(servers[0], dict) and str(servers[0].get("url", "")).startswith("http"):
        base = servers[0]["url"]
    mcp = FastMCP.from_openapi(openapi_spec=spec, client=httpx.AsyncClient(base_url=base))

    async def listed():
        return await mcp.list_tools()

    rows = []
    for t in asyncio.run(listed()):
        # What tools/list sends: the MCP Tool, by alias (inputSchema, outputSchema, _meta).
        wire = t.to_mcp_tool().model_dump(mode="json", exclude_none=True, by_alias=True)
        route = getattr(t, "_route", None)  # OpenAPITool keeps its HTTPRoute here
        rows.append({
            "method": getattr(route, "method", None),
            "path": getattr(route, "path", None),
            "tool": wire,
        })
    with open(out, "w") as f:
        json.dump(rows, f, ensure_ascii=False)
    return 0


# ---------------------------------------------------------------------------- one generator's result
@dataclass
class Gen:
    name: str
    error: str | None = None
    tools: list = field(default_factory=list)  # every tool served, wire form
    by_op: dict = field(default_factory=dict)  # (METHOD, path) -> wire tool
    unmapped: int = 0  # tools with no operation found
    duplicates: int = 0  # extra tools on an operation already seen
    payload_bytes: int = 0  # compact JSON of `tools`
    stdout_bytes: int | None = None  # mcp-gen: `catalog` stdout as printed
    seconds: float = 0.0
    peak_mb: float = 0.0  # RSS sampled every 0.25 s (the catalog step for mcp-gen)
    extra: dict = field(default_factory=dict)

    def add(self, method, path, tool):
        if not method or not path:
            self.unmapped += 1
            return
        key = (str(method).upper(), str(path))
        if key in self.by_op:
            self.duplicates += 1
            return
        self.by_op[key] = tool


def payload_parts(tools: list) -> dict:
    """Bytes of the compact tools/list payload by part."""
    total = len(compact(tools).encode())
    text = sum(len(compact(t.get("name", "")).encode()) + len(compact(t.get("description", "")).encode()) for t in tools)
    inp = sum(len(compact(t.get("inputSchema", {})).encode()) for t in tools)
    outp = sum(len(compact(t["outputSchema"]).encode()) for t in tools if "outputSchema" in t)
    return {"total": total, "name+description": text, "inputSchema": inp, "outputSchema": outp,
            "other (keys, title, annotations, _meta)": total - text - inp - outp}


def run_mcpgen(args, doc, work) -> Gen:
    g = Gen("mcp-gen")
    cat_path = os.path.join(work, "catalog.json")
    r = run([args.mcpgen, "catalog", "--spec", doc], args.timeout, args.mem_limit, cat_path)
    g.seconds, g.peak_mb = r.seconds, r.peak_mb
    if not r.ok():
        g.error = r.why(args.timeout)
        return g
    g.stdout_bytes = os.path.getsize(cat_path)
    with open(cat_path, encoding="utf-8") as f:
        g.tools = json.load(f)["tools"]
    g.payload_bytes = len(compact(g.tools).encode())

    plan_path = os.path.join(work, "plan.json")
    r = run([args.mcpgen, "plan", "--spec", doc], args.timeout, args.mem_limit, plan_path)
    if not r.ok():
        g.error = "plan " + r.why(args.timeout)
        return g
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    ops = {t["name"]: t["operation"] for t in plan["tools"]}
    g.extra["left_out"] = len(plan.get("leftOut", []))
    for t in g.tools:
        op = ops.get(t["name"])
        g.add(op and op.get("method"), op and op.get("path"), t)

    tok_path = os.path.join(work, "tokens.json")
    r = run([args.mcpgen, "tokens", "--spec", doc, "--json"], args.timeout, args.mem_limit, tok_path)
    if r.ok():
        with open(tok_path, encoding="utf-8") as f:
            g.extra["rust_tokens"] = json.load(f)
    else:
        g.extra["rust_tokens_error"] = r.why(args.timeout)

    fid_path = os.path.join(work, "fidelity.json")
    r = run([args.mcpgen, "fidelity", "--spec", doc, "--json"], args.timeout, args.mem_limit, fid_path)
    if r.ok(allowed=(0, 1)):  # exit 1: something was lost; the JSON says what
        with open(fid_path, encoding="utf-8") as f:
            g.extra["fidelity"] = json.load(f)
    else:
        g.extra["fidelity_error"] = r.why(args.timeout)
    return g


def run_fastmcp(args, doc, work) -> Gen:
    g = Gen("FastMCP")
    out = os.path.join(work, "fastmcp.json")
    r = run([sys.executable, os.path.abspath(__file__), "--fastmcp-dump", doc, out], args.timeout, args.mem_limit)
    g.seconds, g.peak_mb = r.seconds, r.peak_mb
    if not r.ok():
        g.error = r.why(args.timeout)
        return g
    with open(out, encoding="utf-8") as f:
        rows = json.load(f)
    g.tools = [row["tool"] for row in rows]
    g.payload_bytes = len(compact(g.tools).encode())
    for row in rows:
        g.add(row["method"], row["path"], row["tool"])
    return g


def run_omg(args, doc, work) -> Gen:
    g = Gen("openapi-mcp-generator")
    proj = os.path.join(work, "omg")
    r = run([args.omg, "--input", doc, "--output", proj, "--force", "--base-url", "http://127.0.0.1:9"],
            args.timeout, args.mem_limit, cwd=work)
    g.seconds, g.peak_mb = r.seconds, r.peak_mb
    if not r.ok():
        g.error = r.why(args.timeout)
        return g
    out = os.path.join(work, "omg.json")
    r = run(["node", args.omg_extract, proj], args.timeout, args.mem_limit, out)
    if not r.ok():
        g.error = "extract " + r.why(args.timeout)
        return g
    with open(out, encoding="utf-8") as f:
        defs = json.load(f)
    for d in defs:
        # Its ListTools handler serves exactly these three fields of each definition.
        tool = {"name": d["name"]}
        if d.get("description") is not None:
            tool["description"] = d["description"]
        tool["inputSchema"] = d.get("inputSchema")
        g.tools.append(tool)
        g.add(d.get("method"), d.get("pathTemplate"), tool)
    g.payload_bytes = len(compact(g.tools).encode())
    return g


# ---------------------------------------------------------------------------- breakdown of a tool's tokens
SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                 "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema")
SUBSCHEMA_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")

# Schema keywords by kind, stripped one kind after the other; what is left is structure.
KINDS = [
    ("schema prose (description, title, $comment)", {"description", "title", "$comment"}),
    ("examples & defaults", {"examples", "example", "default"}),
    ("enum & const", {"enum", "const"}),
    ("constraints & formats", {"pattern", "format", "minLength", "maxLength", "minimum", "maximum",
                               "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
                               "uniqueItems", "minProperties", "maxProperties", "readOnly", "writeOnly",
                               "deprecated", "contentMediaType", "contentEncoding", "nullable"}),
    ("additionalProperties (closed objects, maps)", {"additionalProperties", "unevaluatedProperties"}),
]


def strip(schema, drop: set):
    """The schema without the keywords in `drop`, at schema positions only (never a property
    called "description"); vendor keys x-* count as prose."""
    if isinstance(schema, list):
        return [strip(s, drop) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k in drop or ("description" in drop and k.startswith("x-")):
            continue
        if k in SUBSCHEMA_MAPS and isinstance(v, dict):
            out[k] = {name: strip(s, drop) for name, s in v.items()}
        elif k in SUBSCHEMA_ONE:
            out[k] = strip(v, drop)
        elif k in SUBSCHEMA_LIST and isinstance(v, list):
            out[k] = [strip(s, drop) for s in v]
        else:
            out[k] = v
    return out


def prose_free(parts: dict) -> float:
    """A lower bound for a generator that keeps every parameter and constraint: the mean tokens
    per tool with the tool description and all schema prose, examples and defaults taken away."""
    gone = ("description", KINDS[0][0], KINDS[1][0])
    return parts["total"] - sum(parts.get(k, 0) for k in gone)


def breakdown(c: Counter, tool: dict) -> dict:
    schema = tool.get("inputSchema", {})
    parts = {"name": c.n(tool.get("name")), "description": c.n(tool.get("description"))}
    dropped: set = set()
    prev = c.n(compact(schema))
    for label, keys in KINDS:
        dropped |= keys
        now = c.n(compact(strip(schema, dropped)))
        parts[label] = prev - now
        prev = now
    parts["schema structure (type, properties, names, required, combinators, $defs…)"] = prev
    parts["total"] = c.visible(tool)
    return parts


# ---------------------------------------------------------------------------- like-for-like subset
# Names a generator may wrap a request body in; left out when comparing property names.
WRAPPERS = {"requestBody", "body"}
SIMILAR = 0.8  # pairwise Jaccard of property names for an operation to count as like-for-like


def prop_names(schema, acc=None) -> set:
    """Every property name anywhere in the schema (through properties, items, combinators, $defs)."""
    acc = set() if acc is None else acc
    if isinstance(schema, list):
        for s in schema:
            prop_names(s, acc)
    elif isinstance(schema, dict):
        for k, v in schema.items():
            if k in SUBSCHEMA_MAPS and isinstance(v, dict):
                if k == "properties":
                    acc.update(v)
                for s in v.values():
                    prop_names(s, acc)
            elif k in SUBSCHEMA_ONE or k in SUBSCHEMA_LIST:
                prop_names(v, acc)
    return acc


def similar(a: set, b: set) -> bool:
    a, b = a - WRAPPERS, b - WRAPPERS
    return not (a | b) or len(a & b) / len(a | b) >= SIMILAR


# ---------------------------------------------------------------------------- per document
def evaluate(args, c: Counter, label: str, doc: str) -> dict:
    work = tempfile.mkdtemp(prefix="mcpgen-tokens-")
    res = {"api": label, "doc": doc, "gens": {}}
    try:
        gens: dict[str, Gen] = {}
        for name, fn in (("mcp-gen", run_mcpgen), ("FastMCP", run_fastmcp), ("openapi-mcp-generator", run_omg)):
            sub = os.path.join(work, SHORT[name])
            os.makedirs(sub)
            log(f"[{label}] {name} ...")
            g = fn(args, doc, sub)
            gens[name] = g
            state = g.error or f"{len(g.tools)} tools, {len(g.by_op)} operations"
            log(f"[{label}] {name}: {state} ({g.seconds:.1f}s)")
    finally:
        if args.keep_work:
            log(f"[{label}] work files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    ok = {n: g for n, g in gens.items() if not g.error}
    common = set.intersection(*(set(g.by_op) for g in ok.values())) if ok else set()
    common = sorted(common)
    res["intersection"] = len(common)
    res["intersection_of"] = sorted(ok)
    for n, g in gens.items():
        e = {"error": g.error, "seconds": round(g.seconds, 2), "peak_mb": round(g.peak_mb)}
        if not g.error:
            per = {k: c.visible(t) for k, t in g.by_op.items()}
            e.update({
                "tools": len(g.tools),
                "operations": len(g.by_op),
                "unmapped": g.unmapped,
                "duplicates": g.duplicates,
                "mean_tokens": statistics.fmean(per[k] for k in common) if common else None,
                "sum_tokens": sum(per[k] for k in common),
                "mean_tokens_all_tools": statistics.fmean(c.visible(t) for t in g.tools) if g.tools else None,
                "payload_bytes": g.payload_bytes,
                "payload_parts": payload_parts(g.tools),
            })
            if g.stdout_bytes is not None:
                e["stdout_bytes"] = g.stdout_bytes
            e["_per"] = per
        res["gens"][n] = e
    m = gens["mcp-gen"]
    if not m.error:
        res["left_out"] = m.extra.get("left_out")
        rust = m.extra.get("rust_tokens")
        if rust:
            py = {t["name"]: c.visible(t) for t in m.tools}
            rs = {t["name"]: t["visible"] for t in rust["per_tool"]}
            diffs = [abs(py[n] - rs[n]) for n in rs if n in py]
            res["check"] = {
                "tools_rust": len(rs), "tools_python": len(py), "matched": len(diffs),
                "equal": sum(d == 0 for d in diffs), "max_abs_diff": max(diffs, default=0),
                "total_rust": rust["visible_total"], "total_python": sum(py.values()),
            }
        else:
            res["check"] = {"error": m.extra.get("rust_tokens_error")}
        fid = m.extra.get("fidelity")
        if fid:
            res["fidelity"] = {k: fid[k] for k in ("operations", "constraints", "preserved", "not_applicable", "schemas")}
            res["fidelity"]["losses"] = len(fid.get("losses", []))
            res["fidelity"]["invalid_schemas"] = len(fid.get("invalid_schemas", []))
            res["fidelity"]["left_out"] = len(fid.get("left_out", []))
        else:
            res["fidelity"] = {"error": m.extra.get("fidelity_error")}

    # Like-for-like: operations whose input schemas name (nearly) the same properties in every
    # generator, so that a generator that drops a body (or its constraints) is not "smaller".
    names = {n: {k: prop_names(g.by_op[k].get("inputSchema", {})) for k in common} for n, g in ok.items()}
    like = [k for k in common if all(similar(names[a][k], names[b][k]) for a in names for b in names if a < b)]
    res["like_for_like"] = {"operations": len(like), "similarity": SIMILAR}
    for n in ok:
        per = res["gens"][n]["_per"]
        res["gens"][n]["property_names"] = sum(len(names[n][k] - WRAPPERS) for k in common)
        res["like_for_like"][n] = statistics.fmean(per[k] for k in like) if like else None
    judge(res)
    v = res["verdict"]
    if v["tokens_vs_smallest"] is False or v["tokens_vs_fastmcp"] is False:
        # Where the tokens go over the whole ∩: mean per tool of each part, per generator.
        res["breakdown"] = {}
        for n, g in ok.items():
            sums: dict = {}
            for k in common:
                for part, x in breakdown(c, g.by_op[k]).items():
                    sums[part] = sums.get(part, 0) + x
            res["breakdown"][n] = {part: x / len(common) for part, x in sums.items()} if common else {}
        if args.samples:
            res["samples"] = samples(c, gens, res, common, like, args.samples)
    for e in res["gens"].values():
        e.pop("_per", None)
    return res


def judge(res):
    g = res["gens"]
    m, f = g["mcp-gen"], g["FastMCP"]
    avail = {n: g[n] for n in GENS if not g[n].get("error")}
    v = {}
    mt = m.get("mean_tokens")
    ft = f.get("mean_tokens") if not f.get("error") else None
    peers = [g[p]["mean_tokens"] for p in PEERS if p in avail and g[p].get("mean_tokens") is not None]
    res["smallest_peer"] = min((p for p in PEERS if p in avail and g[p].get("mean_tokens") is not None),
                               key=lambda p: g[p]["mean_tokens"], default=None)
    res["ratio_tokens_fastmcp"] = mt / ft if mt is not None and ft else None
    res["ratio_tokens_smallest"] = mt / min(peers) if mt is not None and peers and min(peers) else None
    res["ratio_bytes_fastmcp"] = (m["payload_bytes"] / f["payload_bytes"]
                                  if "payload_bytes" in m and "payload_bytes" in f and f["payload_bytes"] else None)
    # None: cannot be judged (a generator failed or timed out)
    v["tokens_vs_fastmcp"] = None if res["ratio_tokens_fastmcp"] is None else res["ratio_tokens_fastmcp"] <= TOK_VS_FASTMCP
    # Judged only against peers that produced their tools: with a peer missing it is None.
    if res["ratio_tokens_smallest"] is None or len(peers) < len(PEERS):
        v["tokens_vs_smallest"] = None if res["ratio_tokens_smallest"] is None or res["ratio_tokens_smallest"] <= 1 else False
    else:
        v["tokens_vs_smallest"] = res["ratio_tokens_smallest"] <= 1
    v["bytes_vs_fastmcp"] = None if res["ratio_bytes_fastmcp"] is None else res["ratio_bytes_fastmcp"] <= BYTES_VS_FASTMCP
    fid = res.get("fidelity") or {}
    if "constraints" in fid:
        v["constraints_100"] = fid["preserved"] == fid["constraints"] and fid["losses"] == 0
    else:
        v["constraints_100"] = None
    res["verdict"] = v


def samples(c: Counter, gens, res, common, like, n) -> list:
    """A few tools of the intersection, with where their tokens go: among the like-for-like
    operations the one where mcp-gen is furthest above the smallest peer and the one nearest
    mcp-gen's median there; then the furthest above that peer over the whole intersection
    (often an operation whose body the peer does not describe)."""
    g = res["gens"]
    peer = res.get("smallest_peer")
    if not peer or not common:
        return []
    pm, pp = g["mcp-gen"]["_per"], g[peer]["_per"]
    picks = []

    def excess(ops, pp):  # most excess first
        return sorted(ops, key=lambda k: (pp[k] - pm[k], k))

    lf = res.get("like_for_like") or {}
    like_peer = min((p for p in PEERS if lf.get(p) is not None), key=lambda p: lf[p], default=None)
    if like and like_peer:
        picks.append(("like-for-like, largest excess over " + SHORT[like_peer], excess(like, g[like_peer]["_per"])[0]))
        med = statistics.median(pm[k] for k in like)
        picks.append(("like-for-like, nearest mcp-gen's median", min(like, key=lambda k: (abs(pm[k] - med), k))))
    for k in excess(common, pp):
        picks.append(("whole ∩, largest excess over " + SHORT[peer], k))
        break
    for k in excess(common, pp)[1:]:
        if len(picks) >= n:
            break
        picks.append(("whole ∩, next largest excess", k))
    out, seen = [], set()
    for why, key in picks[:n]:
        if key in seen:
            continue
        seen.add(key)
        row = {"operation": f"{key[0]} {key[1]}", "why": why, "by": {}}
        for name in GENS:
            gg = gens[name]
            if not gg.error and key in gg.by_op:
                t = gg.by_op[key]
                row["by"][name] = {"tool": t.get("name"), "breakdown": breakdown(c, t),
                                   "inputSchema": compact(t.get("inputSchema", {})),
                                   "description": t.get("description", "")}
        out.append(row)
    return out


# ---------------------------------------------------------------------------- report
def fmt_tok(v):
    return "—" if v is None else f"{v:.1f}"


def fmt_ratio(v):
    return "—" if v is None else f"{v:.2f}"


def fmt_bytes(v):
    return "—" if v is None else f"{v:,}"


def mark(v):
    return {True: "pass", False: "**FAIL**", None: "n/a"}[v]


def cell(e, key, fmt):
    return e["error"].split(":")[0] if e.get("error") else fmt(e.get(key))


def report(results, timeout) -> str:
    L = []
    L.append("| API | tools mcp-gen / FastMCP / OMG | ∩ | tok/tool mcp-gen | FastMCP | OMG | ÷FastMCP | ÷smallest "
             "| payload B mcp-gen | FastMCP | OMG | ÷FastMCP | constraints | tok ≤0.5×FastMCP | tok ≤ smallest "
             "| bytes ≤0.1×FastMCP | 100% constraints |")
    L.append("|" + "---|" * 17)
    for r in results:
        g = r["gens"]
        counts = " / ".join(cell(g[n], "tools", str) for n in GENS)
        fid = r.get("fidelity") or {}
        if "constraints" in fid:
            pct = 100.0 * fid["preserved"] / fid["constraints"] if fid["constraints"] else 100.0
            cons = f"{fid['preserved']}/{fid['constraints']} ({pct:.1f}%)"
        else:
            cons = "—"
        v = r["verdict"]
        sm = r.get("smallest_peer")
        L.append("| " + " | ".join([
            r["api"], counts, str(r["intersection"]),
            cell(g["mcp-gen"], "mean_tokens", fmt_tok), cell(g["FastMCP"], "mean_tokens", fmt_tok),
            cell(g["openapi-mcp-generator"], "mean_tokens", fmt_tok),
            fmt_ratio(r.get("ratio_tokens_fastmcp")),
            fmt_ratio(r.get("ratio_tokens_smallest")) + (f" ({SHORT[sm]})" if sm else ""),
            cell(g["mcp-gen"], "payload_bytes", fmt_bytes), cell(g["FastMCP"], "payload_bytes", fmt_bytes),
            cell(g["openapi-mcp-generator"], "payload_bytes", fmt_bytes),
            fmt_ratio(r.get("ratio_bytes_fastmcp")) if r.get("ratio_bytes_fastmcp") is None else f"{r['ratio_bytes_fastmcp']:.3f}",
            cons,
            mark(v["tokens_vs_fastmcp"]), mark(v["tokens_vs_smallest"]), mark(v["bytes_vs_fastmcp"]), mark(v["constraints_100"]),
        ]) + " |")
    L.append("")
    # How many APIs meet each target, and all the token targets at once (must-show 3).
    judged = [r["verdict"] for r in results]
    def met(keys):
        return sum(1 for v in judged if all(v.get(k) is True for k in keys))
    L.append(
        f"Targets met on {len(results)} API(s): tok ≤0.5×FastMCP {met(['tokens_vs_fastmcp'])}, "
        f"tok ≤ smallest {met(['tokens_vs_smallest'])}, bytes ≤0.1×FastMCP {met(['bytes_vs_fastmcp'])}, "
        f"100% constraints {met(['constraints_100'])}; both token targets with 100% constraints "
        f"{met(['tokens_vs_fastmcp', 'tokens_vs_smallest', 'constraints_100'])}."
    )
    L.append("")
    L.append("tok/tool: mean o200k_base tokens of name + description + compact inputSchema over the ∩ operations "
             "(those all generators that ran produced). payload B: compact JSON bytes of every tool served. "
             "OMG = openapi-mcp-generator (its payload: name, description, inputSchema, as its ListTools handler serves).")
    L.append("")
    L.append("Like-for-like (not judged): the ∩ operations whose input schemas name nearly the same properties "
             f"in every generator (pairwise Jaccard ≥ {SIMILAR} of property names, body wrappers "
             "`body`/`requestBody` ignored); property names = sum over ∩ of distinct names per input schema.")
    L.append("")
    L.append("| API | like-for-like ops | tok/tool mcp-gen | FastMCP | OMG | ÷FastMCP | ÷smallest "
             "| property names mcp-gen | FastMCP | OMG |")
    L.append("|" + "---|" * 10)
    for r in results:
        lf, g = r.get("like_for_like") or {}, r["gens"]
        vals = [lf.get(n) for n in GENS]
        m = vals[0]
        peers = [v for v in vals[1:] if v is not None]
        L.append("| " + " | ".join([
            r["api"], f"{lf.get('operations', 0)} of {r['intersection']}",
            *(fmt_tok(v) for v in vals),
            fmt_ratio(m / vals[1] if m is not None and vals[1] else None),
            fmt_ratio(m / min(peers) if m is not None and peers and min(peers) else None),
            *(fmt_bytes(g[n].get("property_names")) for n in GENS),
        ]) + " |")
    L.append("")
    for r in results:
        g = r["gens"]
        bits = []
        for n in GENS:
            e = g[n]
            if e.get("error"):
                bits.append(f"{SHORT[n]} {e['error']} [{e['seconds']}s]")
            else:
                extra = []
                if e["unmapped"]:
                    extra.append(f"{e['unmapped']} unmapped")
                if e["duplicates"]:
                    extra.append(f"{e['duplicates']} duplicate ops")
                mb = f", ~{e['peak_mb']:,} MB RSS" if e["peak_mb"] else ""
                bits.append(f"{SHORT[n]} {e['seconds']}s{mb}, {e['operations']} ops{', ' + ', '.join(extra) if extra else ''}, "
                            f"mean over all its tools {fmt_tok(e['mean_tokens_all_tools'])}")
        L.append(f"- **{r['api']}** (`{r['doc']}`): " + "; ".join(bits))
        if "stdout_bytes" in g["mcp-gen"]:
            L.append(f"  - mcp-gen `catalog` stdout: {g['mcp-gen']['stdout_bytes']:,} B as printed "
                     f"(compact: {g['mcp-gen']['payload_bytes']:,} B); left out by mcp-gen: {r.get('left_out')}")
        ck = r.get("check") or {}
        if "matched" in ck:
            ok = ck["equal"] == ck["matched"] == ck["tools_rust"] == ck["tools_python"]
            L.append(f"  - check vs `mcp-gen tokens --json`: {ck['equal']}/{ck['matched']} tools equal, "
                     f"max |diff| {ck['max_abs_diff']}, total rust {ck['total_rust']:,} vs python {ck['total_python']:,}"
                     f" — {'OK' if ok else 'MISMATCH'}")
        elif ck:
            L.append(f"  - check vs `mcp-gen tokens --json`: not run ({ck.get('error')})")
        fid = r.get("fidelity") or {}
        if "constraints" in fid:
            L.append(f"  - fidelity: {fid['preserved']}/{fid['constraints']} constraints preserved, "
                     f"{fid['not_applicable']} not applicable, {fid['losses']} losses, {fid['invalid_schemas']} invalid schemas, "
                     f"{fid['left_out']} operations left out of {fid['operations']}")
        elif fid:
            L.append(f"  - fidelity: not run ({fid.get('error')})")
        v = r["verdict"]
        if v["bytes_vs_fastmcp"] is False:
            parts = lambda n: ", ".join(f"{k} {x:,}" for k, x in g[n]["payload_parts"].items())
            L.append(f"  - payload bytes, mcp-gen: {parts('mcp-gen')}")
            L.append(f"  - payload bytes, FastMCP: {parts('FastMCP')}")
            mp, fp = g["mcp-gen"]["payload_parts"], g["FastMCP"]["payload_parts"]
            floor = mp["total"] - mp.get("outputSchema", 0)
            cap = BYTES_VS_FASTMCP * fp["total"]
            L.append(f"  - without any output schema mcp-gen's payload would be {floor:,} B, "
                     + (f"within {BYTES_VS_FASTMCP}×FastMCP = {cap:,.0f} B" if floor <= cap else
                        f"still **above** {BYTES_VS_FASTMCP}×FastMCP = {cap:,.0f} B: the bytes target cannot be met "
                        "by output schemas alone"))
    bd = [r for r in results if r.get("breakdown")]
    if bd:
        L.append("")
        L.append("### Where the tokens go: mean tokens per tool over the ∩, by part (APIs that miss a token target)")
        for r in bd:
            names = [n for n in GENS if n in r["breakdown"]]
            L.append("")
            L.append(f"**{r['api']}** ({r['intersection']} operations)")
            L.append("")
            L.append("| part | " + " | ".join(SHORT[n] for n in names) + " |")
            L.append("|---|" + "---:|" * len(names))
            for part in r["breakdown"][names[0]]:
                L.append(f"| {part} | " + " | ".join(f"{r['breakdown'][n][part]:.1f}" for n in names) + " |")
            floor = prose_free(r["breakdown"]["mcp-gen"])
            if "FastMCP" in r["breakdown"]:
                half = TOK_VS_FASTMCP * r["breakdown"]["FastMCP"]["total"]
                fits = "within" if floor <= half else "**above**"
                L.append("")
                L.append(f"Prose-free floor: mcp-gen's tokens with every description, title and example removed "
                         f"(only names, constraints and structure left) would be {floor:.1f} per tool, {fits} "
                         f"{TOK_VS_FASTMCP}×FastMCP = {half:.1f}"
                         + ("" if floor <= half else ": that target cannot be met without dropping parameters or constraints")
                         + ".")
    samples_md = [r for r in results if r.get("samples")]
    if samples_md:
        L.append("")
        L.append("### Where the tokens go (sample tools of APIs that miss a token target)")
        for r in samples_md:
            for s in r["samples"]:
                L.append("")
                L.append(f"**{r['api']}** `{s['operation']}` ({s['why']})")
                L.append("")
                names = [n for n in GENS if n in s["by"]]
                L.append("| part | " + " | ".join(f"{SHORT[n]} `{s['by'][n]['tool']}`" for n in names) + " |")
                L.append("|---|" + "---:|" * len(names))
                for part in s["by"][names[0]]["breakdown"]:
                    L.append(f"| {part} | " + " | ".join(str(s["by"][n]["breakdown"][part]) for n in names) + " |")
    return "\n".join(L)


# ---------------------------------------------------------------------------- main
def default_docs(corpus):
    index = os.path.join(corpus, "index.tsv")
    listed = set()
    if os.path.exists(index):
        with open(index) as f:
            listed = {line.split("\t", 1)[0] for line in f}
    docs = []
    for label, rel in DEFAULT_DOCS:
        p = os.path.join(corpus, rel)
        if os.path.isfile(p) and (not listed or rel in listed):
            docs.append((label, p))
        else:
            log(f"default document missing, skipped: {p}")
    return docs


def broad_docs(corpus):
    """The real APIs of CI's corpus sample (scripts/corpus-sample.txt): OpenAPI 3.x documents
    of the directory and Twilio sources (not the spec's own examples) with at least 10
    operations and at most 3 MB. A selection by rule, fixed before any result was seen."""
    sample = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "corpus-sample.txt")
    index = {}
    with open(os.path.join(corpus, "index.tsv")) as f:
        next(f, None)
        for line in f:
            path, version, ops, size = line.rstrip("\n").split("\t")
            index[path] = (version, int(ops), int(size))
    docs = []
    with open(sample) as f:
        for line in f:
            rel = line.split("#", 1)[0].strip()
            if not rel or rel not in index or not rel.startswith(("directory/", "twilio/")):
                continue
            version, ops, size = index[rel]
            if version.startswith("3") and ops >= 10 and size <= 3_000_000:
                docs.append((os.path.basename(rel), os.path.join(corpus, rel)))
    return docs


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--fastmcp-dump":
        return fastmcp_dump(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("docs", nargs="*", help="OpenAPI documents (default: a fixed set from the corpus)")
    ap.add_argument("--mcpgen", required=True)
    ap.add_argument("--omg", required=True, help="openapi-mcp-generator executable")
    ap.add_argument("--omg-extract", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "omg_tools.js"))
    ap.add_argument("--o200k", required=True, help="o200k_base.tiktoken vocabulary file")
    ap.add_argument("--corpus", default="/work/corpus")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--mem-limit", type=float, default=12288, help="MB of RSS at which a tool is killed")
    ap.add_argument("--samples", type=int, default=3, help="sample tools broken down per API that misses a token target")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--keep-work", action="store_true", help="keep each document's work directory")
    ap.add_argument("--list-docs", action="store_true")
    ap.add_argument("--broad", action="store_true",
                    help="the real APIs of CI's corpus sample instead of the default set (see broad_docs)")
    args = ap.parse_args()

    if args.docs:
        docs = [(os.path.basename(d), os.path.abspath(d)) for d in args.docs]
    elif args.broad:
        docs = broad_docs(args.corpus)
    else:
        docs = default_docs(args.corpus)
    if args.list_docs:
        for label, d in docs:
            print(f"{label}\t{d}")
        return 0
    if not docs:
        log("no documents")
        return 2

    c = Counter(o200k(args.o200k))
    assert c.n("hello world") == 2, "o200k_base sanity check failed"
    results = []
    for label, doc in docs:
        results.append(evaluate(args, c, label, doc))
    md = report(results, args.timeout)
    print(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"encoding": "o200k_base", "mcpgen": args.mcpgen, "timeout": args.timeout,
                       "targets": {"tokens_vs_fastmcp": TOK_VS_FASTMCP, "tokens_vs_smallest": 1.0,
                                   "bytes_vs_fastmcp": BYTES_VS_FASTMCP, "constraints": 1.0},
                       "results": results}, f, indent=1, ensure_ascii=False)
    verdicts = [v for r in results for v in r["verdict"].values()]
    if any(v is False for v in verdicts):
        log("result: at least one target missed")
        return 1
    if any(v is None for v in verdicts):
        log("result: no target missed, but some could not be judged (a generator failed or timed out)")
        return 1
    log("result: every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
