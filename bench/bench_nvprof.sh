#!/usr/bin/env bash
# nvvp2db throughput: builds an nvprof-shaped database (StringTable, N
# runtime calls, N concurrent kernels linked by correlationId, the
# correlationId indexes nvprof creates) with one sqlite3 recursive CTE,
# imports it and reports events/s and peak RSS. Usage:
#   BUILD=build bash bench/bench_nvprof.sh [N]      (N defaults to 1000000)
set -eu
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
N=${1:-1000000}
TOOL="$BUILD/bin/nvvp2db"
[ -x "$TOOL" ] || { echo "bench_nvprof: build $TOOL first (make tools)" >&2; exit 1; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/tt-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
IN="$DIR/bench.nvvp"

t0=$(date +%s.%N)
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
t1=$(date +%s.%N)
events=$((2 * N))

# Peak RSS: GNU time when present, else VmHWM sampled from /proc.
if [ -x /usr/bin/time ] && /usr/bin/time -v true 2>/dev/null; then
  s=$(date +%s.%N)
  /usr/bin/time -v "$TOOL" -q "$IN" -o "$DIR/out.db" 2> "$DIR/time.txt"
  e=$(date +%s.%N)
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$DIR/time.txt")
else
  s=$(date +%s.%N)
  "$TOOL" -q "$IN" -o "$DIR/out.db" & pid=$!
  rss_kb=0
  while kill -0 $pid 2>/dev/null; do
    v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    [ -n "$v" ] && [ "$v" -gt "$rss_kb" ] && rss_kb=$v
    sleep 0.05
  done
  wait $pid
  e=$(date +%s.%N)
fi
secs=$(echo "$e - $s" | bc -l)
printf 'bench_nvprof: generated %d kernels + %d runtime calls in %.1f s (%s MB)\n' "$N" "$N" \
  "$(echo "$t1 - $t0" | bc -l)" "$(( $(stat -c %s "$IN") / 1048576 ))"
printf 'bench_nvprof: nvvp2db %d events in %.2f s = %.0f events/s, peak RSS %d MB, output %d MB\n' \
  "$events" "$secs" "$(echo "$events / $secs" | bc -l)" "$((rss_kb / 1024))" \
  "$(( $(stat -c %s "$DIR/out.db") / 1048576 ))"
