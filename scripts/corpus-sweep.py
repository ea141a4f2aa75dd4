#!/usr/bin/env python3
"""Corpus sweep: compile every API description of the corpus and check what came out.

For each document it runs, in a child process with a wall-clock limit and under
/usr/bin/time for peak memory:

    mcp-gen catalog  --spec DOC      (time and peak memory of a compile; zero panics, zero hangs)
    mcp-gen fidelity --spec DOC --json
        (every constraint of the source reaches the emitted inputSchemas; every emitted schema
         is valid JSON Schema 2020-12)

and writes one TSV row per document plus a summary. Exit status 1 when a document panics, hangs,
loses a constraint or emits an invalid schema, or when fewer than --min-ok (default 99%) of the
documents compile without errors.

    scripts/corpus-sweep.py                                # the whole corpus
    scripts/corpus-sweep.py --sample scripts/corpus-sample.txt   # what CI runs
    scripts/corpus-sweep.py --only directory/stripe.com    # a subset, by path prefix

The corpus comes from ../shared/corpus/get-corpus.sh (see --corpus; default $MCPGEN_CORPUS, then
~/.cache/mcp-gen-corpus).
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_timed(cmd, timeout):
    """Runs cmd; returns (rc, seconds, peak_kb, stdout, stderr). rc is 'timeout' on a hang."""
    timed = ["/usr/bin/time", "-f", "@@TIME %e %M"] + cmd
    start = time.monotonic()
    try:
        p = subprocess.run(timed, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, 0, b"", b""
    seconds, peak = time.monotonic() - start, 0
    err_lines = p.stderr.decode("utf-8", "replace").splitlines()
    for line in reversed(err_lines):
        if line.startswith("@@TIME "):
            _, s, kb = line.split()
            seconds, peak = float(s), int(kb)
            break
    # /usr/bin/time reports a child killed by a signal as "Command terminated by signal N".
    rc = p.returncode
    if any(l.startswith("Command terminated by signal") for l in err_lines):
        rc = "signal"
    stderr = "\n".join(l for l in err_lines if not l.startswith("@@TIME ") and not l.startswith("Command "))
    return rc, seconds, peak, p.stdout, stderr


def first_error(stderr):
    for line in stderr.splitlines():
        if line.startswith("error"):
            return line.strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[0].strip() if lines else ""


def sweep_one(binary, corpus, rel, timeout, fidelity):
    doc = corpus / rel
    row = {"path": rel, "bytes": doc.stat().st_size}
    rc, secs, peak, _, stderr = run_timed([binary, "catalog", "--spec", str(doc)], timeout)
    row.update(seconds=round(secs, 3), peak_mb=round(peak / 1024, 1))
    if rc == "timeout":
        row.update(result="hang", reason=f"no answer within {timeout} s")
        return row
    if rc == "signal" or (isinstance(rc, int) and rc not in (0, 2)):
        row.update(result="crash", reason=first_error(stderr) or f"exit {rc}")
        return row
    if rc == 2:
        has_diag = "error[" in stderr
        row.update(result="diagnostic" if has_diag else "crash", reason=first_error(stderr))
        return row
    row["result"] = "ok"
    if not fidelity:
        return row
    frc, fsecs, _, out, ferr = run_timed([binary, "fidelity", "--spec", str(doc), "--json"], timeout * 3)
    row["fidelity_seconds"] = round(fsecs, 3)
    if frc == "timeout" or frc not in (0, 1):
        row.update(result="fidelity-failed", reason=first_error(ferr) or str(frc))
        return row
    try:
        f = json.loads(out)
    except json.JSONDecodeError:
        row.update(result="fidelity-failed", reason="unreadable fidelity output")
        return row
    row.update(
        operations=f["operations"],
        left_out=len(f["left_out"]),
        left_out_reasons=sorted({r["reason"].split(":")[0] for r in f["left_out"]}),
        constraints=f["constraints"],
        preserved=f["preserved"],
        not_applicable=f["not_applicable"],
        schemas=f["schemas"],
        invalid_schemas=len(f["invalid_schemas"]),
    )
    if f["losses"] or f["invalid_schemas"]:
        row["result"] = "lossy"
        first = (f["losses"] or [{"keyword": "meta", "at": x["tool"], "detail": x["error"]} for x in f["invalid_schemas"]])[0]
        row["reason"] = f"{len(f['losses'])} lost, {len(f['invalid_schemas'])} invalid; first: {first['keyword']} at {first['at']}: {first['detail']}"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_corpus = os.environ.get("MCPGEN_CORPUS") or str(Path.home() / ".cache" / "mcp-gen-corpus")
    ap.add_argument("--corpus", default=default_corpus)
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "mcp-gen"))
    ap.add_argument("--sample", help="file listing corpus-relative paths, one per line (# comments)")
    ap.add_argument("--only", action="append", default=[], help="path prefix to include (repeatable)")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a compile counts as a hang")
    ap.add_argument("--no-fidelity", action="store_true", help="only compile, skip the constraint checker")
    ap.add_argument("--out", default=str(REPO / "target" / "corpus-sweep"))
    ap.add_argument("--min-ok", type=float, default=0.99)
    args = ap.parse_args()

    corpus = Path(args.corpus)
    index = corpus / "index.tsv"
    if not index.is_file():
        sys.exit(f"error: no corpus at {corpus} (run ../shared/corpus/get-corpus.sh {corpus})")
    if args.sample:
        docs = [l.split("#")[0].strip() for l in Path(args.sample).read_text().splitlines()]
        docs = [d for d in docs if d]
    else:
        docs = [l.split("\t")[0] for l in index.read_text().splitlines()[1:] if l.strip()]
    if args.only:
        docs = [d for d in docs if any(d.startswith(p) for p in args.only)]
    missing = [d for d in docs if not (corpus / d).is_file()]
    if missing:
        sys.exit(f"error: {len(missing)} document(s) not in the corpus, e.g. {missing[0]}")
    binary = args.bin
    if not Path(binary).is_file():
        sys.exit(f"error: {binary} not found (cargo build --release)")

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Largest first, so the slow ones overlap with the many small ones.
    docs.sort(key=lambda d: -(corpus / d).stat().st_size)
    rows = []
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(sweep_one, binary, corpus, d, args.timeout, not args.no_fidelity): d for d in docs}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            row = fut.result()
            rows.append(row)
            if row["result"] != "ok":
                print(f"[{i}/{len(docs)}] {row['result']}: {row['path']}: {row.get('reason', '')}", flush=True)
    rows.sort(key=lambda r: r["path"])
    wall = time.monotonic() - started

    cols = ["path", "result", "bytes", "seconds", "peak_mb", "operations", "left_out", "constraints",
            "preserved", "not_applicable", "schemas", "invalid_schemas", "reason"]
    with open(out_dir / "results.tsv", "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in cols) + "\n")

    by = {}
    for r in rows:
        by.setdefault(r["result"], []).append(r)
    ok = by.get("ok", []) + by.get("lossy", [])
    total_constraints = sum(r.get("constraints", 0) for r in rows)
    total_preserved = sum(r.get("preserved", 0) for r in rows)
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:5]
    heaviest = sorted(rows, key=lambda r: -r["peak_mb"])[:3]
    left_reasons = {}
    for r in rows:
        for reason in r.get("left_out_reasons", []):
            left_reasons[reason] = left_reasons.get(reason, 0) + 1
    summary = {
        "documents": len(rows),
        "compiled": len(ok),
        "compiled_share": round(len(ok) / max(1, len(rows)), 4),
        "results": {k: len(v) for k, v in sorted(by.items())},
        "not_compiled": [{"path": r["path"], "result": r["result"], "reason": r.get("reason", "")}
                         for r in rows if r["result"] not in ("ok", "lossy")],
        "operations": sum(r.get("operations", 0) for r in rows),
        "operations_left_out": sum(r.get("left_out", 0) for r in rows),
        "documents_with_left_out_operations_by_reason": left_reasons,
        "constraints": total_constraints,
        "constraints_preserved": total_preserved,
        "schemas_checked": sum(r.get("schemas", 0) for r in rows),
        "invalid_schemas": sum(r.get("invalid_schemas", 0) for r in rows),
        "lossy": [{"path": r["path"], "reason": r["reason"]} for r in by.get("lossy", [])],
        "slowest": [{"path": r["path"], "seconds": r["seconds"], "peak_mb": r["peak_mb"]} for r in slowest],
        "peak_memory": [{"path": r["path"], "peak_mb": r["peak_mb"], "seconds": r["seconds"]} for r in heaviest],
        "wall_seconds": round(wall, 1),
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: summary[k] for k in ("documents", "compiled", "compiled_share", "results", "operations",
                                               "operations_left_out", "constraints", "constraints_preserved",
                                               "schemas_checked", "invalid_schemas", "slowest", "peak_memory",
                                               "wall_seconds")}, indent=2))
    for r in summary["not_compiled"]:
        print(f"not compiled: {r['path']}: {r['result']}: {r['reason']}")
    print(f"rows: {out_dir / 'results.tsv'}; summary: {out_dir / 'summary.json'}")

    failed = bool(by.get("crash") or by.get("hang") or by.get("lossy") or by.get("fidelity-failed"))
    if len(ok) < args.min_ok * len(rows):
        print(f"FAIL: only {len(ok)}/{len(rows)} compiled (need {args.min_ok:.0%})")
        failed = True
    if failed:
        print("FAIL: see the lines above")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
