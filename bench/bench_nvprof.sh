#!/usr/bin/env bash
# nvvp2db throughput: builds an nvprof-shaped database (StringTable, N
# runtime calls, N concurrent kernels linked by correlationId, the
# correlationId indexes nvprof creates) with one sqlite3 recursive CTE,
# imports it and reports events/s and peak RSS. Usage:
#   BUILD=build bash bench/bench_nvprof.sh [N]      (N defaults to 1000000)
#   BENCH_EVENTS=E  2N events instead (make check runs it tiny)
#   BENCH_RUNS=N    runs each, taking turns with the ceiling (median; default 3)
# Besides the sqlite3 shell dumping the rows, the ceiling is SQLite itself
# writing the same rows into an empty hub (INSERT ... SELECT).
set -eu
source "$(dirname "$0")/lib.sh"
N=${1:-${BENCH_NVPROF_KERNELS:-$(( ${BENCH_EVENTS:-2000000} / 2 ))}}
TOOL="$BIN/nvvp2db"
[ -x "$TOOL" ] || { echo "bench_nvprof: build $TOOL first (make tools)" >&2; exit 1; }
DIR="$WORK/nvprof"
mkdir -p "$DIR"
IN="$DIR/bench.nvvp"

# make_input N PATH: the source database with N of each row (also used at
# BENCH_SCALE x N by scale_row below).
make_input() {
  local N=$1 IN=$2
  rm -f "$IN"
  sqlite3 "$IN" >/dev/null <<SQL
PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);
CREATE TABLE Version(version INTEGER);
INSERT INTO Version VALUES (14);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL,
  correlationId INT NOT NULL, returnValue INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY AUTOINCREMENT,
  cacheConfig BLOB NOT NULL, sharedMemoryConfig INT NOT NULL, registersPerThread INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, completed INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, gridX INT NOT NULL, gridY INT NOT NULL,
  gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL, blockZ INT NOT NULL,
  staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL,
  localMemoryPerThread INT NOT NULL, localMemoryTotal INT NOT NULL, correlationId INT NOT NULL,
  gridId INT NOT NULL, name INT NOT NULL);
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 64)
INSERT INTO StringTable(_id_, value) SELECT n, '_Z6kernelILi' || n || 'EEvPfi' FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, threadId, correlationId, returnValue)
SELECT 211, 1600000000000000000 + n * 5000, 1600000000000000000 + n * 5000 + 3000, 4242,
       -1234567 - (n % 4), n, 0 FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(cacheConfig, sharedMemoryConfig,
  registersPerThread, start, end, completed, deviceId, contextId, streamId, gridX, gridY, gridZ,
  blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,
  localMemoryTotal, correlationId, gridId, name)
SELECT x'00', 0, 32, 1600000000000000000 + n * 5000 + 4000, 1600000000000000000 + n * 5000 + 4900,
       1600000000000000000 + n * 5000 + 4900, 0, 1, 7 + n % 8, 128, 1, 1, 256, 1, 1, 0, 1024, 0,
       0, n, n, 1 + n % 64 FROM i;
CREATE INDEX INDEX_CUPTI_ACTIVITY_KIND_RUNTIME ON CUPTI_ACTIVITY_KIND_RUNTIME(correlationId);
CREATE INDEX INDEX_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ON CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(correlationId);
SQL
}
make_input "$N" "$IN"
events=$((2 * N))
read -r tb rb < <(measure sqlite3 -batch "$IN" "SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME; SELECT * FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;")
"$TOOL" -q "$IN" -o "$DIR/out.db" # the schema for the ceiling below

# SQLite's own ceiling for writing these rows: the sqlite3 shell filling an
# empty hub (the same schema and indexes, taken from nvvp2db's output) with
# INSERT ... SELECT from the attached source, the same rows and extdata
# (json_object) but no launch lookup: no bind/step per row, no C code.
U=$(hub_uuid "$DIR/out.db")
ceiling_script "$DIR/out.db" "$IN" "$DIR/floor.sql" <<SQL
INSERT INTO rocpd_event$U(category_id, stack_id, correlation_id, extdata)
  SELECT 1, _id_, correlationId, '{}' FROM s.CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO rocpd_region$U(nid, pid, tid, start, end, name_id, event_id, extdata)
  SELECT 1, processId, threadId & 4294967295, start, end, 2, _id_,
         json_object('cbid', cbid, 'correlationId', correlationId, 'returnValue', returnValue)
  FROM s.CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO rocpd_event$U(category_id, stack_id, correlation_id, extdata)
  SELECT 3, _id_, correlationId, '{}' FROM s.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
INSERT INTO rocpd_kernel_dispatch$U(nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,
  stream_id, start, end, private_segment_size, group_segment_size, workgroup_size_x,
  workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id,
  event_id, extdata)
  SELECT 1, 4242, 1, 1, name, correlationId, NULL, streamId, start, end, localMemoryPerThread,
         staticSharedMemory + dynamicSharedMemory, blockX, blockY, blockZ, gridX * blockX,
         gridY * blockY, gridZ * blockZ, NULL, _id_ + $N,
         json_object('cacheConfig', lower(hex(cacheConfig)), 'sharedMemoryConfig', sharedMemoryConfig,
           'registersPerThread', registersPerThread, 'completed', completed, 'contextId', contextId,
           'gridX', gridX, 'gridY', gridY, 'gridZ', gridZ, 'staticSharedMemory', staticSharedMemory,
           'dynamicSharedMemory', dynamicSharedMemory, 'localMemoryTotal', localMemoryTotal,
           'gridId', gridId)
  FROM s.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
SQL
vs_ceiling "$DIR/floor.db" "$DIR/floor.sql" "$TOOL" -q "$IN" -o "$DIR/out.db"
tt=$TOOL_S tf=$CEIL_S rt=$TOOL_KIB

ceiling_rows nvvp2db "nvprof-shaped .nvvp" "$events" 0
echo "nvvp2db on $N kernels + $N runtime calls ($events events), median of $RUNS:"
echo "  baseline sqlite3 shell dumping the same rows: ${tb}s"
echo "  ceiling: sqlite3 shell INSERT ... SELECT of the same rows into an empty hub: ${tf}s = $(rate "$events" "$tf") events/s"
echo "  nvvp2db: ${tt}s = $(rate "$events" "$tt") events/s ($(ratio "$tt" "$tb")x the dump, $(ratio "$tt" "$tf")x the ceiling), peak RSS $((rt / 1024)) MB, output $(( $(stat -c %s "$DIR/out.db") / 1048576 )) MB"
threads_row nvvp2db "nvprof-shaped .nvvp" "$events" 0 -q "$IN" -o "$DIR/out.db"
# Memory does not grow with the events: the same shape at BENCH_SCALE x N.
make_input $((N * SCALE)) "$DIR/big.nvvp"
scale_input_row nvvp2db "nvprof-shaped .nvvp" "$events" "$rt" $((events * SCALE)) "$DIR/big.nvvp"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$DIR"
