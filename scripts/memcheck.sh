#!/usr/bin/env bash
# make memcheck: every importer on every fixture of its format, then every
# exporter on each hub (db2diff: the hub against itself), under valgrind memcheck (build/, not the sanitizer
# build). Fails on any memcheck error or definite/indirect leak.
# MEMCHECK_MAX_BYTES (default 2 MB) skips larger fixtures: valgrind runs
# the tools some 30x slower.
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${MEMCHECK_MAX_BYTES:=2000000}"
BIN="$BUILD/bin"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tt-memcheck.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-origins=yes)
runs=0 bad=0
check() { # LOG CMD...
  local log=$1; shift
  runs=$((runs + 1))
  if "${VG[@]}" --log-file="$log" "$@" >/dev/null 2>"$log.err" && [ ! -s "$log" ]; then
    echo "memcheck: clean: ${*: -3:1}"
  else
    bad=$((bad + 1)); echo "memcheck: FAILED: $*"; head -n 40 "$log" "$log.err"
  fi
}
exporters=()
for t in "$BIN"/db2*; do [ -x "$t" ] && exporters+=("$t"); done
n=0
for src in fixtures/*/*; do
  [ -f "$src" ] || continue # kineto/pairs/: db2diff's pairs
  case $src in *.md) continue ;; esac
  [ "$(stat -c %s "$src")" -le "$MEMCHECK_MAX_BYTES" ] || { echo "memcheck: skipped (size): $src"; continue; }
  case $src in
    fixtures/kineto/*) tool=kineto2db ;;
    fixtures/nvprof/*) tool=nvvp2db ;;
    fixtures/nsys/*) tool=nsys2db ;;
    fixtures/rocm/*.rpd*) tool=rpd2db ;;
    fixtures/executorch/*) tool=etprof2db ;;
    *) continue ;;
  esac
  [ -x "$BIN/$tool" ] || continue
  n=$((n + 1))
  hub="$TMP/h$n.db"
  check "$TMP/i$n.log" "$BIN/$tool" -q "$src" -o "$hub"
  [ -f "$hub" ] || continue
  for e in "${exporters[@]}"; do
    # db2diff compares two runs: the hub against itself
    twice=(); [ "$(basename "$e")" = db2diff ] && twice=("$hub")
    check "$TMP/e$n.$(basename "$e").log" "$e" -q "$hub" "${twice[@]}" -o "$TMP/out$n.$(basename "$e")"
  done
done
echo "memcheck: $runs runs, $bad with errors or leaks"
[ "$bad" -eq 0 ] && [ "$runs" -gt 0 ]
