#!/usr/bin/env python3
"""Tool retrieval on labelled requests: recall@1, @5 and @10 of `mcp-gen search` (what the
server's search_tools ranks), per API and per kind of request, against two plain BM25
baselines computed in the same run:

- raw spec: each operation's route, operationId, tags, summary and whole description, as the
  document has them (no stemming, no stop words: plain BM25);
- catalog: what the model is shown of each tool (name, one-line description, argument names
  and descriptions, from `mcp-gen catalog`), same plain BM25.

A request is found at k when any operation it expects is among the top k tools' operations.
Requests are in bench/retrieval/requests/<api>.jsonl: {"id", "request", "expect": [operationId],
"kind": direct|goal|indirect}. Every fourth request (id number divisible by 4) is the "dev" part,
the one looked at while tuning the search; the rest is held out and reported on its own.

    python3 bench/retrieval/run.py [--corpus DIR] [--mcp-gen BIN] [--json OUT]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
APIS = [
    ("github", "directory/github.com/api.github.com.json"),
    ("stripe", "directory/stripe.com.json"),
    ("slack", "directory/slack.com.json"),
    ("box", "directory/box.com.json"),
    ("asana", "directory/asana.com.json"),
]
KS = (1, 5, 10)
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def tokens(text):
    return re.findall(r"[a-z0-9]+", text.lower())


class Bm25:
    """Okapi BM25 (k1 1.2, b 0.75) over (key, text) documents."""

    def __init__(self, docs, k1=1.2, b=0.75):
        self.keys = [k for k, _ in docs]
        self.tf = [Counter(tokens(t)) for _, t in docs]
        self.len = [sum(c.values()) for c in self.tf]
        self.avgdl = sum(self.len) / max(1, len(self.len))
        df = Counter(w for c in self.tf for w in c)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query, top):
        q = tokens(query)
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avgdl)
            for w in q:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, self.keys[i]))
        scores.sort()
        return [k for _, k in scores[:top]]


def raw_docs(spec):
    docs = []
    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if method not in METHODS or not isinstance(op, dict) or not op.get("operationId"):
                continue
            text = " ".join([method, path, op["operationId"], " ".join(op.get("tags", [])),
                             op.get("summary") or "", op.get("description") or ""])
            docs.append(((op["operationId"],), text))
    return docs


def words(name):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ")


def catalog_docs(mcpgen, spec_path, plan):
    tools = json.loads(run([mcpgen, "catalog", "--spec", spec_path]))["tools"]
    ops = plan_operations(plan)
    docs = []
    for t in tools:
        props = t.get("inputSchema", {}).get("properties", {})
        args = " ".join(words(k) + " " + (v.get("description") or "") for k, v in props.items())
        docs.append((tuple(ops.get(t["name"], ())), " ".join([words(t["name"]), t.get("description") or "", args])))
    return docs


def plan_operations(plan):
    """tool name -> its operationIds, from `mcp-gen plan` (a merged tool's routes each have one)."""
    out = {}
    for t in json.loads(plan)["tools"]:
        routes = t.get("routes") or [t]
        out[t["name"]] = [r["operation"].get("operationId") for r in routes if r["operation"].get("operationId")]
    return out


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    return p.stdout


def found_at(ranked_ops, expect):
    """The rank (1-based) of the first tool serving an expected operation, or None."""
    for i, ops in enumerate(ranked_ops):
        if any(o in expect for o in ops):
            return i + 1
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("MCPGEN_CORPUS", os.path.expanduser("~/.cache/mcp-gen-corpus")))
    ap.add_argument("--mcp-gen", default=os.environ.get("MCPGEN", os.path.join(ROOT, "target/release/mcp-gen")))
    ap.add_argument("--json", help="also write every request's ranks here")
    ap.add_argument("--misses", action="store_true", help="print the dev requests not found in the top 5")
    ap.add_argument("--min-recall5", type=float,
                    help="exit 1 when mcp-gen search's recall@5 over all requests is below this, or not above "
                         "both baselines' (a regression check for CI)")
    args = ap.parse_args()

    rows = []  # (api, kind, split, {system: rank})
    for api, rel in APIS:
        spec_path = os.path.join(args.corpus, rel)
        reqs = [json.loads(l) for l in open(os.path.join(HERE, "requests", f"{api}.jsonl")) if l.strip()]
        spec = json.load(open(spec_path))
        known = {k[0] for k, _ in raw_docs(spec)}
        for r in reqs:
            missing = [o for o in r["expect"] if o not in known]
            if missing:
                sys.exit(f"{r['id']}: {missing} not in {rel}")
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(r["request"].replace("\n", " ") for r in reqs) + "\n")
            qfile = f.name
        try:
            out = run([args.mcp_gen, "search", "--spec", spec_path, "--top", "10", "--queries", qfile])
        finally:
            os.unlink(qfile)
        ours = [[tuple(h["operations"]) for h in json.loads(l)["results"]] for l in out.splitlines()]
        plan = run([args.mcp_gen, "plan", "--spec", spec_path])
        baselines = {"raw spec": Bm25(raw_docs(spec)), "catalog": Bm25(catalog_docs(args.mcp_gen, spec_path, plan))}
        for r, ranked in zip(reqs, ours):
            expect = set(r["expect"])
            ranks = {"mcp-gen search": found_at(ranked, expect)}
            for name, bm in baselines.items():
                ranks[f"BM25 {name}"] = found_at(bm.rank(r["request"], 10), expect)
            split = "dev" if int(r["id"].rsplit("-", 1)[1]) % 4 == 0 else "held-out"
            rows.append({"api": api, "id": r["id"], "kind": r["kind"], "split": split, "ranks": ranks,
                         "request": r["request"], "expect": r["expect"], "top": ranked[:5]})

    systems = ["mcp-gen search", "BM25 raw spec", "BM25 catalog"]

    def recall(subset, system, k):
        return sum(1 for r in subset if r["ranks"][system] and r["ranks"][system] <= k) / max(1, len(subset))

    def table(title, groups):
        print(f"\n{title}")
        head = f"{'':<22}{'n':>5}" + "".join(f"  {s:>22}" for s in systems)
        print(head)
        print(f"{'':<27}" + "".join(f"  {'@1    @5    @10':>22}" for _ in systems))
        for label, subset in groups:
            cells = "".join(
                "  " + " ".join(f"{recall(subset, s, k):5.2f}" for k in KS).rjust(22) for s in systems)
            print(f"{label:<22}{len(subset):>5}{cells}")

    by_api = [(a, [r for r in rows if r["api"] == a]) for a, _ in APIS]
    table("recall by API (all requests)", by_api + [("all", rows)])
    table("recall by kind", [(k, [r for r in rows if r["kind"] == k]) for k in ("direct", "goal", "indirect")])
    table("recall by split", [(s, [r for r in rows if r["split"] == s]) for s in ("dev", "held-out")])
    goal = [r for r in rows if r["kind"] == "goal"]
    print(f"\ngoal recall@5: mcp-gen search {recall(goal, systems[0], 5):.3f}, "
          f"BM25 raw spec {recall(goal, systems[1], 5):.3f}, BM25 catalog {recall(goal, systems[2], 5):.3f} "
          f"({len(goal)} goal requests)")
    if args.misses:
        for r in rows:
            if r["split"] == "dev" and not (r["ranks"][systems[0]] and r["ranks"][systems[0]] <= 5):
                print(f"miss {r['id']} [{r['kind']}] {r['request']!r} expect {r['expect']} got {r['top']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.min_recall5 is not None:
        ours = recall(rows, systems[0], 5)
        best_baseline = max(recall(rows, s, 5) for s in systems[1:])
        if ours < args.min_recall5 or ours <= best_baseline:
            sys.exit(f"recall@5 {ours:.3f}: below the floor {args.min_recall5} or not above the baselines' {best_baseline:.3f}")


if __name__ == "__main__":
    main()
