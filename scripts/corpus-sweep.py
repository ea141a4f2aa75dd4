#!/usr/bin/env python3
"""Corpus sweep: compile every API description of the corpus and check what came out.

For each document it runs, in a child process with a wall-clock limit and under
/usr/bin/time for peak memory:

    mcp-gen catalog  --spec DOC      (time and peak memory of a compile; zero panics, zero hangs)
    mcp-gen fidelity --spec DOC --json
        (every constraint of the source reaches the emitted inputSchemas; every emitted schema
         is valid JSON Schema 2020-12)

and checks the catalog the compile printed against the tool contract with its own patterns
(scripts/catalog_contract.py, independent of mcp-gen's code): tool names valid and unique (T1),
and no markdown, HTML or prompt-injection pattern (D3) in any emitted title or description,
including those inside inputSchema and outputSchema.

It writes one TSV row per document plus a summary, and every contract finding to
contract.jsonl (one JSON object per finding: path, tool, pointer, kind, match, snippet). Exit
status 1 when a document panics, hangs, loses a constraint, emits an invalid schema, has an
invalid or duplicate tool name or a description finding, or when fewer than --min-ok (default
99%) of the documents compile without errors.

    scripts/corpus-sweep.py                                # the whole corpus
    scripts/corpus-sweep.py --sample scripts/corpus-sample.txt   # what CI runs
    scripts/corpus-sweep.py --only directory/stripe.com    # a subset, by path prefix
    scripts/corpus-sweep.py --no-fidelity --examples 5     # compile + contract only, 5 examples a kind
    scripts/corpus-sweep.py --contract-report-only         # report contract findings, fail only on the rest

The corpus comes from ../shared/corpus/get-corpus.sh (see --corpus; default $MCPGEN_CORPUS, then
~/.cache/mcp-gen-corpus).
"""

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import catalog_contract  # noqa: E402  (next to this script)

REPO = Path(__file__).resolve().parent.parent


def run_timed(cmd, timeout, stdout_path=None):
    """Runs cmd; returns (rc, seconds, peak_kb, stdout, stderr). rc is 'timeout' on a hang.
    With stdout_path, standard output goes to that file (stdout is then b""): a catalog can be
    hundreds of megabytes, and a pipe drained by a busy Python thread would slow the child."""
    timed = ["/usr/bin/time", "-f", "@@TIME %e %M"] + cmd
    start = time.monotonic()
    try:
        if stdout_path is None:
            p = subprocess.run(timed, capture_output=True, timeout=timeout)
        else:
            with open(stdout_path, "wb") as out:
                p = subprocess.run(timed, stdout=out, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, 0, b"", ""
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


def check_catalog_file(path):
    """Runs in a worker process (parsing and matching a large catalog holds the GIL for a minute)."""
    try:
        with open(path, encoding="utf-8") as f:
            return catalog_contract.check_catalog(json.load(f))
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return {"error": str(e)[:200]}


def by_location(findings):
    """{kind: {tool|inputSchema|outputSchema: n}}"""
    out = {}
    for f in findings:
        at = out.setdefault(f["kind"], {})
        loc = catalog_contract.location(f["pointer"])
        at[loc] = at.get(loc, 0) + 1
    return out


def contract_one(row, report):
    """Adds the contract report of the printed catalog to the row (findings kept whole in
    row["contract_findings"] for contract.jsonl)."""
    if "error" in report:
        row.update(contract="unreadable", contract_error=report["error"])
        return
    findings = report["findings"]
    failing = [f for f in findings if not catalog_contract.is_info(f["kind"])]
    row.update(
        tools=report["tools"],
        texts=report["texts"],
        invalid_names=len(report["invalid_names"]),
        duplicate_names=len(report["duplicate_names"]),
        non_snake_names=len(report["non_snake_names"]),
        dotted_names=len(report["dotted_names"]),
        findings=len(failing),
        info_findings=len(findings) - len(failing),
        findings_by_kind=catalog_contract.by_kind(findings),
        findings_by_location=by_location(findings),
        texts_with_findings=report["distinct_texts_with_findings"],
        name_examples={k: report[k][:5] for k in ("invalid_names", "duplicate_names", "non_snake_names",
                                                  "dotted_names") if report[k]},
        contract_findings=findings,
    )
    row["contract"] = "fail" if (report["invalid_names"] or report["duplicate_names"] or failing) else "ok"


def sweep_one(binary, corpus, rel, timeout, fidelity, contract_pool=None, scratch=None):
    """One document; with contract_pool, the printed catalog is checked in that process pool
    (through a file in scratch)."""
    if contract_pool is None:
        return sweep_doc(binary, corpus, rel, timeout, fidelity, None, None)
    catalog_path = Path(scratch) / (rel.replace("/", "__") + ".catalog.json")
    try:
        return sweep_doc(binary, corpus, rel, timeout, fidelity, contract_pool, catalog_path)
    finally:
        catalog_path.unlink(missing_ok=True)


def sweep_doc(binary, corpus, rel, timeout, fidelity, contract_pool, catalog_path):
    doc = corpus / rel
    row = {"path": rel, "bytes": doc.stat().st_size}
    rc, secs, peak, _, stderr = run_timed([binary, "catalog", "--spec", str(doc)], timeout, catalog_path)
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
    if contract_pool is not None:
        contract_one(row, contract_pool.submit(check_catalog_file, str(catalog_path)).result())
        catalog_path.unlink(missing_ok=True)
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


def contract_line(row):
    if row.get("contract") == "unreadable":
        return f"unreadable catalog: {row.get('contract_error', '')}"
    parts = []
    if row["invalid_names"]:
        parts.append(f"{row['invalid_names']} invalid name(s)")
    if row["duplicate_names"]:
        parts.append(f"{row['duplicate_names']} duplicate name(s)")
    if row["findings"]:
        parts.append(", ".join(f"{k}={n}" for k, n in row["findings_by_kind"].items()
                               if not catalog_contract.is_info(k)))
    return "; ".join(parts)


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
    ap.add_argument("--no-contract", action="store_true", help="skip the tool-name and description contract check")
    ap.add_argument("--contract-report-only", action="store_true",
                    help="run the contract check and report it, but do not fail on it")
    ap.add_argument("--examples", type=int, default=3, metavar="N",
                    help="contract findings shown per kind and document in results.tsv and the summary "
                         "(every finding is in contract.jsonl)")
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
    contract_log = open(out_dir / "contract.jsonl", "w", encoding="utf-8")
    scratch = out_dir / "catalogs.tmp"
    scratch.mkdir(exist_ok=True)
    for stale in scratch.glob("*.catalog.json"):  # left by a run that was killed
        stale.unlink()
    contract_pool = None if args.no_contract else concurrent.futures.ProcessPoolExecutor(
        max_workers=args.jobs, mp_context=multiprocessing.get_context("spawn"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(sweep_one, binary, corpus, d, args.timeout, not args.no_fidelity,
                               contract_pool, scratch): d for d in docs}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            row = fut.result()
            findings = row.pop("contract_findings", [])
            for f in findings:
                contract_log.write(json.dumps({"path": row["path"], **f}, ensure_ascii=False) + "\n")
            row["contract_examples"] = catalog_contract.examples(findings, args.examples)
            del findings
            rows.append(row)
            if row["result"] != "ok":
                print(f"[{i}/{len(docs)}] {row['result']}: {row['path']}: {row.get('reason', '')}", flush=True)
            elif row.get("contract") in ("fail", "unreadable"):
                print(f"[{i}/{len(docs)}] contract: {row['path']}: {contract_line(row)}", flush=True)
    contract_log.close()
    if contract_pool is not None:
        contract_pool.shutdown()
    try:
        scratch.rmdir()
    except OSError:
        pass
    rows.sort(key=lambda r: r["path"])
    wall = time.monotonic() - started

    cols = ["path", "result", "bytes", "seconds", "peak_mb", "operations", "left_out", "constraints",
            "preserved", "not_applicable", "schemas", "invalid_schemas", "reason",
            "contract", "tools", "texts", "invalid_names", "duplicate_names", "non_snake_names", "dotted_names",
            "findings", "info_findings", "findings_by_kind", "contract_examples"]

    def cell(r, c):
        v = r.get(c, "")
        if c == "findings_by_kind":
            v = ",".join(f"{k}={n}" for k, n in v.items()) if v else ""
        elif c == "contract_examples":
            v = " | ".join(f"{e['kind']} {e['tool']} {e['pointer']}: {e['snippet']}" for e in v) if v else ""
            if r.get("name_examples"):
                v = "; ".join(f"{k}: {' '.join(n)}" for k, n in r["name_examples"].items()) + (" | " + v if v else "")
        return str(v).replace("\t", " ").replace("\n", " ")

    with open(out_dir / "results.tsv", "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(cell(r, c) for c in cols) + "\n")

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
    checked = [r for r in rows if r.get("contract") in ("ok", "fail")]
    kinds = {}
    for r in checked:
        for k, n in r["findings_by_kind"].items():
            kinds[k] = kinds.get(k, 0) + n
    kind_location = {}
    for r in checked:
        for k, locs in r["findings_by_location"].items():
            for loc, n in locs.items():
                kind_location.setdefault(k, {}).setdefault(loc, 0)
                kind_location[k][loc] += n
    docs_by_kind = {}
    for r in checked:
        for k in r["findings_by_kind"]:
            docs_by_kind[k] = docs_by_kind.get(k, 0) + 1
    groups = {}
    for k, n in kinds.items():
        groups[k.split(".")[0]] = groups.get(k.split(".")[0], 0) + n
    summary["contract"] = {
        "documents_checked": len(checked),
        "documents_unreadable": [{"path": r["path"], "error": r.get("contract_error", "")}
                                 for r in rows if r.get("contract") == "unreadable"],
        "documents_failing": sum(1 for r in checked if r["contract"] == "fail"),
        "tools": sum(r["tools"] for r in checked),
        "texts_checked": sum(r["texts"] for r in checked),
        "invalid_names": sum(r["invalid_names"] for r in checked),
        "documents_with_invalid_names": sum(1 for r in checked if r["invalid_names"]),
        "duplicate_names": sum(r["duplicate_names"] for r in checked),
        "documents_with_duplicate_names": sum(1 for r in checked if r["duplicate_names"]),
        "non_snake_names_info": sum(r["non_snake_names"] for r in checked),
        "dotted_names_info": sum(r["dotted_names"] for r in checked),
        "findings": sum(r["findings"] for r in checked),
        "documents_with_findings": sum(1 for r in checked if r["findings"]),
        "info_findings": sum(r["info_findings"] for r in checked),
        "findings_by_group": dict(sorted(groups.items())),
        "findings_by_kind": dict(sorted(kinds.items())),
        "documents_by_kind": dict(sorted(docs_by_kind.items())),
        # where: "tool" is the tool's title, description and annotations.title; the others are
        # title/description keywords inside the schemas.
        "findings_by_kind_and_location": dict(sorted(kind_location.items())),
        "failing": [{"path": r["path"], "tools": r["tools"], "invalid_names": r["invalid_names"],
                     "duplicate_names": r["duplicate_names"], "findings_by_kind": r["findings_by_kind"],
                     "names": r.get("name_examples", {}), "examples": r["contract_examples"]}
                    for r in checked if r["contract"] == "fail"],
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: summary[k] for k in ("documents", "compiled", "compiled_share", "results", "operations",
                                               "operations_left_out", "constraints", "constraints_preserved",
                                               "schemas_checked", "invalid_schemas", "slowest", "peak_memory",
                                               "wall_seconds")}, indent=2))
    for r in summary["not_compiled"]:
        print(f"not compiled: {r['path']}: {r['result']}: {r['reason']}")
    c = summary["contract"]
    if not args.no_contract:
        print(json.dumps({"contract": {k: v for k, v in c.items() if k != "failing"}}, indent=2))
    print(f"rows: {out_dir / 'results.tsv'}; summary: {out_dir / 'summary.json'}"
          + ("" if args.no_contract else f"; contract findings: {out_dir / 'contract.jsonl'}"))

    failed = bool(by.get("crash") or by.get("hang") or by.get("lossy") or by.get("fidelity-failed"))
    if c["documents_failing"] or c["documents_unreadable"]:
        verdict = "REPORT" if args.contract_report_only else "FAIL"
        print(f"{verdict}: contract: {c['documents_failing']} document(s) with an invalid or duplicate tool name "
              f"or a description finding ({c['invalid_names']} invalid, {c['duplicate_names']} duplicate names, "
              f"{c['findings']} findings), {len(c['documents_unreadable'])} unreadable catalog(s)")
        failed = failed or not args.contract_report_only
    if len(ok) < args.min_ok * len(rows):
        print(f"FAIL: only {len(ok)}/{len(rows)} compiled (need {args.min_ok:.0%})")
        failed = True
    if failed:
        print("FAIL: see the lines above")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
