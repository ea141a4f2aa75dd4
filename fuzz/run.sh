#!/usr/bin/env bash
# Runs one target with the campaign's options: ./run.sh <target> <seconds> [extra libFuzzer args]
# One job, one worker (the machine has two cores). New corpus entries go to corpus/<target>;
# seeds/<target> is read only. A crash or a >10 s input stops the run and lands in artifacts/.
# -detect_leaks=0: LeakSanitizer flakily reports the 32-byte TLS destructor record of the worker
# threads that schema::assemble spawns (__cxa_thread_atexit_impl), not an mcp-gen leak.
set -euo pipefail
cd "$(dirname "$0")"
target=$1; secs=$2; shift 2
mkdir -p "corpus/$target" "seeds/$target"
extra=()
[ "$target" = structured_openapi ] && extra+=(-len_control=10)
mkdir -p logs
status=0
cargo +nightly fuzz run "$target" "corpus/$target" "seeds/$target" -- \
  -max_total_time="$secs" -timeout=10 -max_len=65536 -rss_limit_mb=4096 \
  -jobs=1 -workers=1 -print_final_stats=1 -detect_leaks=0 "${extra[@]}" "$@" || status=$?
# With -jobs, libFuzzer writes the job's output to fuzz-0.log: keep it per run.
[ -f fuzz-0.log ] && mv fuzz-0.log "logs/$target-$(date +%Y%m%d-%H%M%S).log"
exit $status
