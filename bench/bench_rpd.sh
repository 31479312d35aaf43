#!/usr/bin/env bash
# RPD -> Chrome JSON: rpd2db + db2json against rocmProfileData's own
# converter, tools/rpd2tracing.py, on one generated RPD (schema 2, the
# bundled fixture's tables: N launches, each an API call, its op, the
# api_ops link and a kernelapi row; every 4th a copy with its copyapi row;
# N/100 monitor rows). Usage:
#   RPD2TRACING=path/to/rpd2tracing.py BUILD=build bash bench/bench_rpd.sh [N]
#   (N defaults to 200000; BENCH_RUNS=N best of N runs, default 3)
# Without RPD2TRACING the row is skipped with a note: rpd2tracing.py is not
# part of this project (git clone https://github.com/ROCm/rocmProfileData).
set -eu
source "$(dirname "$0")/lib.sh"
N=${1:-${BENCH_RPD_OPS:-200000}}
RUNS=${BENCH_RUNS:-3}
if [ -z "${RPD2TRACING:-}" ] || [ ! -f "${RPD2TRACING:-}" ]; then
  echo "bench_rpd: skipped: set RPD2TRACING=path/to/rpd2tracing.py (rocmProfileData's tools/) to compare"
  exit 0
fi
for t in rpd2db db2json; do
  [ -x "$BIN/$t" ] || { echo "bench_rpd: build $BIN/$t first (make tools)" >&2; exit 1; }
done
DIR="$WORK/rpd"
mkdir -p "$DIR"
IN="$DIR/bench.rpd"
rm -f "$IN"
# The fixture's own table definitions (its views left out), then the rows.
sqlite3 "$ROOT/fixtures/rocm/rpd_matmul_result.rpd" .schema |
  grep -v -e '^CREATE TABLE sqlite_sequence' -e '^CREATE VIEW' -e '^/\*' >"$DIR/schema.sql"
sqlite3 "$IN" >/dev/null <<SQL
PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
.read $DIR/schema.sql
INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rocpd_string(id, string) VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'hipMemcpyAsync'),
  (4, 'KernelExecution'), (5, 'CopyHostToDevice');
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 64)
INSERT INTO rocpd_string(id, string) SELECT 100 + n, 'void kernel_' || n || '<float>(float*, int)' FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id)
SELECT n, 4242, 4242 + n % 2, 1600000000000000000 + n * 5000, 1600000000000000000 + n * 5000 + 3000,
       CASE WHEN n % 4 = 0 THEN 3 ELSE 2 END, 1 FROM i;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, completionSignal, start, end, description_id, opType_id)
SELECT n, n % 2, 0, 0, '', 1600000000000000000 + n * 5000 + 4000, 1600000000000000000 + n * 5000 + 4900,
       CASE WHEN n % 4 = 0 THEN 1 ELSE 101 + n % 64 END, CASE WHEN n % 4 = 0 THEN 5 ELSE 4 END FROM i;
INSERT INTO rocpd_api_ops(api_id, op_id) SELECT id, id FROM rocpd_op;
INSERT INTO rocpd_kernelapi SELECT id, '0x0', 128, 1, 1, 256, 1, 1, 0, 0, '', '', '', '', 101 + id % 64
  FROM rocpd_api WHERE id % 4 != 0;
INSERT INTO rocpd_copyapi SELECT id, '0x0', 4096, '', '', 1, '0x7f0000001000', '0x7f0000002000', 0, 0, 0, 0
  FROM rocpd_api WHERE id % 4 = 0;
INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, end, value)
SELECT 'gpu', 0, 'sclk', 1600000000000000000 + id * 500000, 1600000000000000000 + (id + 1) * 500000, 800 + id % 900
  FROM rocpd_api WHERE id <= $N / 100;
SQL
tt=; tr=; rt=0; rr=0
for _ in $(seq "$RUNS"); do
  rm -f "$DIR/hub.db" "$DIR/ours.json"
  read -r t1 r1 < <(measure "$BIN/rpd2db" -q "$IN" -o "$DIR/hub.db")
  read -r t2 r2 < <(measure "$BIN/db2json" -q "$DIR/hub.db" -o "$DIR/ours.json")
  tt=$(best "$tt" "$($PY -c "import sys; print('%.3f' % (float(sys.argv[1]) + float(sys.argv[2])))" "$t1" "$t2")")
  [ "$r1" -gt "$rt" ] && rt=$r1; [ "$r2" -gt "$rt" ] && rt=$r2
  cp "$IN" "$DIR/theirs.rpd" # rpd2tracing.py opens its input read-write (a TEMP view)
  read -r t r < <(measure "$PY" "$RPD2TRACING" "$DIR/theirs.rpd" "$DIR/theirs.json")
  tr=$(best "$tr" "$t"); [ "$r" -gt "$rr" ] && rr=$r
done
echo "RPD -> Chrome JSON on $N ops + $N API calls + $((N / 100)) monitor rows, best of $RUNS:"
echo "  rpd2tracing.py: ${tr}s, peak RSS $((rr / 1024)) MB, output $(( $(stat -c %s "$DIR/theirs.json") / 1048576 )) MB"
echo "  rpd2db + db2json: ${tt}s, peak RSS $((rt / 1024)) MB, output $(( $(stat -c %s "$DIR/ours.json") / 1048576 )) MB"
echo "  rpd2db + db2json take $(ratio "$tt" "$tr")x the time of rpd2tracing.py (the issue asks for <= 0.10x)"
[ -n "${BENCH_KEEP:-}" ] || rm -rf "$DIR"
