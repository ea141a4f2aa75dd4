# Install the bench's peers into ignored directories under bench/; sourced by peers.sh and
# tokens.sh (not run on its own). Each function returns at once when the pinned version is there.
#
# Expects: BENCH (this directory) and a `log` function; CARGO_JOBS for install_rmcp.

FASTMCP_VERSION=4.2.3
OMG_VERSION=4.0.1
RMCP_VERSION=0.32.1
TIKTOKEN_VERSION=0.14.0

# bench/.venv: python venv holding fastmcp (and tiktoken, see install_tiktoken).
install_fastmcp() {
  local py="$BENCH/.venv/bin/python"
  if [[ -x "$py" ]] && "$py" -c "import fastmcp,sys; sys.exit(fastmcp.__version__ != '$FASTMCP_VERSION')" 2>/dev/null; then
    return
  fi
  log "installing fastmcp==$FASTMCP_VERSION into bench/.venv"
  [[ -x "$py" ]] || python3 -m venv "$BENCH/.venv"
  "$BENCH/.venv/bin/pip" install --quiet --disable-pip-version-check "fastmcp==$FASTMCP_VERSION" >&2
}

# tiktoken into bench/.venv (the package only: its vocabulary download is not used, tokens.py
# loads o200k_base from the file that the tiktoken-rs crate ships).
install_tiktoken() {
  local py="$BENCH/.venv/bin/python"
  if [[ -x "$py" ]] && "$py" -c "import tiktoken,sys; sys.exit(tiktoken.__version__ != '$TIKTOKEN_VERSION')" 2>/dev/null; then
    return
  fi
  log "installing tiktoken==$TIKTOKEN_VERSION into bench/.venv"
  [[ -x "$py" ]] || python3 -m venv "$BENCH/.venv"
  "$BENCH/.venv/bin/pip" install --quiet --disable-pip-version-check "tiktoken==$TIKTOKEN_VERSION" >&2
}

# bench/.npm: openapi-mcp-generator.
install_omg() {
  local dir="$BENCH/.npm"
  if [[ -x "$dir/node_modules/.bin/openapi-mcp-generator" ]] &&
     grep -q "\"version\": \"$OMG_VERSION\"" "$dir/node_modules/openapi-mcp-generator/package.json" 2>/dev/null; then
    return
  fi
  log "installing openapi-mcp-generator@$OMG_VERSION into bench/.npm"
  mkdir -p "$dir"
  [[ -f "$dir/package.json" ]] || printf '{"name":"mcp-gen-bench-peers","private":true}\n' >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "openapi-mcp-generator@$OMG_VERSION" >&2)
}

# bench/.tools: rmcp-openapi-server (cargo install; several minutes of compiling).
install_rmcp() {
  local exe="$BENCH/.tools/bin/rmcp-openapi-server"
  if [[ -x "$exe" ]] && "$exe" --version 2>/dev/null | grep -q "$RMCP_VERSION"; then
    return
  fi
  log "installing rmcp-openapi-server $RMCP_VERSION into bench/.tools (compiles; several minutes)"
  cargo install rmcp-openapi-server --version "$RMCP_VERSION" --locked \
    --root "$BENCH/.tools" -j "${CARGO_JOBS:-1}" --target-dir "$BENCH/.tools/target" >&2
}
