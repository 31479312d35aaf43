#!/usr/bin/env bash
# db2perfetto against db2json on one synthetic hub (bench/gen_hub: N launch
# + kernel pairs, 2 events each, with a flow between them), taking turns.
# Rows: time against db2json (target: no slower), output size against the
# JSON (target <= 0.35), peak RSS (<= 64 MB).
#   BENCH_EVENTS=N  events (default 1000000)
#   BENCH_RUNS=N    runs each (median; default 3)
set -eu
source "$(dirname "$0")/lib.sh"
EVENTS=${BENCH_EVENTS:-1000000}
PAIRS=$((EVENTS / 2))
for t in "$BIN/db2json" "$BIN/db2perfetto" "$GEN"; do
  [ -x "$t" ] || { echo "bench_perfetto: $t missing (make tools $GEN)" >&2; exit 2; }
done
HUB="$WORK/hub_$PAIRS.db" # the same hub as bench_reader.sh
[ -s "$HUB" ] || { "$GEN" "$HUB.tmp" "$PAIRS" 8 && mv "$HUB.tmp" "$HUB"; }
alternate "$BIN/db2perfetto" -q "$HUB" -o "$WORK/out.pftrace" --- "$BIN/db2json" -q "$HUB" -o "$WORK/out.json"
PS=$A_S PKB=$A_KIB JS=$B_S
JB=$(stat -c %s "$WORK/out.json"); PB=$(stat -c %s "$WORK/out.pftrace")
bench_row db2perfetto "gen_hub hub" "$EVENTS" "$PS" 0 "$PKB" "$(ratio "$PS" "$JS")" '<=' 1.0 "x db2json time"
bench_row db2perfetto "gen_hub hub" "$EVENTS" "$PS" 0 "$PKB" "$(ratio "$PB" "$JB")" '<=' 0.35 "x db2json size"
bench_row db2perfetto "gen_hub hub" "$EVENTS" "$PS" 0 "$PKB" "$((PKB / 1024))" '<=' 64 "MB peak RSS"
echo "db2perfetto vs db2json on $EVENTS events, median of $RUNS:"
echo "  db2json ${JS}s, $JB bytes; db2perfetto ${PS}s, $PB bytes, peak RSS $((PKB / 1024)) MB"
rm -f "$WORK/out.json" "$WORK/out.pftrace"
