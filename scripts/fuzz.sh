#!/bin/sh
# Runs each libFuzzer harness named on the command line (fuzz_<tool>) for
# FUZZ_SECONDS, with a corpus in $BUILD/corpus/<harness> seeded from the
# fixtures its tool reads (the exporters' harnesses build their event
# streams from raw bytes and need no seeds). Exit non-zero when a harness finds a crash,
# leak or hang (its input is kept in $BUILD/artifacts/).
set -eu
: "${BUILD:=build-fuzz}" "${FUZZ_SECONDS:=60}"
status=0
for h in "$@"; do
  tool=${h#fuzz_}
  corpus="$BUILD/corpus/$h"
  mkdir -p "$corpus" "$BUILD/artifacts"
  # Seeds: the fixtures of the tool's format (gunzipped), first 64 KiB.
  case $tool in
    kineto2db) for f in fixtures/kineto/*; do
              case $f in *.gz) zcat "$f" ;; *.json) cat "$f" ;; *) continue ;; esac |
                head -c 65536 >"$corpus/seed-$(basename "$f" .gz)"
            done ;;
  esac
  echo "fuzz: $h for ${FUZZ_SECONDS}s" >&2
  if ! "$BUILD/fuzz/$h" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=20 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$h-" \
       "$corpus" 2>"$BUILD/$h.log"; then
    tail -n 40 "$BUILD/$h.log" >&2
    echo "fuzz: $h FAILED (see $BUILD/$h.log, $BUILD/artifacts/)" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$BUILD/$h.log" | sed "s/^/fuzz: $h: /" >&2
  fi
done
exit $status
