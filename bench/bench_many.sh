#!/usr/bin/env bash
# Many processes: BENCH_HUBS (default 1000) rocprofv3-shaped hubs
# (tests/data/make_rocprof_hub.py --many, BENCH_LAUNCHES launches each, default
# 20: about 46 intervals per hub) read as one stream under `ulimit -n 1024`:
# db2json and db2summary (events/s, peak RSS), and dbmerge of all of them
# into one file. Issue 13's target: peak RSS <= 256 MB at 1000 hubs.
# Timing numbers are for the report; the table rows check peak RSS
# (<= 256 MB; above 512 inputs, or past the descriptor budget, the reader
# merges in passes).
set -eu
cd "$(dirname "$0")/.."
source bench/lib.sh
HUBS=${BENCH_HUBS:-1000}
LAUNCHES=${BENCH_LAUNCHES:-20}
DIR="$WORK/many_${HUBS}x$LAUNCHES"
if [ ! -s "$DIR/h0000.db" ]; then
  echo "bench_many: writing $HUBS hubs into $DIR..." >&2
  mkdir -p "$DIR"
  $PY tests/data/make_rocprof_hub.py --many "$DIR" "$HUBS" "$LAUNCHES"
fi
events=$($PY - "$DIR" <<'EOF'
import glob, sqlite3, sys
n = 0
for p in glob.glob(sys.argv[1] + "/h*.db"):
    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND (name GLOB "
                            "'rocpd_region_*' OR name GLOB 'rocpd_kernel_dispatch_*' OR name GLOB "
                            "'rocpd_memory_copy_*' OR name GLOB 'rocpd_memory_allocate_*')"):
        n += con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
print(n)
EOF
)
printf '%-34s %8s %10s %12s %10s\n' "$HUBS hubs, $events intervals" seconds events/s "peak RSS MB" fds
for tool in db2json db2summary; do
  read -r secs kb < <(ulimit -n 1024; measure "$BIN/$tool" -q "$DIR"/h*.db -o "$WORK/many.$tool")
  printf '%-34s %8s %10s %12s %10s\n' "$tool (one stream)" "$secs" "$(rate "$events" "$secs")" \
    "$((kb / 1024))" 1024  # Issue 13's target for 1000 hubs as one stream: peak RSS <= 256 MB.
  bench_row "$tool" "$HUBS per-process hubs, ulimit -n 1024" "$events" "$secs" 0 "$kb" \
    "$((kb / 1024))" '<=' 256 "MB peak RSS"
done
# The html report of the same stream (issue 25): peak RSS and its time
# against --format text, taking turns (the same medians as alternate).
alternate "$BIN/db2summary" -q --format html "$DIR"/h*.db -o "$WORK/many.html" --- \
  "$BIN/db2summary" -q --format text "$DIR"/h*.db -o "$WORK/many.txt"
printf '%-34s %8s %10s %12s %10s\n' "db2summary --format html" "$A_S" "$(rate "$events" "$A_S")" \
  "$((A_KIB / 1024))" 1024
bench_row "db2summary --format html" "$HUBS per-process hubs, ulimit -n 1024" "$events" "$A_S" 0 "$A_KIB" \
  "$((A_KIB / 1024))" '<=' 256 "MB peak RSS"
bench_row "db2summary --format html" "$HUBS per-process hubs, ulimit -n 1024" "$events" "$A_S" 0 "$A_KIB" \
  "$(ratio "$A_S" "$B_S")" '<=' 1.2 "x --format text time"
bench_row "db2summary --format html" "$HUBS per-process hubs, ulimit -n 1024" "$events" "$A_S" \
  "$(stat -c %s "$WORK/many.html")" "$A_KIB" "$(( $(stat -c %s "$WORK/many.html") / 1024 ))" '<=' 2048 "KB of html"
rm -f "$WORK/many.db"
read -r secs kb < <(measure "$BIN/dbmerge" -q "$DIR"/h*.db -o "$WORK/many.db")
printf '%-34s %8s %10s %12s %10s\n' "dbmerge (into one file)" "$secs" "$(rate "$events" "$secs")" \
  "$((kb / 1024))" -
read -r secs kb < <(measure "$BIN/db2summary" -q "$WORK/many.db" -o "$WORK/many.merged.txt")
printf '%-34s %8s %10s %12s %10s\n' "db2summary (the merged file)" "$secs" "$(rate "$events" "$secs")" \
  "$((kb / 1024))" -
