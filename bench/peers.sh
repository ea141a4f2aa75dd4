#!/usr/bin/env bash
# Time mcp-gen against its peers on the same OpenAPI documents; see bench/README.md.
#
#   bench/peers.sh                 # default documents (largest of the corpus + GitHub, Stripe, Graph)
#   bench/peers.sh DOC [DOC...]    # these documents instead
#
# Environment:
#   MCPGEN        mcp-gen binary                  (default: target/release/mcp-gen)
#   CORPUS        corpus root with index.tsv      (default: /work/corpus)
#   RUNS          best-of runs for mcp-gen        (default: 3)
#   PEER_RUNS     best-of runs for each peer      (default: 1)
#   TIMEOUT       seconds per tool and run        (default: 180)
#   MEM_LIMIT_MB  RSS at which a tool is killed   (default: 12288)
#   TOOLS         comma list among mcp-gen,fastmcp,openapi-mcp-generator,rmcp-openapi-server
#                 (default: all)
#   TOP           how many of the corpus's largest documents to take (default: 8)
#   JSON          also write raw results to this file
#   CARGO_JOBS    -j for `cargo install rmcp-openapi-server` (default: 1)
#   NO_INSTALL=1  never install; a missing peer is reported as failed
#   LIST_DOCS=1   print the chosen documents and exit
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
MCPGEN="${MCPGEN:-$ROOT/target/release/mcp-gen}"
CORPUS="${CORPUS:-/work/corpus}"
RUNS="${RUNS:-3}"
PEER_RUNS="${PEER_RUNS:-1}"
TIMEOUT="${TIMEOUT:-180}"
MEM_LIMIT_MB="${MEM_LIMIT_MB:-12288}"
TOOLS="${TOOLS:-mcp-gen,fastmcp,openapi-mcp-generator,rmcp-openapi-server}"
TOP="${TOP:-8}"
CARGO_JOBS="${CARGO_JOBS:-1}"


log() { printf '%s\n' "$*" >&2; }
wants() { [[ ",$TOOLS," == *",$1,"* ]]; }

[[ -x "$MCPGEN" || "${LIST_DOCS:-0}" == 1 ]] || { log "mcp-gen not found at $MCPGEN (build it, or set MCPGEN)"; exit 2; }

# ------------------------------------------------------------------ install the peers
# install_fastmcp, install_omg, install_rmcp and the pinned versions
source "$BENCH/install.sh"

if [[ "${NO_INSTALL:-0}" != 1 ]]; then
  wants fastmcp && install_fastmcp
  wants openapi-mcp-generator && install_omg
  wants rmcp-openapi-server && install_rmcp
fi

# ------------------------------------------------------------------ pick the documents
docs=()
if (($#)); then
  docs=("$@")
else
  index="$CORPUS/index.tsv"
  [[ -f "$index" ]] || { log "no $index; pass documents as arguments"; exit 2; }
  add() { local p="$CORPUS/$1"; [[ -f "$p" ]] || return 0; local d; for d in "${docs[@]}"; do [[ "$d" == "$p" ]] && return 0; done; docs+=("$p"); }
  # the TOP largest documents by bytes
  while IFS= read -r p; do add "$p"; done < <(tail -n +2 "$index" | sort -t$'\t' -k4,4nr | head -n "$TOP" | cut -f1)
  # api.github.com (~5.7 MB), then the largest other GitHub document (GHES/AE, ~13 MB where the corpus has it)
  gh_main=$(awk -F'\t' 'tolower($1) ~ /github\.com\/api\.github\.com/ {print $4 "\t" $1}' "$index" | sort -nr | head -n1 | cut -f2)
  [[ -n "$gh_main" ]] && add "$gh_main"
  gh_big=$(awk -F'\t' 'tolower($1) ~ /github/ && $4 > 1000000 {print $4 "\t" $1}' "$index" | sort -nr | head -n1 | cut -f2)
  [[ -n "$gh_big" ]] && add "$gh_big"
  # Stripe and Microsoft Graph (v1.0 and beta)
  while IFS= read -r p; do add "$p"; done < <(awk -F'\t' 'tolower($1) ~ /(^|\/)stripe\.com/ {print $4 "\t" $1}' "$index" | sort -nr | head -n1 | cut -f2)
  while IFS= read -r p; do add "$p"; done < <(awk -F'\t' 'tolower($1) ~ /microsoft\.com\/graph/ {print $1}' "$index")
fi
((${#docs[@]})) || { log "no documents"; exit 2; }
if [[ "${LIST_DOCS:-0}" == 1 ]]; then printf '%s\n' "${docs[@]}"; exit 0; fi

args=(--mcpgen "$MCPGEN" --tools "$TOOLS" --runs "$RUNS" --peer-runs "$PEER_RUNS" --timeout "$TIMEOUT"
      --mem-limit "$MEM_LIMIT_MB" --corpus "$CORPUS"
      --venv "$BENCH/.venv" --npm-dir "$BENCH/.npm" --tools-dir "$BENCH/.tools")
[[ -n "${JSON:-}" ]] && args+=(--json "$JSON")

log "mcp-gen: $MCPGEN ($("$MCPGEN" --version 2>/dev/null || echo '?'))"
log "runs: mcp-gen best of $RUNS, peers best of $PEER_RUNS; timeout ${TIMEOUT}s; $(nproc) cores"
exec python3 "$BENCH/runner.py" "${args[@]}" "${docs[@]}"
