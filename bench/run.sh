#!/usr/bin/env bash
# `make bench`: every bench/bench_*.sh, one after another, sharing a work
# directory so generated inputs are made once; then one table of every
# row they added (bench_row in bench/lib.sh) and the machine it ran on.
# Each bench's own report goes to BENCH_LOG (default: the work directory,
# printed on failure). A FAIL row is a missed target, not an error: the
# exit status is non-zero only when a bench itself failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tt-bench.XXXXXX")}
export BENCH_TABLE="$BENCH_DIR/table.tsv"
source bench/lib.sh
: >"$BENCH_TABLE"
failed=0
for b in bench/bench_*.sh; do
  log="$BENCH_DIR/$(basename "$b" .sh).log"
  echo "== $b" >&2
  if ! bash "$b" >"$log" 2>&1; then
    echo "bench: $b failed:" >&2
    sed 's/^/  /' "$log" >&2
    name=$(basename "$b" .sh)
    bench_row "$name" "(the bench failed)" 0 - 0 0 crash '<=' 0 "crashed: its output is above"
    failed=1
  elif [ -n "${BENCH_VERBOSE:-}" ]; then
    cat "$log"
  fi
done
echo
machine
bench_table <"$BENCH_TABLE"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$BENCH_DIR"
exit $failed
