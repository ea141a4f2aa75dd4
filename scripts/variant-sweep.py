#!/usr/bin/env python3
"""Provider variants across the corpus: for every document, `mcp-gen catalog --variant V` for
openai-strict, gemini and inline, each checked by scripts/variant_check.py (written from the
providers' documentation), plus the loss report's size.

  scripts/variant-sweep.py --corpus DIR [--sample FILE] [--bin target/release/mcp-gen] [--jobs N]
                           [--max-bytes N] [--min-docs 50]

Exit 1 when any tool of any variant breaks its provider's rules, when a document that compiles
fails to produce a variant, or when fewer than --min-docs documents were checked.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import variant_check  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VARIANTS = ["openai-strict", "gemini", "inline"]


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, b"", "timeout"


def sweep_doc(binary, corpus, rel, timeout):
    doc = str(corpus / rel)
    row = {"path": rel, "tools": 0, "violations": [], "losses": {}, "result": "ok"}
    for variant in VARIANTS:
        rc, out, err = run([binary, "catalog", "--spec", doc, "--variant", variant], timeout)
        if rc == 2 and variant == VARIANTS[0]:
            row["result"] = "invalid"  # the document does not compile: the fidelity sweep covers it
            row["reason"] = err.strip().splitlines()[0] if err.strip() else ""
            return row
        if rc != 0:
            row["result"] = "fail"
            row["reason"] = f"{variant}: exit {rc}: {err.strip()[:300]}"
            return row
        catalog = json.loads(out)
        row["tools"] = len(catalog.get("tools", []))
        row["violations"] += [f"{variant}: {p}" for p in variant_check.check_catalog(catalog, variant)]
        rc, out, err = run([binary, "catalog", "--spec", doc, "--variant", variant, "--losses"], timeout)
        if rc != 0:
            row["result"] = "fail"
            row["reason"] = f"{variant} --losses: exit {rc}: {err.strip()[:300]}"
            return row
        row["losses"][variant] = len(json.loads(out).get("losses", []))
    if row["violations"]:
        row["result"] = "violations"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.environ.get("MCPGEN_CORPUS") or str(Path.home() / ".cache" / "mcp-gen-corpus"))
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "mcp-gen"))
    ap.add_argument("--sample", help="file listing corpus-relative paths, one per line (# comments)")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 2))
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--max-bytes", type=int, default=0, help="skip documents larger than this (0: none)")
    ap.add_argument("--min-docs", type=int, default=50)
    args = ap.parse_args()

    corpus = Path(args.corpus)
    if args.sample:
        docs = [l.split("#")[0].strip() for l in Path(args.sample).read_text().splitlines()]
    else:
        docs = [l.split("\t")[0] for l in (corpus / "index.tsv").read_text().splitlines()[1:]]
    docs = [d for d in docs if d and (corpus / d).is_file()]
    if args.max_bytes:
        docs = [d for d in docs if (corpus / d).stat().st_size <= args.max_bytes]
    docs.sort(key=lambda d: -(corpus / d).stat().st_size)
    started = time.monotonic()
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for fut in concurrent.futures.as_completed([pool.submit(sweep_doc, args.bin, corpus, d, args.timeout) for d in docs]):
            row = fut.result()
            rows.append(row)
            if row["result"] in ("fail", "violations"):
                shown = row.get("reason") or "; ".join(row["violations"][:3])
                print(f"{row['result']}: {row['path']}: {shown}", flush=True)
    checked = [r for r in rows if r["result"] in ("ok", "violations")]
    tools = sum(r["tools"] for r in checked)
    violations = sum(len(r["violations"]) for r in checked)
    failed = [r for r in rows if r["result"] == "fail"]
    losses = {v: sum(r["losses"].get(v, 0) for r in checked) for v in VARIANTS}
    print(f"variant sweep: {len(checked)} document(s) checked ({len(rows) - len(checked) - len(failed)} do not compile, "
          f"{len(failed)} failed), {tools} tool(s) x {len(VARIANTS)} variants, {violations} violation(s); "
          f"losses: " + ", ".join(f"{v} {n}" for v, n in losses.items()) + f"; {time.monotonic() - started:.0f} s")
    ok = not failed and violations == 0 and len(checked) >= args.min_docs
    print(f"{len(checked) - sum(1 for r in checked if r['violations'])} passed, "
          f"{sum(1 for r in checked if r['violations']) + len(failed)} failed")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
