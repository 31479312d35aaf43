#!/usr/bin/env bash
# db2otf2 against db2json on one synthetic hub (bench/gen_hub: N launch +
# kernel pairs, 2 events each, the hub bench_reader.sh uses), taking turns.
# Rows against the targets of issue 10: at most 2x db2json's time; peak
# RSS at most 64 MB plus 1 MB per location (the issue allows one OTF2 event
# chunk per location; db2otf2's are 4 MiB, so this is the stricter bound),
# flat in the number of events. A hub of half the events is converted too:
# memory grows only until each location's 4 MiB chunk has been filled
# once, then stays.
#   BENCH_EVENTS=N  events (default 1000000)
#   BENCH_RUNS=N    runs each (median; default 3)
set -eu
source "$(dirname "$0")/lib.sh"
EVENTS=${BENCH_EVENTS:-1000000}
PAIRS=$((EVENTS / 2))
SMALL=$((PAIRS / 2))
for t in "$BIN/db2json" "$BIN/db2otf2" "$GEN"; do
  [ -x "$t" ] || { echo "bench_otf2: $t missing (make tools $GEN)" >&2; exit 2; }
done
for n in "$PAIRS" "$SMALL"; do
  [ -s "$WORK/hub_$n.db" ] || { "$GEN" "$WORK/hub_$n.db.tmp" "$n" 8 && mv "$WORK/hub_$n.db.tmp" "$WORK/hub_$n.db"; }
done
HUB="$WORK/hub_$PAIRS.db"
alternate sh -c 'rm -rf "$2" && exec "$1" -q "$3" -o "$2"' sh "$BIN/db2otf2" "$WORK/out.otf2" "$HUB" --- \
  "$BIN/db2json" -q "$HUB" -o "$WORK/out.json"
OS=$A_S OKB=$A_KIB JS=$B_S
OB=$(du -sb "$WORK/out.otf2" | cut -f1)
LOCS=$(ls "$WORK/out.otf2/traces" | grep -c '\.evt$')
rm -rf "$WORK/out.otf2"
read -r _ SKB < <(measure "$BIN/db2otf2" -q "$WORK/hub_$SMALL.db" -o "$WORK/out.otf2")
bench_row db2otf2 "gen_hub hub" "$EVENTS" "$OS" 0 "$OKB" "$(ratio "$OS" "$JS")" '<=' 2.0 "x db2json time"
bench_row db2otf2 "gen_hub hub" "$EVENTS" "$OS" 0 "$OKB" "$((OKB / 1024))" '<=' $((64 + LOCS)) "MB peak RSS ($LOCS locations)"
echo "db2otf2 vs db2json on $EVENTS events, median of $RUNS:"
echo "  db2json ${JS}s; db2otf2 ${OS}s, $OB bytes, peak RSS $((OKB / 1024)) MB ($LOCS locations);" \
  "at $((SMALL * 2)) events peak RSS $((SKB / 1024)) MB"
rm -rf "$WORK/out.json" "$WORK/out.otf2"
