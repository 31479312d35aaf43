#!/usr/bin/env bash
# db2otf2 against db2json on one synthetic hub (bench/gen_hub: N launch +
# kernel pairs, 2 events each). Reports the ratio of run times, the
# archive's size and db2otf2's peak RSS, against the targets of issue 10:
# at most 2x db2json's time; peak RSS at most 64 MB plus one OTF2 event
# chunk (1 MiB) per location, flat in the number of events. A hub of half
# the events is converted too: memory grows only until each location's
# buffers are full (its chunk, and the 4 MiB write buffer libotf2 keeps per
# file), then stays.
#
#   BENCH_EVENTS=10000000 bash bench/bench_otf2.sh   (default 2000000)
#   BENCH_RUNS=N    best of N alternating runs per tool (default 3)
#   BENCH_DIR=dir   where the hubs (kept, reused) and outputs go
# Timing numbers are for the report, never a pass/fail test.
set -eu
cd "$(dirname "$0")/.."
: "${BENCH_DIR:=${TMPDIR:-/tmp}/tt-bench}" # kept: the hub is reused
source bench/lib.sh
EVENTS=${BENCH_EVENTS:-2000000}
RUNS=${BENCH_RUNS:-3}
PAIRS=$((EVENTS / 2))
SMALL=$((PAIRS / 2))
DIR=$WORK
for t in "$BIN/db2json" "$BIN/db2otf2" "$GEN"; do
  [ -x "$t" ] || { echo "bench_otf2: $t missing (make tools $GEN)" >&2; exit 2; }
done
for n in "$PAIRS" "$SMALL"; do
  if [ ! -s "$DIR/hub_$n.db" ]; then
    echo "bench_otf2: writing $DIR/hub_$n.db ($n pairs)..." >&2
    "$GEN" "$DIR/hub_$n.db.tmp" "$n" 4 && mv "$DIR/hub_$n.db.tmp" "$DIR/hub_$n.db"
  fi
done
HUB="$DIR/hub_$PAIRS.db"

JS=""; OS=""; OKB=0
for _ in $(seq "$RUNS"); do
  read -r s _ < <(measure "$BIN/db2json" -q "$HUB" -o "$DIR/out.json")
  JS=$(best "$JS" "$s")
  rm -rf "$DIR/out.otf2"
  read -r s kb < <(measure "$BIN/db2otf2" -q "$HUB" -o "$DIR/out.otf2")
  OS=$(best "$OS" "$s")
  [ "$kb" -gt "$OKB" ] && OKB=$kb
done
OB=$(du -sb "$DIR/out.otf2" | cut -f1)
JB=$(stat -c %s "$DIR/out.json")
LOCS=$(ls "$DIR/out.otf2/traces" | grep -c '\.evt$')
rm -rf "$DIR/out.otf2"
read -r _ SKB < <(measure "$BIN/db2otf2" -q "$DIR/hub_$SMALL.db" -o "$DIR/out.otf2")

awk -v hub="$HUB" -v e="$EVENTS" -v js="$JS" -v os="$OS" -v jb="$JB" -v ob="$OB" -v okb="$OKB" \
    -v skb="$SKB" -v se="$((SMALL * 2))" -v locs="$LOCS" 'BEGIN {
  tr = os / (js > 0 ? js : 1e-9); mb = okb / 1024; cap = 64 + locs
  printf "db2otf2 vs db2json on %d events (%s)\n", e, hub
  printf "  db2json   %8.2f s  %10.1f MB out\n", js, jb / 1e6
  printf "  db2otf2   %8.2f s  %10.1f MB out  peak RSS %6.1f MB (%d locations)\n", os, ob / 1e6, mb, locs
  printf "  db2otf2 on %d events: peak RSS %.1f MB (bounded per location, not per event)\n", se, skb / 1024
  printf "  time ratio (otf2/json) %.2f   [target <= 2.00] %s\n", tr, tr <= 2.0 ? "ok" : "MISSED"
  printf "  peak RSS               %.1f MB [target <= 64 MB + 1 MB x %d locations] %s\n", mb, locs, mb <= cap ? "ok" : "MISSED"
}'
rm -rf "$DIR/out.json" "$DIR/out.otf2"
