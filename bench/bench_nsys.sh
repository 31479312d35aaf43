#!/usr/bin/env bash
# nsys2db throughput: builds an Nsight Systems export (the bundled
# fixture's table definitions; a process, N CUDA runtime calls on two
# threads and N kernels on 8 streams linked by correlationId, as nsys
# writes them: no index on correlationId) with sqlite3 recursive CTEs,
# imports it and compares with SQLite's own ceiling. Usage:
#   BUILD=build bash bench/bench_nsys.sh [N]      (N defaults to 1000000)
#   BENCH_EVENTS=E  2N events instead (make check runs it tiny)
#   BENCH_RUNS=N    runs each, taking turns with the ceiling (median; default 3)
set -eu
source "$(dirname "$0")/lib.sh"
N=${1:-${BENCH_NSYS_KERNELS:-$(( ${BENCH_EVENTS:-2000000} / 2 ))}}
TOOL="$BIN/nsys2db"
[ -x "$TOOL" ] || { echo "bench_nsys: build $TOOL first (make tools)" >&2; exit 1; }
DIR="$WORK/nsys"
mkdir -p "$DIR"
IN="$DIR/bench.sqlite"
rm -f "$IN"
tables_schema "$ROOT/fixtures/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" >"$DIR/schema.sql"
# globalTid = pid << 24 | tid, as nsys serializes it.
# make_input N PATH: the source database with N of each row (also used at
# BENCH_SCALE x N by scale_row below).
make_input() {
  local N=$1 IN=$2
  rm -f "$IN"
  sqlite3 "$IN" >/dev/null <<SQL
PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
.read $DIR/schema.sql
INSERT INTO TARGET_INFO_SESSION_START_TIME(utcEpochNs, utcTime, localTime)
  VALUES (1600000000000000000, '2020-09-13T12:26:40', '2020-09-13T12:26:40');
INSERT INTO PROCESSES(globalPid, pid, name) VALUES (4242 << 24, 4242, 'bench');
INSERT INTO StringIds(id, value) VALUES (1, 'cudaLaunchKernel_v7000');
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 64)
INSERT INTO StringIds(id, value) SELECT 100 + n, 'void kernel_' || n || '<float>(float*, int)' FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 64)
INSERT INTO StringIds(id, value) SELECT 200 + n, 'kernel_' || n FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId, returnValue)
SELECT n * 5000, n * 5000 + 3000, 0, (4242 << 24) + 4242 + n % 2, n, 1, 0 FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId,
  globalPid, demangledName, shortName, mangledName, launchType, cacheConfig, registersPerThread,
  gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,
  localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId,
  sharedMemoryLimitConfig)
SELECT n * 5000 + 4000, n * 5000 + 4900, 0, 1, 7 + n % 8, n, 4242 << 24, 101 + n % 64, 201 + n % 64,
  NULL, 1, 1, 32, 128, 1, 1, 256, 1, 1, 0, 1024, 0, 0, n, 16384, NULL, 0 FROM i;
SQL
}
make_input "$N" "$IN"
events=$((2 * N))
"$TOOL" -q "$IN" -o "$DIR/out.db" # the schema for the ceiling below

# SQLite's own ceiling: the same rows (events, regions with their extdata,
# kernels with their launching thread found by correlation id, as nsys2db
# does) written by INSERT ... SELECT into an empty hub with the same schema.
U=$(hub_uuid "$DIR/out.db")
ceiling_script "$DIR/out.db" "$IN" "$DIR/floor.sql" <<SQL
INSERT INTO rocpd_event$U(category_id, stack_id, correlation_id, extdata)
  SELECT 1, correlationId, correlationId, '{}' FROM s.CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO rocpd_region$U(nid, pid, tid, start, end, name_id, event_id, extdata)
  SELECT 1, (globalTid >> 24) & 16777215, globalTid & 16777215, 1600000000000000000 + start,
         1600000000000000000 + end, 2, rowid,
         json_object('eventClass', eventClass, 'correlationId', correlationId,
           'returnValue', returnValue, 'nsysName', 'cudaLaunchKernel_v7000')
  FROM s.CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO rocpd_event$U(category_id, stack_id, correlation_id, extdata)
  SELECT 3, correlationId, correlationId, '{}' FROM s.CUPTI_ACTIVITY_KIND_KERNEL;
INSERT INTO rocpd_kernel_dispatch$U(nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,
  stream_id, start, end, private_segment_size, group_segment_size, workgroup_size_x,
  workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id,
  event_id, extdata)
  SELECT 1, (k.globalPid >> 24) & 16777215, a.g & 16777215, 1, (k.demangledName - 38) % 64 + 1,
         k.correlationId, k.streamId % 8 + 1, k.streamId % 8 + 1, 1600000000000000000 + k.start,
         1600000000000000000 + k.end, k.localMemoryPerThread,
         k.staticSharedMemory + k.dynamicSharedMemory, k.blockX, k.blockY, k.blockZ,
         k.gridX * k.blockX, k.gridY * k.blockY, k.gridZ * k.blockZ, 4, k.rowid + $N,
         json_object('shortName', sn.value, 'contextId', k.contextId, 'launchType', k.launchType,
           'cacheConfig', k.cacheConfig, 'registersPerThread', k.registersPerThread,
           'gridX', k.gridX, 'gridY', k.gridY, 'gridZ', k.gridZ,
           'staticSharedMemory', k.staticSharedMemory, 'dynamicSharedMemory', k.dynamicSharedMemory,
           'localMemoryTotal', k.localMemoryTotal, 'gridId', k.gridId,
           'sharedMemoryExecuted', k.sharedMemoryExecuted,
           'sharedMemoryLimitConfig', k.sharedMemoryLimitConfig)
  FROM s.CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN s.StringIds sn ON sn.id = k.shortName
  LEFT JOIN (SELECT globalTid >> 24 AS gp, correlationId AS cid, min(globalTid) AS g
             FROM s.CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1, 2) a
    ON a.gp = k.globalPid >> 24 AND a.cid = k.correlationId;
SQL
vs_ceiling "$DIR/floor.db" "$DIR/floor.sql" "$TOOL" -q "$IN" -o "$DIR/out.db"
tt=$TOOL_S tf=$CEIL_S rt=$TOOL_KIB

ceiling_rows nsys2db "nsys-shaped .sqlite" "$events" 0
echo "nsys2db on $N kernels + $N runtime calls ($events events), median of $RUNS:"
echo "  ceiling: sqlite3 shell INSERT ... SELECT of the same rows into an empty hub: ${tf}s = $(rate "$events" "$tf") events/s"
echo "  nsys2db: ${tt}s = $(rate "$events" "$tt") events/s ($(ratio "$tt" "$tf")x the ceiling), peak RSS $((rt / 1024)) MB, output $(( $(stat -c %s "$DIR/out.db") / 1048576 )) MB"
threads_row nsys2db "nsys-shaped .sqlite" "$events" 0 -q "$IN" -o "$DIR/out.db"
# Memory does not grow with the events: the same shape at BENCH_SCALE x N.
make_input $((N * SCALE)) "$DIR/big.sqlite"
scale_input_row nsys2db "nsys-shaped .sqlite" "$events" "$rt" $((events * SCALE)) "$DIR/big.sqlite"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$DIR"
