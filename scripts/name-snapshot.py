#!/usr/bin/env python3
"""The name snapshot (CONTRACT T1): every tool name the corpus sample gets, with the rule that
gave it, checked in under tests/names/ and reviewed like generated/. A change of the naming rules
shows here as a diff, and this check fails until the new names are blessed.

    scripts/name-snapshot.py --corpus DIR                 # compare; exit 1 with the diffs
    scripts/name-snapshot.py --corpus DIR --bless         # write tests/names/ from this compiler

One file per document of scripts/corpus-sample.txt: `mcp-gen plan --names` (name, rule and
operations, tab-separated, in name order).
"""

import argparse
import concurrent.futures
import difflib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.environ.get("MCPGEN_CORPUS", str(Path.home() / ".cache/mcp-gen-corpus")))
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "mcp-gen"))
    ap.add_argument("--sample", default=str(REPO / "scripts" / "corpus-sample.txt"))
    ap.add_argument("--dir", default=str(REPO / "tests" / "names"))
    ap.add_argument("--bless", action="store_true")
    ap.add_argument("--max-lines", type=int, default=40, help="diff lines shown per document")
    args = ap.parse_args()
    corpus, snap = Path(args.corpus), Path(args.dir)
    docs = [l.split("#")[0].strip() for l in Path(args.sample).read_text().splitlines()]
    docs = [d for d in docs if d]

    def names(rel):
        p = subprocess.run([args.bin, "plan", "--names", "--spec", str(corpus / rel)], capture_output=True, timeout=600)
        # A document that does not compile has no names; its diagnostics are the sweep's business.
        return rel, p.stdout.decode() if p.returncode == 0 else ""

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        got = dict(pool.map(names, docs))
    snap.mkdir(parents=True, exist_ok=True)
    files = {rel: snap / (rel.replace("/", "__") + ".tsv") for rel in docs}
    if args.bless:
        for rel, text in got.items():
            files[rel].write_text(text)
        for stale in set(snap.glob("*.tsv")) - set(files.values()):
            stale.unlink()
        print(f"name snapshot: {sum(t.count(chr(10)) for t in got.values())} names of {len(docs)} documents written to {snap}")
        return 0
    changed = 0
    for rel in docs:
        want = files[rel].read_text() if files[rel].is_file() else ""
        if want == got[rel]:
            continue
        changed += 1
        diff = list(difflib.unified_diff(want.splitlines(), got[rel].splitlines(),
                                         f"{files[rel].relative_to(REPO)} (checked in)", f"{rel} (this compiler)", lineterm="", n=0))
        print("\n".join(diff[: args.max_lines]))
        if len(diff) > args.max_lines:
            print(f"… {len(diff) - args.max_lines} more diff lines")
    stale = set(snap.glob("*.tsv")) - set(files.values())
    for s in sorted(stale):
        print(f"{s.relative_to(REPO)}: not a document of the sample (remove it, or --bless)")
    if changed or stale:
        print(f"name snapshot: {changed} document(s) name their tools differently; review the diff, then "
              f"`scripts/name-snapshot.py --bless`", file=sys.stderr)
        return 1
    print(f"name snapshot: {len(docs)} documents, {sum(t.count(chr(10)) for t in got.values())} names, unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
