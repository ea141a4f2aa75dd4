#!/usr/bin/env bash
# The contract check for CI (docs/ci/README.md): for each spec directory (default: every
# specs/<name>/ with an openapi.* and an optional overlay.yaml), compare the compiled contract
# with the one at BASE and write a Markdown summary for the pull request. Fails (exit 3) on a
# breaking change that does not come with a new major API version (info.version), and on a spec
# that no longer compiles (exit 2). Semantic changes are reported, not failed. A breaking change
# that pins the earlier contract as a kept version (generated/<name>/versions/vN/, new since BASE,
# served beside the current one) passes too.
#
#   scripts/contract-check.sh BASE_REF [SPEC_DIR...]
#
# MCPGEN names the mcp-gen binary (default: mcp-gen on PATH); SUMMARY the Markdown file
# (default: contract-summary.md). Run it from the repository root.
set -uo pipefail
BASE="${1:?usage: contract-check.sh BASE_REF [SPEC_DIR...]}"
shift
MCPGEN="${MCPGEN:-mcp-gen}"
SUMMARY="${SUMMARY:-contract-summary.md}"
dirs=("$@")
if [[ ${#dirs[@]} -eq 0 ]]; then
  for d in specs/*/; do dirs+=("${d%/}"); done
fi

# The contract version this change starts keeping for the API in $1 (a
# generated/<name>/versions/vN/ that BASE does not have), if any.
kept_since_base() {
  local versions="generated/$(basename "$1")/versions"
  [[ -d "$versions" ]] || return 1
  for kept in "$versions"/*/; do
    kept="${kept%/}"
    if ! git cat-file -e "${BASE}:./${kept}/tools.json" 2>/dev/null; then
      basename "$kept"
      return 0
    fi
  done
  return 1
}

status=0
echo "# Contract check against ${BASE}" > "$SUMMARY"
for dir in "${dirs[@]}"; do
  spec="$(ls "$dir"/openapi.* 2>/dev/null | head -n1)"
  [[ -n "$spec" ]] || continue
  overlay=()
  [[ -f "$dir/overlay.yaml" ]] && overlay=(--new-overlay "$dir/overlay.yaml")
  printf '\n## %s\n\n' "$dir" >> "$SUMMARY"
  if ! git cat-file -e "${BASE}:./${spec}" 2>/dev/null; then
    echo "New API (not in ${BASE})." >> "$SUMMARY"
    continue
  fi
  "$MCPGEN" diff --git-base "$BASE" --new "$spec" "${overlay[@]}" --markdown --allow-semantic \
    --allow-breaking-on-major >> "$SUMMARY"
  code=$?
  case "$code" in
    0) ;;
    3) echo "" >> "$SUMMARY"
       if kept="$(kept_since_base "$dir")"; then
         echo "Breaking changes; the earlier contract is kept as ${kept} (served at /mcp/${kept})." >> "$SUMMARY"
       else
         echo "**Breaking changes without a new major version of the API: bump info.version's major, keep the earlier contract as a version (mcp-gen build --keep-version), or keep the old tools for a window (deprecated).**" >> "$SUMMARY"
         status=3
       fi ;;
    *) echo "mcp-gen diff failed for ${dir} (exit ${code})" >> "$SUMMARY"
       [[ $status -eq 0 ]] && status=2 ;;
  esac
done
cat "$SUMMARY"
exit "$status"
