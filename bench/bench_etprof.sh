#!/usr/bin/env bash
# etprof2db throughput on a legacy ExecuTorch profiler buffer: N events in
# blocks of 1000 (iterations of "Execute", the runtime's default capacity
# of 1024 slots), written by tests/data/etprof_gen.py. Each event is a region,
# its event row and 3 args (iteration, chain_idx, instruction_idx). The
# ceiling is SQLite itself writing the same rows into an empty hub with
# INSERT ... SELECT from a recursive CTE (no C code), as bench_nvprof.sh
# does for nvvp2db. Peak RSS is compared at N/2 and N events. Usage:
#   BUILD=build bash bench/bench_etprof.sh [N]     (N defaults to BENCH_EVENTS or 1000000)
#   BENCH_RUNS=N  runs each, taking turns with the ceiling (median; default 3)
set -eu
source "$(dirname "$0")/lib.sh"
N=${1:-${BENCH_ETPROF_EVENTS:-${BENCH_EVENTS:-1000000}}}
N=$(( N < 2000 ? 2000 : N / 1000 * 1000 )) # whole iterations of 1000
TOOL="$BIN/etprof2db"
[ -x "$TOOL" ] || { echo "bench_etprof: build $TOOL first (make tools)" >&2; exit 1; }
DIR="$WORK/etprof"
mkdir -p "$DIR"
IN="$DIR/prof_result.bin"
SMALL="$DIR/prof_result_small.bin"
$PY "$ROOT/tests/data/etprof_gen.py" bench "$N" "$IN"
$PY "$ROOT/tests/data/etprof_gen.py" bench $((N / 2 / 1000 * 1000)) "$SMALL"
"$TOOL" -q "$IN" -o "$DIR/out.db" # the schema for the ceiling below

U=$(sqlite3 "$DIR/out.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
hub_schema "$DIR/out.db" >"$DIR/hub.sql"
cat >"$DIR/floor.sql" <<SQL
PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192;
.read $DIR/hub.sql
BEGIN;
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < $N - 1)
INSERT INTO rocpd_event$U(category_id) SELECT 1 FROM i;
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < $N - 1)
INSERT INTO rocpd_region$U(nid, pid, tid, start, end, name_id, event_id)
  SELECT 1, 1, 1, 1000 + (n / 1000) * 10100 + (n % 1000) * 10,
         1007 + (n / 1000) * 10100 + (n % 1000) * 10, 2 + n % 4, n + 1 FROM i;
-- the args in the order the tool writes them (event by event), with no sort
WITH RECURSIVE i(m) AS (SELECT 0 UNION ALL SELECT m + 1 FROM i WHERE m < 3 * $N - 1)
INSERT INTO rocpd_arg$U(event_id, position, type, name, value)
  SELECT m / 3 + 1, m % 3, 'int', CASE m % 3 WHEN 0 THEN 'iteration' WHEN 1 THEN 'chain_idx' ELSE 'instruction_idx' END,
         CAST(CASE m % 3 WHEN 0 THEN m / 3 / 1000 WHEN 1 THEN 0 ELSE m / 3 % 1000 END AS TEXT) FROM i;
COMMIT;
SQL
vs_ceiling "$DIR/floor.db" "$DIR/floor.sql" "$TOOL" -q "$IN" -o "$DIR/out.db"
tt=$TOOL_S tf=$CEIL_S rt=$TOOL_KIB
read -r _ rs < <(measure "$TOOL" -q "$SMALL" -o "$DIR/small.db")
ROWS="SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_event) + (SELECT count(*) FROM rocpd_arg)"
rows_tool=$(sqlite3 "$DIR/out.db" "$ROWS")
rows_floor=$(sqlite3 "$DIR/floor.db" "$ROWS")

bench_row etprof2db "ExecuTorch legacy buffer" "$N" "$tt" "$(stat -c %s "$IN")" "$rt" "$(ratio "$tt" "$tf")" '<=' 1.2 "x SQLite insert ceiling"
bench_row etprof2db "ExecuTorch legacy buffer" "$N" "$tt" "$(stat -c %s "$IN")" "$rt" "$((rt / 1024))" '<=' 64 "MB peak RSS"
echo "etprof2db on a legacy buffer of $N events ($((N / 1000)) iterations of 1000), median of $RUNS:"
echo "  ceiling: sqlite3 shell INSERT ... SELECT of the same rows ($rows_floor) into an empty hub: ${tf}s = $(rate "$N" "$tf") events/s"
echo "  etprof2db: ${tt}s = $(rate "$N" "$tt") events/s ($rows_tool rows), $(ratio "$tt" "$tf")x the ceiling (goal <= 1.2x)"
echo "  peak RSS: $((rs / 1024)) MB at $((N / 2 / 1000 * 1000)) events, $((rt / 1024)) MB at $N"
threads_row etprof2db "ExecuTorch legacy buffer" "$N" "$(stat -c %s "$IN")" -q "$IN" -o "$DIR/out.db"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$DIR"
