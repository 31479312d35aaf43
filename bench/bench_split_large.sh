#!/usr/bin/env bash
# The size split of a large trace (issue 47): a Kineto trace of
# BENCH_LARGE_EVENTS events (default 4.6M, about 2 GB of JSON: the size of
# the real trace the issue measured) made from the resnet50 fixture by
# bench/kineto_gen.py and imported once; db2perfetto --max-part-size (a
# part size of three quarters of the one file: 256 MiB at the default,
# two parts the UI opens) against one .pftrace of the same hub, taking
# turns (median of BENCH_RUNS). Targets: at most 1.3x one file (two CPUs:
# the planner's second thread), peak RSS at most 64 MB. The input is
# 2 GB of JSON and a 3.5 GB hub in the work directory while it runs.
set -eu
source "$(dirname "$0")/lib.sh"
N=${BENCH_LARGE_EVENTS:-4600000}
if [ "${BENCH_EVENTS:-1000000}" -lt 1000000 ]; then # test_bench's tiny run
  N=${BENCH_LARGE_EVENTS:-$((BENCH_EVENTS * 5))}
fi
SRC="$ROOT/fixtures/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
IN="$WORK/large_$N.json" HUB="$WORK/large_$N.db"
[ -s "$HUB" ] || {
  $PY "$ROOT/bench/kineto_gen.py" "$SRC" "$N" "$IN"
  "$BIN/kineto2db" -q "$IN" -o "$HUB.tmp" && mv "$HUB.tmp" "$HUB"
  rm -f "$IN"
}
"$BIN/db2perfetto" -q "$HUB" -o "$WORK/large.pftrace"
one=$(stat -c %s "$WORK/large.pftrace")
psize=$((one * 3 / 4 / 1024))
[ "$psize" -ge 64 ] || psize=64
mkdir -p "$WORK/large_parts"
alternate "$BIN/db2perfetto" -q "$HUB" --max-part-size "${psize}K" -o "$WORK/large_parts/p.pftrace" --- \
  "$BIN/db2perfetto" -q "$HUB" -o "$WORK/large.pftrace"
parts=$(ls "$WORK/large_parts" | wc -l)
input="Kineto resnet50 x$((N / 1000))k, $parts parts"
bench_row "db2perfetto --max-part-size" "$input" "$N" "$A_S" "$one" "$A_KIB" "$(ratio "$A_S" "$B_S")" '<=' 1.3 "x one file"
bench_row "db2perfetto --max-part-size" "$input" "$N" "$A_S" "$one" "$A_KIB" "$((A_KIB / 1024))" '<=' 64 "MB peak RSS"
echo "size split of $N events into $parts parts of at most ${psize} KiB: $A_S s, one file $B_S s ($(ratio "$A_S" "$B_S")x), peak $((A_KIB / 1024)) MB"
rm -rf "$WORK/large.pftrace" "$WORK/large_parts"
[ -n "${BENCH_KEEP:-}" ] || rm -f "$HUB"
