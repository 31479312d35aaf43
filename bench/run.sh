#!/usr/bin/env bash
# `make bench`: every bench/bench_*.sh, one after another, sharing a work
# directory so generated inputs are made once.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tt-bench.XXXXXX")}
for b in bench/bench_*.sh; do
  echo "== $b"
  bash "$b"
  echo
done
rm -rf "$BENCH_DIR"
