#!/usr/bin/env bash
# A generated crate as a user builds it: outside this workspace, with dependencies resolved
# afresh (newest semver-compatible versions, not Cargo.lock's), checked with warnings as
# errors in the generated crate and the runtime (registry crates' own lints are capped by
# cargo). Drift such as a deprecation in a newer dependency shows here first.
#
#   scripts/fresh-build.sh [SPEC_DIR]     (default: specs/petstore)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-specs/petstore}"
name="$(basename "$dir")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
overlay=()
[[ -f "$dir/overlay.yaml" ]] && overlay=(--overlay "$dir/overlay.yaml")
spec="$(ls "$dir"/openapi.* | head -n1)"
"${MCPGEN:-target/release/mcp-gen}" build --spec "$spec" "${overlay[@]}" --name "$name" \
  --out "$work/$name-mcp" --runtime-path "$PWD/runtime"
cd "$work/$name-mcp"
cargo generate-lockfile -q
echo "fresh resolution: $(grep -A1 '^name = "rustls"$' Cargo.lock | tail -1 | tr -d ' ') $(grep -A1 '^name = "rmcp"$' Cargo.lock | tail -1 | tr -d ' ')"
# Registry crates' builds are kept between runs (same versions → same artifacts); the crate and
# the runtime are checked afresh every time.
RUSTFLAGS="-D warnings" CARGO_TARGET_DIR="${MCPGEN_FRESH_TARGET:-$HOME/.cache/mcp-gen-fresh-target}" cargo check -q
echo "fresh build of $name-mcp: no warnings"
