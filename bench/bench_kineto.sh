#!/usr/bin/env bash
# kineto2db against Python's json.load of the same uncompressed file, on a
# trace of BENCH_EVENTS events (default 1M, about 436 MB) made from the
# resnet50 fixture by bench/kineto_gen.py. Rows: time against json.load
# (target: at least 2x faster), MB/s of JSON (>= 100), time against SQLite's
# insert ceiling for the same rows (<= 1.2x; `WHERE 1`, see kineto_ceiling),
# peak RSS (<= 64 MB),
# hub size against the JSON with every arg kept (<= 2x); the report also
# gives hub bytes per event with and without the reader's indexes.
#   BENCH_EVENTS=N   events (default 1000000)
#   BENCH_RUNS=N     runs each, tool and json.load taking turns (median; default 3)
# Then a real trace's own shape (issue 24): the HTA alexnet fixture (A100,
# about 2.6 args and 210 bytes per event, the shape of a plain training
# step, unlike resnet50's 4.9 args and 460 bytes) repeated along its time
# axis to BENCH_EVENTS * 0.33 events (about 68 MB at the default), with
# kineto2db --threads auto against json.load (>= 2x faster) and against
# the insert ceiling (<= 1.25x).
set -eu
source "$(dirname "$0")/lib.sh"
N=${BENCH_EVENTS:-1000000}
TOOL="$BIN/kineto2db"
[ -x "$TOOL" ] || { echo "bench_kineto: build $TOOL first (make tools)" >&2; exit 1; }
SRC="$ROOT/fixtures/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
IN="$WORK/kineto_$N.json"
[ -s "$IN" ] || $PY "$ROOT/bench/kineto_gen.py" "$SRC" "$N" "$IN"
OUT="$WORK/kineto_$N.db"

# kineto_ceiling HUB [WHERE]: SQLite's own ceiling for the rows of HUB (the
# hub kineto2db wrote, copied to $WORK/kineto_rows.db, the source), as
# $WORK/kineto_ceiling.sql: INSERT ... SELECT of
# every table into an empty hub of the same schema and indexes. With WHERE
# empty, each copy is SQLite's transfer optimization (an empty table of the
# same schema: records copied without being decoded or built, which no
# importer can do); the ceiling the rows use is `WHERE 1`, which turns it
# off: SQLite decodes each row and builds its record and index entries, as
# for any INSERT (and as the other importers' ceilings do: theirs select
# expressions, never a whole table).
kineto_ceiling() {
  sqlite3 "$1" "SELECT 'INSERT INTO main.\"' || name || '\" SELECT * FROM s.\"' || name || '\"$2;'
    FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd\_%' ESCAPE '\' ORDER BY rootpage" |
    ceiling_script "$1" "$WORK/kineto_rows.db" "$WORK/kineto_ceiling.sql"
}
# kineto_copy_s: the transfer-optimization copy alone, once (seconds), for
# the report; kineto_ceiling ... "" first.
kineto_copy_s() {
  measure sh -c 'rm -f "$1" && exec sqlite3 -batch "$1" ".read $2"' sh "$WORK/kineto_ceiling.db" "$WORK/kineto_ceiling.sql" | cut -d' ' -f1
}

alternate "$TOOL" -q "$IN" -o "$OUT" --- $PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$IN"
tk=$A_S rk=$A_KIB tj=$B_S rj=$B_KIB
bytes=$(stat -c %s "$IN")
hub=$(stat -c %s "$OUT")
# SQLite's own ceiling for the same rows (kineto_ceiling).
cp "$OUT" "$WORK/kineto_rows.db"
kineto_ceiling "$OUT" ""
tx=$(kineto_copy_s)
kineto_ceiling "$OUT" " WHERE 1"
vs_ceiling "$WORK/kineto_ceiling.db" "$WORK/kineto_ceiling.sql" "$TOOL" -q "$IN" -o "$OUT"
tc=$CEIL_S tk2=$TOOL_S
rm -f "$WORK/kineto_rows.db" "$WORK/kineto_ceiling.db"
# The same hub without the reader's indexes (rocprofv3 writes none).
sqlite3 "$OUT" "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL" >"$WORK/drop.sql"
sqlite3 "$OUT" ".read $WORK/drop.sql" "VACUUM"
bare=$(stat -c %s "$OUT")
rm -f "$OUT"
in="resnet50 x$(( (N + 75697) / 75698 )) JSON"
mb=$($PY -c "import sys; print('%.1f' % (int(sys.argv[1]) / 1e6 / float(sys.argv[2])))" "$bytes" "$tk")
bench_row kineto2db "$in" "$N" "$tk" "$bytes" "$rk" "$(ratio "$tk" "$tj")" '<=' 0.5 "x json.load"
bench_row kineto2db "$in" "$N" "$tk" "$bytes" "$rk" "$mb" '>=' 100 "MB/s of JSON"
bench_row kineto2db "$in" "$N" "$tk2" "$bytes" "$rk" "$(ratio "$tk2" "$tc")" '<=' 1.2 "x SQLite insert ceiling"
bench_row kineto2db "$in" "$N" "$tk" "$bytes" "$rk" "$((rk / 1024))" '<=' 64 "MB peak RSS"
bench_row kineto2db "$in" "$N" "$tk" "$bytes" "$rk" "$(ratio "$hub" "$bytes")" '<=' 2.0 "x JSON size (hub)"
echo "kineto2db on $N events ($bytes bytes of JSON), median of $RUNS:"
echo "  json.load: ${tj}s, peak RSS $((rj / 1024)) MB"
echo "  kineto2db: ${tk}s = $mb MB/s, $(ratio "$tj" "$tk")x faster than json.load, peak RSS $((rk / 1024)) MB"
echo "  insert ceiling (sqlite3 shell INSERT ... SELECT ... WHERE 1 of the hub's rows into an empty hub): ${tc}s;" \
  "kineto2db in the same turns ${tk2}s = $(ratio "$tk2" "$tc")x;" \
  "the same copy without WHERE 1 (transfer optimization, records not decoded): ${tx}s, one run"
echo "  hub: $hub bytes = $(ratio "$hub" "$bytes")x the JSON, $((hub / N)) bytes/event;" \
  "without the reader's indexes $bare bytes = $(ratio "$bare" "$bytes")x, $((bare / N)) bytes/event"
threads_row kineto2db "$in" "$N" "$bytes" -q "$IN" -o "$OUT"
rm -f "$OUT"
threads_row kineto2db "resnet50 fixture" 75698 "$(stat -c %s "$SRC")" -q "$SRC" -o "$OUT"
rm -f "$OUT"
[ -n "${BENCH_KEEP:-}" ] || rm -f "$IN"

# A real trace's shape: alexnet's events repeated (see the header).
SN=$(( N * 33 / 100 ))
SSRC="$ROOT/fixtures/kineto/hta_alexnet_trace.json.gz"
SIN="$WORK/kineto_alexnet_$SN.json"
[ -s "$SIN" ] || $PY "$ROOT/bench/kineto_gen.py" "$SSRC" "$SN" "$SIN"
alternate "$TOOL" -q --threads auto "$SIN" -o "$OUT" --- $PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$SIN"
sk=$A_S srk=$A_KIB sj=$B_S
sbytes=$(stat -c %s "$SIN")
cp "$OUT" "$WORK/kineto_rows.db"
kineto_ceiling "$OUT" ""
stx=$(kineto_copy_s)
kineto_ceiling "$OUT" " WHERE 1"
vs_ceiling "$WORK/kineto_ceiling.db" "$WORK/kineto_ceiling.sql" "$TOOL" -q --threads auto "$SIN" -o "$OUT"
sc=$CEIL_S sk2=$TOOL_S
rm -f "$WORK/kineto_rows.db" "$WORK/kineto_ceiling.db" "$OUT"
sin="alexnet x$(( (SN + 1369) / 1370 )) JSON"
bench_row "kineto2db --threads auto" "$sin" "$SN" "$sk" "$sbytes" "$srk" "$(ratio "$sk" "$sj")" '<=' 0.5 "x json.load"
bench_row "kineto2db --threads auto" "$sin" "$SN" "$sk2" "$sbytes" "$srk" "$(ratio "$sk2" "$sc")" '<=' 1.25 "x SQLite insert ceiling"
echo "kineto2db --threads auto on alexnet's shape, $SN events ($sbytes bytes of JSON), median of $RUNS:"
echo "  json.load: ${sj}s; kineto2db: ${sk}s = $(ratio "$sj" "$sk")x faster"
echo "  insert ceiling (WHERE 1): ${sc}s; kineto2db in the same turns ${sk2}s = $(ratio "$sk2" "$sc")x;" \
  "without WHERE 1 (transfer optimization): ${stx}s, one run = $(ratio "$sk2" "$stx")x"
[ -n "${BENCH_KEEP:-}" ] || rm -f "$SIN"
