#!/usr/bin/env bash
# db2perfetto against db2json on one synthetic hub (bench/gen_hub: N launch
# + kernel pairs, 2 events each, with a flow between them). Reports the
# ratio of run times, the ratio of output sizes (pftrace / json) and
# db2perfetto's peak RSS, against the targets of issue 3: no slower than
# db2json, at most a quarter of the JSON's size, peak RSS <= 64 MB.
#
#   BENCH_EVENTS=10000000 bash bench/bench_perfetto.sh   (default 2000000)
#   BENCH_RUNS=N    best of N alternating runs per tool (default 3: this machine is noisy)
#   BENCH_DIR=dir   where the hub (kept, reused) and outputs go
# Timing numbers are for the report, never a pass/fail test.
set -eu
cd "$(dirname "$0")/.."
: "${BENCH_DIR:=${TMPDIR:-/tmp}/tt-bench}" # kept: the hub is reused
source bench/lib.sh
EVENTS=${BENCH_EVENTS:-2000000}
RUNS=${BENCH_RUNS:-3}
PAIRS=$((EVENTS / 2))
DIR=$WORK
for t in "$BIN/db2json" "$BIN/db2perfetto" "$GEN"; do
  [ -x "$t" ] || { echo "bench_perfetto: $t missing (make tools $GEN)" >&2; exit 2; }
done

HUB="$DIR/hub_$PAIRS.db"
if [ ! -s "$HUB" ]; then
  echo "bench_perfetto: writing $HUB ($PAIRS pairs, $EVENTS events)..." >&2
  "$GEN" "$HUB.tmp" "$PAIRS" 4 && mv "$HUB.tmp" "$HUB"
fi

# run CMD...: runs CMD; sets SECS (wall clock) and KB (peak RSS).
run() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M' -o "$DIR/time.txt" "$@" >/dev/null
    read -r SECS KB <"$DIR/time.txt"
  else
    # No `time` package: poll the child's VmHWM (peak RSS) from /proc.
    local t0 t1 hwm=0 v
    t0=$(date +%s.%N)
    "$@" >/dev/null &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      v=$(awk '/^VmHWM:/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
      sleep 0.05
    done
    wait "$pid"
    t1=$(date +%s.%N)
    SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}'); KB=$hwm
  fi
}

# The machine's speed drifts within a minute: the two tools run
# alternately, best time (and highest peak RSS) of RUNS each.
JS=""; PS=""; JKB=0; PKB=0
for _ in $(seq "$RUNS"); do
  run "$BIN/db2json" -q "$HUB" -o "$DIR/out.json"
  JS=$(best "$JS" "$SECS")
  [ "$KB" -gt "$JKB" ] && JKB=$KB
  run "$BIN/db2perfetto" -q "$HUB" -o "$DIR/out.pftrace"
  PS=$(best "$PS" "$SECS")
  [ "$KB" -gt "$PKB" ] && PKB=$KB
done
JB=$(stat -c %s "$DIR/out.json"); PB=$(stat -c %s "$DIR/out.pftrace")

awk -v hub="$HUB" -v e="$EVENTS" -v js="$JS" -v ps="$PS" -v jb="$JB" -v pb="$PB" -v jkb="$JKB" -v pkb="$PKB" 'BEGIN {
  tr = ps / (js > 0 ? js : 1e-9); sr = pb / jb; mb = pkb / 1024
  printf "db2perfetto vs db2json on %d events (%s)\n", e, hub
  printf "  db2json      %8.2f s  %10.1f MB out  peak RSS %6.1f MB\n", js, jb / 1e6, jkb / 1024
  printf "  db2perfetto  %8.2f s  %10.1f MB out  peak RSS %6.1f MB\n", ps, pb / 1e6, mb
  printf "  time ratio (perfetto/json) %.2f   [target <= 1.00] %s\n", tr, tr <= 1.0 ? "ok" : "MISSED"
  printf "  size ratio (pftrace/json)  %.3f  [target <= 0.25] %s\n", sr, sr <= 0.25 ? "ok" : "MISSED"
  printf "  peak RSS                   %.1f MB [target <= 64 MB] %s\n", mb, mb <= 64 ? "ok" : "MISSED"
}'
rm -f "$DIR/out.json" "$DIR/out.pftrace" "$DIR/time.txt"
