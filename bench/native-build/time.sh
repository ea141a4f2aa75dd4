#!/bin/bash
# Build timing for the native GitHub and Stripe crates (issue 29 must-show 4): generates each
# crate, a stub binary implementing every handler, then times cold, regenerated and handler-edit
# release builds and clippy. Needs the corpus (scripts/get-corpus.sh) and ~6 GB of memory.
#   bash bench/native-build/time.sh
set -u
cd "$(dirname "$0")/../.."
T=${OUT:-target/native-timing}; mkdir -p $T
C=${MCPGEN_CORPUS:-$HOME/.cache/mcp-gen-corpus}/directory
cargo build --release -q -p mcp-gen
for spec in github:github.com/api.github.com.json stripe:stripe.com.json; do
  n=${spec%%:*}
  target/release/mcp-gen build --native --spec "$C/${spec#*:}" --out target/native-$n
  python3 bench/native-build/stub.py target/native-$n $T/stub-$n $n-mcp
  tgt=$PWD/$T/tgt-$n; rm -rf $tgt
  export CARGO_TARGET_DIR=$tgt
  echo "== $n"
  # deps alone: the runtime and everything under it
  /usr/bin/time -f "$n deps-cold %es %MKB" cargo build --release -q --manifest-path $T/stub-$n/Cargo.toml -p mcp-gen-runtime 2>&1 | tail -2
  /usr/bin/time -f "$n crate+stub-cold %es %MKB" cargo build --release -q --manifest-path $T/stub-$n/Cargo.toml 2>&1 | tail -2
  touch target/native-$n/native.rs
  /usr/bin/time -f "$n incr-regenerated %es %MKB" cargo build --release -q --manifest-path $T/stub-$n/Cargo.toml 2>&1 | tail -2
  touch $T/stub-$n/src/main.rs
  /usr/bin/time -f "$n incr-handler-edit %es %MKB" cargo build --release -q --manifest-path $T/stub-$n/Cargo.toml 2>&1 | tail -2
  /usr/bin/time -f "$n clippy-lib %es %MKB" cargo clippy -q --manifest-path target/native-$n/Cargo.toml --all-targets -- -D warnings 2>&1 | tail -5
  /usr/bin/time -f "$n clippy-stub %es %MKB" cargo clippy -q --manifest-path $T/stub-$n/Cargo.toml -- -D warnings 2>&1 | tail -5
  ls -la $tgt/release/$n-mcp-stub | awk '{print "binary bytes", $5}'
done
echo done
