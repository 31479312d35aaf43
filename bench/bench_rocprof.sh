#!/usr/bin/env bash
# The exporters on the shape rocprofv3 writes (bench/gen_rocprof: one
# process, no index, 61% HIP API regions with 1.27 args each, 35% kernel
# dispatches, 4% copies; ids in the order per-thread and per-queue buffers
# were written out, so read in start order about 4.6% of regions and 21%
# of dispatches step back in id), against the sqlite3 command-line tool
# printing the same tables, those with a start column ORDER BY start,
# taking turns. db2json and db2perfetto write to standard output, which
# the bench sends to /dev/null as it does the sqlite3 shell's (a 10M-event
# JSON file is 2.5 GB: written to disk, the kernel's writeback throttles
# the writer and the row would time the disk). db2otf2 writes a directory,
# so it and the db2json it is paired with both write files. Rows (issue 24):
#   db2json on the shape, and with rocpd_arg written position-major:
#     at most 1.3x the ordered print;
#   db2perfetto at most db2json's time; db2otf2 at most 1.1x it;
#   at BENCH_SCALE times the events (default 10: 10M), db2json at most
#     1.3x the ordered print and 64 MB peak RSS.
#   BENCH_EVENTS=N  events (default 1000000)
#   BENCH_RUNS=N    runs each (median; default 3)
set -eu
source "$(dirname "$0")/lib.sh"
EVENTS=${BENCH_EVENTS:-1000000}
G="$ROOT/$BUILD/bench/gen_rocprof"
for t in "$BIN/db2json" "$BIN/db2perfetto" "$BIN/db2otf2" "$G"; do
  [ -x "$t" ] || { echo "bench_rocprof: $t missing (make all)" >&2; exit 2; }
done
# rocprof_of EVENTS [--position-major] -> path of such a database
rocprof_of() {
  local db="$WORK/rocprof_$1${2:+_pm}.db"
  [ -s "$db" ] || { "$G" "$db.tmp" "$1" 1 ${2:-} && mv "$db.tmp" "$db"; }
  echo "$db"
}
# ordered_sql DB: every rocpd table printed, ORDER BY start where it has one.
ordered_sql() {
  sqlite3 "$1" "SELECT 'SELECT * FROM \"' || m.name || '\"' || CASE WHEN EXISTS(SELECT 1 FROM
    pragma_table_info(m.name) WHERE name = 'start') THEN ' ORDER BY start' ELSE '' END || ';'
    FROM sqlite_master m WHERE type = 'table' AND name LIKE 'rocpd%'"
}
# vs_print INPUT_NAME EVENTS DB: a db2json row against the ordered print.
vs_print() {
  alternate "$BIN/db2json" -q "$3" -o - --- sqlite3 -batch "$3" "$(ordered_sql "$3")"
  bench_row db2json "$1" "$2" "$A_S" 0 "$A_KIB" "$(ratio "$A_S" "$B_S")" '<=' 1.3 "x sqlite3 ORDER BY start"
  echo "  $1, $2 events: sqlite3 ordered print ${B_S}s, db2json ${A_S}s, peak RSS $((A_KIB / 1024)) MB"
  JS=$A_S JKB=$A_KIB
}
echo "exporters on rocprofv3's shape, median of $RUNS taking turns:"
db=$(rocprof_of "$EVENTS")
vs_print "rocprofv3 shape" "$EVENTS" "$db"
alternate "$BIN/db2perfetto" -q "$db" -o - --- "$BIN/db2json" -q "$db" -o -
bench_row db2perfetto "rocprofv3 shape" "$EVENTS" "$A_S" 0 "$A_KIB" "$(ratio "$A_S" "$B_S")" '<=' 1.0 "x db2json time"
echo "  db2perfetto ${A_S}s against db2json ${B_S}s"
alternate sh -c 'rm -rf "$2" && exec "$1" -q "$3" -o "$2"' sh "$BIN/db2otf2" "$WORK/out.otf2" "$db" --- \
  "$BIN/db2json" -q "$db" -o "$WORK/out.json"
bench_row db2otf2 "rocprofv3 shape" "$EVENTS" "$A_S" 0 "$A_KIB" "$(ratio "$A_S" "$B_S")" '<=' 1.1 "x db2json time"
echo "  db2otf2 ${A_S}s against db2json ${B_S}s"
rm -rf "$WORK/out.json" "$WORK/out.otf2"
vs_print "rocprofv3 shape, args position-major" "$EVENTS" "$(rocprof_of "$EVENTS" --position-major)"
if [ "$SCALE" -gt 1 ]; then
  big=$((EVENTS * SCALE))
  vs_print "rocprofv3 shape" "$big" "$(rocprof_of "$big")"
  bench_row db2json "rocprofv3 shape" "$big" "$JS" 0 "$JKB" "$((JKB / 1024))" '<=' 64 "MB peak RSS"
fi
rm -f "$WORK/out.json"
