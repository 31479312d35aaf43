#!/usr/bin/env bash
# The streaming reader + db2json on a synthetic hub of BENCH_EVENTS events
# (default 2M; the issue's 10M: BENCH_EVENTS=10000000), against a baseline:
# sqlite3's own shell reading the same rows in time order.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
events=${BENCH_EVENTS:-2000000}
pairs=$((events / 2))
db="$WORK/hub_$events.db"
[ -f "$db" ] || "$GEN" "$db" "$pairs" 8
read -r tb rb < <(measure sqlite3 -batch "$db" \
  "SELECT r.start, r.\"end\", r.pid, r.tid, s.string FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id ORDER BY r.start;
   SELECT k.start, k.\"end\", k.pid, k.stream_id, ks.kernel_name FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol ks ON ks.id = k.kernel_id ORDER BY k.start;")
read -r tj rj < <(measure "$BIN/db2json" -q "$db" -o "$WORK/out.json")
read -r tw rw < <(measure "$BIN/db2json" -q "$db" --split window --windows 16 -o "$WORK/win.json")
small="$WORK/hub_small.db"
[ -f "$small" ] || "$GEN" "$small" $((pairs / 100 > 1000 ? pairs / 100 : 1000)) 8
read -r ts rs < <(measure "$BIN/db2json" -q "$small" -o "$WORK/small.json")
echo "reader/db2json on $events events:"
echo "  baseline sqlite3 shell (rows in time order): ${tb}s"
echo "  db2json:                  ${tj}s  ($(rate "$events" "$tj") events/s, $(ratio "$tj" "$tb")x baseline), peak RSS ${rj} KiB"
echo "  db2json --windows 16:     ${tw}s  ($(ratio "$tw" "$tj")x one file), peak RSS ${rw} KiB"
echo "  peak RSS at $events vs $((events / 100)) events: ${rj} vs ${rs} KiB (ratio $(ratio "$rj" "$rs"))"
rm -f "$WORK"/out.json "$WORK"/win.w*.json "$WORK"/small.json
