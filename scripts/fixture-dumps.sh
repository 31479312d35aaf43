#!/usr/bin/env bash
# Imports every fixture (fixtures/*) with its importer and writes each hub's
# `sqlite3 .dump` into OUTDIR, the hub's random guid replaced by a fixed
# one: two runs' OUTDIRs compare with `diff -r` when a change to the
# writer must leave every hub's content as it was. Usage:
#   BUILD=build bash scripts/fixture-dumps.sh OUTDIR [IMPORTER OPTION...]
# (the options, e.g. --threads 2, are given to every importer)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=$1
shift
mkdir -p "$out"
tool_of() {
  case "$1" in
  fixtures/kineto/*) echo kineto2db ;;
  fixtures/nvprof/*) echo nvvp2db ;;
  fixtures/nsys/*) echo nsys2db ;;
  fixtures/rocm/*) echo rpd2db ;;
  fixtures/executorch/*) echo etprof2db ;;
  esac
}
for f in fixtures/*/*; do
  [ -f "$f" ] || continue # kineto/pairs/: db2diff's pairs
  case "$f" in *.md) continue ;; esac
  t=$(tool_of "$f")
  [ -n "$t" ] || continue
  hub="$out/$(basename "$f").db"
  rm -f "$hub"
  "$BUILD/bin/$t" -q "$@" "$f" -o "$hub"
  g=$(sqlite3 "$hub" "SELECT value FROM rocpd_metadata WHERE tag='guid'")
  u=$(sqlite3 "$hub" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
  # sqlite_sequence rows by name: their order only says which table's
  # first batch of rows SQLite wrote first.
  { sqlite3 "$hub" .dump | grep -av '^INSERT INTO sqlite_sequence '
    sqlite3 "$hub" "SELECT name, seq FROM sqlite_sequence ORDER BY name"
  } | sed -e "s/$u/_GUID/g" -e "s/$g/GUID/g" >"$out/$(basename "$f").sql"
  rm -f "$hub"
done
