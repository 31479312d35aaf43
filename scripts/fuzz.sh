#!/bin/sh
# Runs each libFuzzer harness named on the command line (fuzz_<tool> or
# fuzz_<tool>_<part>) for FUZZ_SECONDS, with a corpus in
# $BUILD/corpus/<harness> seeded from the fixtures its tool reads (the
# exporters' harnesses build their event streams from raw bytes and need
# no seeds). Exit non-zero when a harness finds a crash, leak or hang (its
# input is kept in $BUILD/artifacts/<harness>-crash-..., -leak-, -timeout-).
set -eu
# FUZZ_TOTAL_SECONDS, when set, is shared evenly instead (make check).
: "${BUILD:=build-fuzz}" "${FUZZ_SECONDS:=60}" "${FUZZ_TOTAL_SECONDS:=}"
if [ -n "$FUZZ_TOTAL_SECONDS" ] && [ $# -gt 0 ]; then
  FUZZ_SECONDS=$((FUZZ_TOTAL_SECONDS / $#))
  [ "$FUZZ_SECONDS" -ge 1 ] || FUZZ_SECONDS=1
fi
# FUZZ_JOBS harnesses run at once (default: the cores), each for its
# FUZZ_SECONDS: make check's share of fuzzing takes half the wall time on
# two cores.
: "${FUZZ_JOBS:=$(nproc 2>/dev/null || echo 1)}"
# run_one HARNESS MAX_LEN CORPUS: its exit code into $BUILD/HARNESS.rc.
run_one() {
  rc=0
  "$BUILD/fuzz/$1" -max_total_time="$FUZZ_SECONDS" -max_len="$2" -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$1-" \
    "$3" 2>"$BUILD/$1.log" || rc=$?
  echo "$rc" >"$BUILD/$1.rc"
}
status=0 running=0
for h in "$@"; do
  corpus="$BUILD/corpus/$h"
  max_len=65536
  mkdir -p "$corpus" "$BUILD/artifacts"
  # Seeds: the fixtures of the tool's format: text formats gunzipped, first
  # 64 KiB; SQLite files shrunk to the first rows of each table (a cut
  # file would only be refused as truncated), under 128 KiB with their
  # schemas; small binaries whole.
  case $h in
    fuzz_kineto2db)
      for f in fixtures/kineto/*; do
        case $f in *.gz) zcat "$f" ;; *.json) cat "$f" ;; *) continue ;; esac |
          head -c 65536 >"$corpus/seed-$(basename "$f" .gz)"
      done ;;
    fuzz_etprof2db_legacy)
      for c in main unfinished; do
        python3 tests/data/etprof_gen.py "$c" "$corpus/seed-$c.bin" >/dev/null
      done ;;
    fuzz_db2summary_html)
      # a host, then a region of a hostile category, key, value and name,
      # a kernel, a process and thread name (fuzz/fuzz_db2summary_html.c)
      printf '\005h\370st\001\000\000\006ca\370t\374\003k\371y\004v\372l\005r\373g\001\001\003k\370n\002sy\002\002\004p\376oc\003t\377r\003\001\002cu' \
        >"$corpus/seed-markup" ;;
    fuzz_etprof2db_etdump)
      for f in fixtures/executorch/*.etdp; do cp "$f" "$corpus/seed-$(basename "$f")"; done ;;
    fuzz_rpd2db)
      max_len=131072
      for f in fixtures/rocm/*.rpd; do
        python3 scripts/fuzz-seed-db.py "$f" "$corpus/seed-$(basename "$f")"
      done ;;
    fuzz_nvvp2db)
      max_len=131072
      for f in fixtures/nvprof/*; do
        python3 scripts/fuzz-seed-db.py "$f" "$corpus/seed-$(basename "$f")"
      done ;;
    fuzz_nsys2db)
      max_len=131072
      for f in fixtures/nsys/*.sqlite; do
        python3 scripts/fuzz-seed-db.py "$f" "$corpus/seed-$(basename "$f")"
      done ;;
  esac
  echo "fuzz: $h for ${FUZZ_SECONDS}s" >&2
  run_one "$h" "$max_len" "$corpus" &
  running=$((running + 1))
  if [ "$running" -ge "$FUZZ_JOBS" ]; then wait; running=0; fi
done
wait
for h in "$@"; do
  if [ "$(cat "$BUILD/$h.rc" 2>/dev/null || echo 1)" != 0 ]; then
    tail -n 40 "$BUILD/$h.log" >&2
    echo "fuzz: $h FAILED (see $BUILD/$h.log, $BUILD/artifacts/)" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$BUILD/$h.log" | sed "s/^/fuzz: $h: /" >&2
  fi
done
exit $status
