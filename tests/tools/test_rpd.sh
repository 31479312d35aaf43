#!/usr/bin/env bash
# rpd2db on the real rocmProfileData fixtures (schema 2) and on a schema 3
# file built here (ustring args, domains, counters, stack frames, node
# strides, several processes): every expected number is computed from the
# source RPD with sqlite3. Then the hub through db2json and db2perfetto
# (launch arrows), .rpd.gz, and bad input.
source "$(dirname "$0")/lib.sh"

sha() { sha256sum "$1" | cut -d' ' -f1; }
# Source queries shared by both fixtures.
OPS="SELECT o.*, t.string AS type, d.string AS descr FROM rocpd_op o
     JOIN rocpd_string t ON t.id = o.opType_id JOIN rocpd_string d ON d.id = o.description_id"
IS_COPY="(type GLOB 'Copy*' OR type = 'Memcpy')"
# Per op: its first launching call (NULL when none).
LINK="SELECT op_id, min(api_id) AS api_id FROM rocpd_api_ops GROUP BY op_id"
# Hub: kernels and copies as one list of (start, end, correlation).
HUB_GPU="SELECT k.start AS start, k.end AS end, e.correlation_id AS corr FROM rocpd_kernel_dispatch k
           JOIN rocpd_event e ON e.id = k.event_id
         UNION ALL SELECT m.start, m.end, e.correlation_id FROM rocpd_memory_copy m
           JOIN rocpd_event e ON e.id = m.event_id"

check_v2() {
  local name=$1 SRC=$2 OUT=$3
  local before; before=$(sha "$SRC")
  expect_ok "$name: rpd2db imports it" rpd2db -q "$SRC" -o "$OUT"
  expect_eq "$name: input unchanged" "$before" "$(sha "$SRC")"

  expect_eq "$name: regions = rocpd_api rows (no instant markers)" \
    "$(q "$SRC" "SELECT count(*) FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id
                 WHERE NOT (s.string = 'UserMarker' AND a.start = a.end)")" \
    "$(q "$OUT" "SELECT count(*) FROM rocpd_region")"
  expect_eq "$name: region names, times and threads as rocpd_api" \
    "$(q "$SRC" "SELECT sum(a.end - a.start) || '|' || min(a.start) || '|' || max(a.end) || '|' ||
                 count(DISTINCT a.pid || ':' || a.tid) || '|' || count(DISTINCT s.string)
                 FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id")" \
    "$(q "$OUT" "SELECT sum(r.end - r.start) || '|' || min(r.start) || '|' || max(r.end) || '|' ||
                 count(DISTINCT r.pid || ':' || r.tid) || '|' || count(DISTINCT n.string)
                 FROM rocpd_region r JOIN rocpd_string n ON n.id = r.name_id")"
  expect_eq "$name: most frequent API name and count" \
    "$(q "$SRC" "SELECT s.string || '|' || count(*) FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id
                 GROUP BY s.string ORDER BY count(*) DESC, s.string LIMIT 1")" \
    "$(q "$OUT" "SELECT n.string || '|' || count(*) FROM rocpd_region r JOIN rocpd_string n ON n.id = r.name_id
                 GROUP BY n.string ORDER BY count(*) DESC, n.string LIMIT 1")"
  expect_eq "$name: processes keep their pids" \
    "$(q "$SRC" "SELECT group_concat(pid) FROM (SELECT DISTINCT pid FROM rocpd_api ORDER BY pid)")" \
    "$(q "$OUT" "SELECT group_concat(pid) FROM (SELECT pid FROM rocpd_info_process ORDER BY pid)")"

  expect_eq "$name: KERNEL_DISPATCH = KernelExecution ops" \
    "$(q "$SRC" "SELECT count(*) FROM ($OPS) WHERE type = 'KernelExecution'")" \
    "$(cat_count "$OUT" KERNEL_DISPATCH kernel_dispatch)"
  expect_eq "$name: MEMORY_COPY = Copy* ops" \
    "$(q "$SRC" "SELECT count(*) FROM ($OPS) WHERE $IS_COPY")" \
    "$(cat_count "$OUT" MEMORY_COPY memory_copy)"
  expect_eq "$name: other ops are GPU work with their type as category" \
    "$(q "$SRC" "SELECT group_concat(type || '=' || n) FROM (SELECT type, count(*) n FROM ($OPS)
                 WHERE type != 'KernelExecution' AND NOT $IS_COPY GROUP BY type ORDER BY type)")" \
    "$(q "$OUT" "SELECT group_concat(c || '=' || n) FROM (SELECT s.string c, count(*) n FROM rocpd_kernel_dispatch k
                 JOIN rocpd_event e ON e.id = k.event_id JOIN rocpd_string s ON s.id = e.category_id
                 WHERE s.string != 'KERNEL_DISPATCH' GROUP BY s.string ORDER BY s.string)")"
  expect_eq "$name: kernel names and times = op descriptions and times" \
    "$(q "$SRC" "SELECT count(DISTINCT descr) || '|' || sum(end - start) || '|' || min(start)
                 FROM ($OPS) WHERE type = 'KernelExecution'")" \
    "$(q "$OUT" "SELECT count(DISTINCT s.kernel_name) || '|' || sum(k.end - k.start) || '|' || min(k.start)
                 FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id
                 JOIN rocpd_event e ON e.id = k.event_id JOIN rocpd_string c ON c.id = e.category_id
                 WHERE c.string = 'KERNEL_DISPATCH'")"
  expect_eq "$name: every op's (start, end, launching call id) as correlation" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT o.start || ':' || o.end || ':' || l.api_id x
                 FROM rocpd_op o LEFT JOIN ($LINK) l ON l.op_id = o.id ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT start || ':' || end || ':' || corr x
                 FROM ($HUB_GPU) ORDER BY 1)")"
  expect_eq "$name: launching calls carry their id as correlation, and only they" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT a.id || ':' || a.start x FROM rocpd_api a
                 WHERE a.id IN (SELECT api_id FROM rocpd_api_ops) ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT e.correlation_id || ':' || r.start x FROM rocpd_region r
                 JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL ORDER BY 1)")"
  expect_eq "$name: GPU work runs on its launching call's process and thread" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT o.start || ':' || a.pid || ':' || a.tid x FROM rocpd_op o
                 JOIN ($LINK) l ON l.op_id = o.id JOIN rocpd_api a ON a.id = l.api_id ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT start || ':' || pid || ':' || tid x FROM
                 (SELECT start, pid, tid FROM rocpd_kernel_dispatch UNION ALL SELECT start, pid, tid
                  FROM rocpd_memory_copy) ORDER BY 1)")"
  expect_eq "$name: GPU work on the queue 'GPU g queue q' the op names" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT 'GPU ' || gpuId || ' queue ' || queueId || '=' || count(*) x
                 FROM rocpd_op GROUP BY gpuId, queueId ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT q.name || '=' || count(*) x FROM
                 (SELECT queue_id FROM rocpd_kernel_dispatch UNION ALL SELECT queue_id FROM rocpd_memory_copy) g
                 JOIN rocpd_info_queue q ON q.id = g.queue_id GROUP BY q.name ORDER BY 1)")"
  # kernelapi: workgroup as recorded; grid in work-items (blocks x workgroup,
  # except the launches the tracer records in work-items already).
  expect_eq "$name: grid, workgroup and segment sizes from rocpd_kernelapi" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT o.start || ':' ||
                 (CASE WHEN n.string IN ('hipHccModuleLaunchKernel','hipExtModuleLaunchKernel') THEN k.gridX
                  ELSE k.gridX * k.workgroupX END) || 'x' ||
                 (CASE WHEN n.string IN ('hipHccModuleLaunchKernel','hipExtModuleLaunchKernel') THEN k.gridY
                  ELSE k.gridY * k.workgroupY END) || ':' || k.workgroupX || 'x' || k.workgroupY || 'x' ||
                 k.workgroupZ || ':' || k.groupSegmentSize || ':' || k.privateSegmentSize x
                 FROM rocpd_op o JOIN ($LINK) l ON l.op_id = o.id JOIN rocpd_kernelapi k ON k.api_ptr_id = l.api_id
                 JOIN rocpd_api a ON a.id = l.api_id JOIN rocpd_string n ON n.id = a.apiName_id ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT start || ':' || grid_size_x || 'x' || grid_size_y || ':' ||
                 workgroup_size_x || 'x' || workgroup_size_y || 'x' || workgroup_size_z || ':' ||
                 group_segment_size || ':' || private_segment_size x FROM rocpd_kernel_dispatch
                 WHERE grid_size_x IS NOT NULL ORDER BY 1)")"
  expect_eq "$name: copy bytes and addresses from rocpd_copyapi" \
    "$(q "$SRC" "SELECT count(*) || '|' || sum(CASE WHEN typeof(c.size) = 'integer' THEN c.size END) || '|' ||
                 sum(typeof(c.size) != 'integer') || '|' || sum(c.src = '') || '|' || count(DISTINCT c.dst)
                 FROM rocpd_op o JOIN ($LINK) l ON l.op_id = o.id JOIN rocpd_copyapi c ON c.api_ptr_id = l.api_id")" \
    "$(q "$OUT" "SELECT count(*) || '|' || sum(size) || '|' || sum(size IS NULL) || '|' || sum(src_address IS NULL) || '|' ||
                 count(DISTINCT dst_address) FROM rocpd_memory_copy")"
  expect_eq "$name: copy direction (host = CPU agent, device = the op's GPU)" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT type || '=' || count(*) x FROM ($OPS) WHERE $IS_COPY
                 GROUP BY type ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT k || '=' || count(*) x FROM (SELECT 'Copy' ||
                 (CASE s.type WHEN 'CPU' THEN 'Host' ELSE 'Device' END) || 'To' ||
                 (CASE d.type WHEN 'CPU' THEN 'Host' ELSE 'Device' END) k
                 FROM rocpd_memory_copy m JOIN rocpd_info_agent s ON s.id = m.src_agent_id
                 JOIN rocpd_info_agent d ON d.id = m.dst_agent_id) GROUP BY k ORDER BY k)")"
  expect_eq "$name: the API args string kept key by key (hipMalloc sizes)" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT substr(g.string, instr(g.string, 'size=') + 5) x
                 FROM rocpd_api a JOIN rocpd_string n ON n.id = a.apiName_id JOIN rocpd_string g ON g.id = a.args_id
                 WHERE n.string = 'hipMalloc' ORDER BY a.id)")" \
    "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT g.value x FROM rocpd_region r
                 JOIN rocpd_string n ON n.id = r.name_id JOIN rocpd_arg g ON g.event_id = r.event_id
                 WHERE n.string = 'hipMalloc' AND g.name = 'size' ORDER BY r.start)")"
  # Monitor: a sample per row at its start, plus one closing each interval
  # that the next row of its track does not start at (always the last).
  expect_eq "$name: monitor samples (values held over intervals): times and values" \
    "$(q "$SRC" "WITH m AS (SELECT start, end, value, LEAD(start) OVER (PARTITION BY deviceType, deviceId, monitorType
                 ORDER BY start, id) nx FROM rocpd_monitor)
                 SELECT count(*) || '|' || group_concat(x, ' ') FROM (SELECT x FROM
                 (SELECT start || ':' || printf('%.6g', CAST(value AS REAL)) x FROM m UNION ALL
                  SELECT end || ':' || printf('%.6g', CAST(value AS REAL)) FROM m
                  WHERE (nx IS NULL OR nx != end) AND end > start) ORDER BY x)")" \
    "$(q "$OUT" "SELECT count(*) || '|' || group_concat(x, ' ') FROM (SELECT s.timestamp || ':' ||
                 printf('%.6g', json_extract(s.extdata, '$.value')) x FROM rocpd_sample s
                 JOIN rocpd_track t ON t.id = s.track_id WHERE json_extract(t.extdata, '$.kind') = 'counter' ORDER BY x)")"
  expect_eq "$name: one counter track per device and monitor type" \
    "$(q "$SRC" "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT 'GPU_' || deviceId || '_' || monitorType x
                 FROM rocpd_monitor ORDER BY 1)")" \
    "$(q "$OUT" "SELECT group_concat(replace(s.string, ' ', '_'), ' ') FROM rocpd_track t
                 JOIN rocpd_string s ON s.id = t.name_id WHERE json_extract(t.extdata, '$.kind') = 'counter'")"
  expect_eq "$name: every rocpd_metadata row as rpd.<tag>" \
    "$(q "$SRC" "SELECT group_concat('rpd.' || tag || '=' || value, ' ') FROM rocpd_metadata")" \
    "$(q "$OUT" "SELECT group_concat(tag || '=' || value, ' ') FROM rocpd_metadata WHERE tag GLOB 'rpd.*'")"
}

SMALL="$FIX/rocm/rpd_matmul_result.rpd"
LARGE="$FIX/rocm/rpd_matmul_result_large.rpd"
check_v2 matmul "$SMALL" "$TMP/small.db"
check_v2 matmul_large "$LARGE" "$TMP/large.db"
# Ops interleaving more GPUs and queues (22) than the lanes rpd2db keeps
# (8, the most recent): every op still lands on its own queue and GPU.
cp "$SMALL" "$TMP/lanes.rpd"
sqlite3 "$TMP/lanes.rpd" "UPDATE rocpd_op SET queueId = id % 11, gpuId = gpuId + id % 2"
expect_eq "lanes: the input interleaves 22 queues" 22 \
  "$(q "$TMP/lanes.rpd" "SELECT count(DISTINCT gpuId || ':' || queueId) FROM rocpd_op")"
check_v2 lanes "$TMP/lanes.rpd" "$TMP/lanes.db"
expect_eq "lanes: each op's GPU agent is the one its queue names" 0 \
  "$(q "$TMP/lanes.db" "SELECT count(*) FROM (SELECT agent_id, queue_id FROM rocpd_kernel_dispatch
      UNION ALL SELECT CASE WHEN d.type = 'GPU' THEN m.dst_agent_id ELSE m.src_agent_id END, m.queue_id
      FROM rocpd_memory_copy m JOIN rocpd_info_agent d ON d.id = m.dst_agent_id) g
      JOIN rocpd_info_agent a ON a.id = g.agent_id JOIN rocpd_info_queue qu ON qu.id = g.queue_id
      WHERE qu.name NOT GLOB 'GPU ' || a.type_index || ' queue *'")"

# ------------------------------------------------------------ exporters
# db2json: one X per region and GPU op, a launch arrow (s + f) per call
# that launched GPU work, a C per monitor sample.
OUT="$TMP/small.db"
expect_ok "db2json exports the RPD hub" db2json -q "$OUT" -o "$TMP/small.json"
$PY "$ROOT/tests/checkers/json_stats.py" "$TMP/small.json" >"$TMP/small.stats"
expect_eq "db2json: X events = rocpd_api + rocpd_op rows" \
  "$(q "$SMALL" "SELECT (SELECT count(*) FROM rocpd_api) + (SELECT count(*) FROM rocpd_op)")" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/small.stats" "d['ph'].get('X', 0)")"
expect_eq "db2json: launch arrows = calls that launched GPU work, all paired" \
  "$(q "$SMALL" "SELECT count(DISTINCT api_id) FROM rocpd_api_ops")|0" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/small.stats" "'%d|%d' % (d['flows_paired'], d['flows_dangling'])")"
expect_eq "db2json: launch arrows start on the call's thread, end on the op's GPU" \
  "$(q "$SMALL" "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT a.id || ':' || a.tid x FROM rocpd_api a
                 JOIN rocpd_api_ops l ON l.api_id = a.id ORDER BY 1)")" \
  "$($PY -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(" ".join(sorted("%d:%d" % (e["id"], e["tid"]) for e in ev if e.get("ph") == "s")))' "$TMP/small.json")"
validate "db2json output: chrome-json-check" chrome-json-check "$TMP/small.json"
expect_ok "db2perfetto exports the RPD hub" db2perfetto -q "$OUT" -o "$TMP/small.pftrace"
pf=$(protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" \
       <"$TMP/small.pftrace" 2>&1)
expect_eq "db2perfetto: launch arrows (flow ids and their terminating ends)" \
  "$(q "$SMALL" "SELECT count(DISTINCT api_id) || '|' || count(DISTINCT api_id) FROM rocpd_api_ops")" \
  "$(grep -c '^ *flow_ids:' <<<"$pf")|$(grep -c '^ *terminating_flow_ids:' <<<"$pf")"
validate "db2perfetto output: pftrace-check" pftrace-check "$TMP/small.pftrace"
expect_fail "db2json on an RPD file says to use rpd2db" "RPD.*rpd2db" db2json "$SMALL" -o "$TMP/x.json"
expect_fail "db2perfetto on an RPD file says to use rpd2db" "RPD.*rpd2db" db2perfetto "$SMALL" -o "$TMP/x.pftrace"
expect_eq "nothing written for an RPD given to an exporter" "" "$(ls "$TMP"/x.* 2>/dev/null)"
gzip -c "$SMALL" >"$TMP/exp.rpd.gz"
expect_fail "db2json on an .rpd.gz says to use rpd2db" "exp\.rpd\.gz: .*gzipped RPD.*rpd2db" \
  db2json "$TMP/exp.rpd.gz" -o "$TMP/x.json"
expect_fail "kineto2db on an .rpd.gz says to use rpd2db" "exp\.rpd\.gz: .*gzipped RPD.*rpd2db" \
  kineto2db "$TMP/exp.rpd.gz" -o "$TMP/x.db"
expect_fail "rpd2db on a Kineto trace says to use kineto2db" "\.json\.gz: this is JSON or gzip.*kineto2db" \
  rpd2db "$FIX/kineto/hta_triton_example.json.gz" -o "$TMP/x.db"

# ---------------------------------------------------------------- .rpd.gz
gzip -c "$SMALL" >"$TMP/m.rpd.gz"
mkdir -p "$TMP/gz"
expect_ok "rpd2db reads .rpd.gz" rpd2db -q "$TMP/m.rpd.gz" -o "$TMP/gz/m.db"
expect_eq ".rpd.gz: same rows as the plain file" \
  "$(q "$TMP/small.db" "SELECT (SELECT count(*) FROM rocpd_region) || '|' || (SELECT count(*) FROM rocpd_kernel_dispatch) || '|' || (SELECT count(*) FROM rocpd_memory_copy) || '|' || (SELECT count(*) FROM rocpd_sample)")" \
  "$(q "$TMP/gz/m.db" "SELECT (SELECT count(*) FROM rocpd_region) || '|' || (SELECT count(*) FROM rocpd_kernel_dispatch) || '|' || (SELECT count(*) FROM rocpd_memory_copy) || '|' || (SELECT count(*) FROM rocpd_sample)")"
expect_eq ".rpd.gz: the temporary copy is gone" "m.db" "$(ls "$TMP/gz")"
head -c 5000 "$TMP/m.rpd.gz" >"$TMP/gz/cut.rpd.gz"
expect_fail "truncated .rpd.gz: message names the file and the byte" \
  "cut\.rpd\.gz: gzip data corrupt or truncated at compressed byte [0-9]+" \
  rpd2db "$TMP/gz/cut.rpd.gz" -o "$TMP/gz/cut.db"
expect_eq "truncated .rpd.gz: no output and no temporary left" "cut.rpd.gz m.db" "$(ls "$TMP/gz" | tr '\n' ' ' | sed 's/ $//')"

# ------------------------------------------------------ monitor rows only
# An RPD of GPU clocks alone (rocpd_monitor of 8 GPUs, no call, no GPU op),
# built from the fixture: its real sclk rows repeated for GPUs 1-7. The
# counters belong to the GPUs they name: a GPU agent each, their tracks on
# it, no placeholder process and no warning about GPU work.
MON="$TMP/monitor_only.rpd"
cp "$SMALL" "$MON"
sqlite3 "$MON" "DELETE FROM rocpd_api_ops; DELETE FROM rocpd_op; DELETE FROM rocpd_kernelapi;
  DELETE FROM rocpd_copyapi; DELETE FROM rocpd_api;
  WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 7)
  INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, \"end\", value)
  SELECT m.deviceType, g.n, m.monitorType, m.start + g.n, m.\"end\" + g.n, CAST(m.value + g.n AS TEXT)
  FROM rocpd_monitor m, g WHERE m.deviceId = 0"
expect_eq "monitor only: the input has monitor rows of 8 GPUs and nothing else" "8|0|0" \
  "$(q "$MON" "SELECT (SELECT count(DISTINCT deviceId) FROM rocpd_monitor) || '|' ||
      (SELECT count(*) FROM rocpd_op) || '|' || (SELECT count(*) FROM rocpd_api)")"
expect_eq "monitor only: imported without a warning" "" \
  "$(rpd2db "$MON" -o "$TMP/monitor_only.db" 2>&1 | grep -i 'warning')"
expect_eq "monitor only: no process made up" 0 \
  "$(q "$TMP/monitor_only.db" "SELECT count(*) FROM rocpd_info_process")"
expect_eq "monitor only: one GPU agent per GPU the rows name" \
  "$(q "$MON" "SELECT group_concat(deviceId, ' ') FROM (SELECT DISTINCT deviceId FROM rocpd_monitor ORDER BY 1)")" \
  "$(q "$TMP/monitor_only.db" "SELECT group_concat(type_index, ' ') FROM (SELECT type_index FROM rocpd_info_agent
      WHERE type = 'GPU' ORDER BY 1)")"
expect_eq "monitor only: each counter track on the agent of the GPU it names" \
  "$(q "$MON" "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT 'GPU_' || deviceId || '_' || monitorType || '@' || deviceId x
      FROM rocpd_monitor ORDER BY 1)")" \
  "$(q "$TMP/monitor_only.db" "SELECT group_concat(x, ' ') FROM (SELECT replace(n.string, ' ', '_') || '@' || a.type_index x
      FROM rocpd_track t JOIN rocpd_string n ON n.id = t.name_id
      JOIN rocpd_info_agent a ON a.id = json_extract(t.extdata, '$.agent_id')
      WHERE json_extract(t.extdata, '$.kind') = 'counter' ORDER BY 1)")"
MON_SAMPLES="WITH m AS (SELECT deviceId, start, end, value, LEAD(start) OVER (PARTITION BY deviceType, deviceId, monitorType
             ORDER BY start, id) nx FROM rocpd_monitor)
             SELECT count(*) || '|' || group_concat(x, ' ') FROM (SELECT x FROM
             (SELECT deviceId || ':' || start || ':' || printf('%.6g', CAST(value AS REAL)) x FROM m UNION ALL
              SELECT deviceId || ':' || end || ':' || printf('%.6g', CAST(value AS REAL)) FROM m
              WHERE (nx IS NULL OR nx != end) AND end > start) ORDER BY x)"
expect_eq "monitor only: samples (GPU, time, value) as the rows hold them" \
  "$(q "$MON" "$MON_SAMPLES")" \
  "$(q "$TMP/monitor_only.db" "SELECT count(*) || '|' || group_concat(x, ' ') FROM (SELECT a.type_index || ':' ||
      s.timestamp || ':' || printf('%.6g', json_extract(s.extdata, '$.value')) x FROM rocpd_sample s
      JOIN rocpd_track t ON t.id = s.track_id JOIN rocpd_info_agent a ON a.id = json_extract(t.extdata, '$.agent_id')
      WHERE json_extract(t.extdata, '$.kind') = 'counter' ORDER BY x)")"
expect_ok "monitor only: db2json exports it" db2json -q "$TMP/monitor_only.db" -o "$TMP/monitor_only.json"
expect_eq "monitor only: db2json draws each GPU's counter in that GPU's group" \
  "$(q "$MON" "$MON_SAMPLES" | cut -d'|' -f1)|$(q "$MON" \
     "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT 'GPU_' || deviceId || '/GPU_' || deviceId || '_' || monitorType x
      FROM rocpd_monitor ORDER BY 1)")" \
  "$($PY -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
group = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
c = [e for e in ev if e.get("ph") == "C"]
pairs = sorted({(group.get(e["pid"], "?") + "/" + e["name"]).replace(" ", "_") for e in c})
print("%d|%s" % (len(c), " ".join(pairs)))' "$TMP/monitor_only.json")"
validate "monitor only: db2json output: chrome-json-check" chrome-json-check "$TMP/monitor_only.json"
expect_ok "monitor only: db2perfetto exports it" db2perfetto -q "$TMP/monitor_only.db" -o "$TMP/monitor_only.pftrace"
validate "monitor only: db2perfetto output: pftrace-check" pftrace-check "$TMP/monitor_only.pftrace"

# ---------------------------------------------------- mangled kernel names
# HIP programs record kernels by their mangled names: the hub's symbol
# keeps the mangled name as kernel_name and shows it demangled (as
# c++filt from binutils prints it), the dispatch keeps it as arg
# mangledName. A name that does not demangle stays as it is, without the arg.
MANGLED_A='_Z32paged_attention_ll4mi_QKV_kernelIttLi128ELi16ELi256ELb0EEvPKT_Pf'
MANGLED_B='_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_'
NOT_MANGLED='_Zinvalid'
# Three kernel descriptions of the fixture (the lowest string ids of its
# KernelExecution ops) renamed; the kernelapi rows share those strings.
KDESC="SELECT DISTINCT o.description_id FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
       WHERE t.string = 'KernelExecution' ORDER BY 1 LIMIT 3"
cp "$SMALL" "$TMP/mangled.rpd"
read -r DA DB DC <<<"$(q "$SMALL" "SELECT group_concat(description_id, ' ') FROM ($KDESC)")"
sqlite3 "$TMP/mangled.rpd" "UPDATE rocpd_string SET string = CASE id WHEN $DA THEN '$MANGLED_A'
                            WHEN $DB THEN '$MANGLED_B' ELSE '$NOT_MANGLED' END WHERE id IN ($DA, $DB, $DC)"
expect_ok "mangled: rpd2db imports it" rpd2db -q "$TMP/mangled.rpd" -o "$TMP/mangled.db"
ops_of() { q "$TMP/mangled.rpd" "SELECT count(*) FROM rocpd_op WHERE description_id = $1"; }
expect_eq "mangled: symbols keep the mangled name, show c++filt's; dispatches carry it as mangledName" \
  "$MANGLED_A|$(c++filt <<<"$MANGLED_A")|$(ops_of "$DA") $MANGLED_B|$(c++filt <<<"$MANGLED_B")|$(ops_of "$DB") $NOT_MANGLED|$NOT_MANGLED|0" \
  "$(q "$TMP/mangled.db" "SELECT group_concat(x, ' ') FROM (SELECT s.kernel_name || '|' || s.display_name || '|' ||
      (SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_arg g ON g.event_id = k.event_id
       WHERE k.kernel_id = s.id AND g.name = 'mangledName' AND g.value = s.kernel_name) x
      FROM rocpd_info_kernel_symbol s WHERE s.kernel_name GLOB '_Z*' ORDER BY s.kernel_name)")"
expect_ok "mangled: db2json exports it" db2json -q "$TMP/mangled.db" -o "$TMP/mangled.json"
expect_eq "mangled: db2json names the dispatches by the demangled names" \
  "$(ops_of "$DA")|$(ops_of "$DB")|$(ops_of "$DC")" \
  "$($PY -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
n = lambda name: sum(1 for e in ev if e.get("ph") == "X" and e.get("name") == name)
print("%d|%d|%d" % (n(sys.argv[2]), n(sys.argv[3]), n(sys.argv[4])))' "$TMP/mangled.json" \
    "$(c++filt <<<"$MANGLED_A")" "$(c++filt <<<"$MANGLED_B")" "$NOT_MANGLED")"

# -------------------------------------------------------- schema version 3
# Built from rocmProfileData's v3 table definitions: two processes on node
# 1 (pid_stride 10000000), GPUs 0 and 1 of node 1 (gpu_stride 1000).
V3="$TMP/v3.rpd"
sqlite3 "$V3" <<'SQL'
CREATE TABLE rocpd_metadata (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, tag varchar(4096) NOT NULL, value varchar(4096) NOT NULL);
CREATE TABLE rocpd_string (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_ustring (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_api (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL, tid integer NOT NULL, start integer NOT NULL, "end" integer NOT NULL, apiName_id bigint NOT NULL, category_id bigint NOT NULL, domain_id bigint NOT NULL, args_id bigint NOT NULL);
CREATE TABLE rocpd_copyapi (api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL, size integer NOT NULL, width integer NOT NULL, height integer NOT NULL, kind integer NOT NULL, dst varchar(18) NOT NULL, src varchar(18) NOT NULL, dstDevice integer NOT NULL, srcDevice integer NOT NULL, sync bool NOT NULL, pinned bool NOT NULL);
CREATE TABLE rocpd_kernelapi (api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL, gridX integer NOT NULL, gridY integer NOT NULL, gridZ integer NOT NULL, workgroupX integer NOT NULL, workgroupY integer NOT NULL, workgroupZ integer NOT NULL, groupSegmentSize integer NOT NULL, privateSegmentSize integer NOT NULL, kernelName_id bigint NOT NULL);
CREATE TABLE rocpd_op (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL, queueId integer NOT NULL, sequenceId integer NOT NULL, start integer NOT NULL, "end" integer NOT NULL, description_id bigint NOT NULL, opType_id bigint NOT NULL);
CREATE TABLE rocpd_api_ops (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, api_id bigint NOT NULL, op_id bigint NOT NULL);
CREATE TABLE rocpd_monitor (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, deviceType varchar(16) NOT NULL, deviceId integer NOT NULL, monitorType varchar(16) NOT NULL, start integer NOT NULL, "end" integer NOT NULL, value varchar(255) NOT NULL);
CREATE TABLE rocpd_counter (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, value real NOT NULL, op_id bigint NOT NULL, name_id bigint NOT NULL);
CREATE TABLE rocpd_stackframe (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, api_ptr_id bigint NOT NULL, depth integer NOT NULL, name_id bigint NOT NULL);
INSERT INTO rocpd_metadata(tag, value) VALUES ('gpu_stride', '1000'), ('pid_stride', '10000000'), ('schema_version', '3');
INSERT INTO rocpd_string(id, string) VALUES (1, ''), (2, 'hip'), (3, 'UserMarker'), (4, 'hipLaunchKernel'),
  (5, 'hipMemcpyAsync'), (6, 'KernelExecution'), (7, 'CopyDeviceToDevice'), (8, 'my_kernel(float*)'),
  (9, 'Barrier'), (10, 'SQ_WAVES'), (11, 'main'), (12, 'train_step'), (13, 'hipExtModuleLaunchKernel'),
  (14, 'gemm_kernel'), (15, 'Memcpy'), (16, 'DeviceToHost'), (17, 'hipMemcpy');
INSERT INTO rocpd_ustring(id, string) VALUES (1, ''), (2, 'epoch 1'), (3, 'checkpoint'), (4, 'stream=0x0 | kernel=my_kernel');
-- pid 10004242 / 10004343 = node 1, pids 4242 and 4343
INSERT INTO rocpd_api VALUES
  (1, 10004242, 10004242, 1000, 9000, 3, 1, 3, 2),   -- roctx range "epoch 1"
  (2, 10004242, 10004242, 2000, 2500, 4, 1, 2, 4),   -- hipLaunchKernel -> op 1
  (3, 10004242, 10004244, 3000, 3400, 5, 1, 2, 1),   -- hipMemcpyAsync -> op 2 (DtoD), op 3 (Memcpy DtoH)
  (4, 10004242, 10004242, 5000, 5000, 3, 1, 3, 3),   -- roctx mark "checkpoint"
  (5, 10004343, 10004343, 2100, 2600, 13, 1, 2, 1),  -- hipExtModuleLaunchKernel -> op 4 on GPU 1
  (6, 10004343, 10004343, 6000, 6100, 17, 1, 2, 1);  -- hipMemcpy without an op
INSERT INTO rocpd_kernelapi VALUES (2, '0x0', 4, 2, 1, 64, 2, 1, 128, 16, 8), (5, '0x1', 1024, 1, 1, 256, 1, 1, 0, 0, 14);
INSERT INTO rocpd_copyapi VALUES (3, '0x0', 4096, 0, 0, 3, '0x7f0000001000', '0x7f0000002000', 1, 0, 0, 0),
  (6, '0x0', 64, 0, 0, 2, '0x20', '0x10', 0, 0, 1, 0);
INSERT INTO rocpd_op VALUES
  (1, 1000, 1000, 0, 2600, 4000, 8, 6),   -- node 1 GPU 0 queue 0
  (2, 1000, 1001, 0, 3500, 3900, 1, 7),   -- node 1 GPU 0 queue 1
  (3, 1000, 1001, 0, 3950, 3990, 16, 15), -- rocprofiler-sdk style Memcpy, kind from copyapi
  (4, 1001, 1000, 7, 2700, 4400, 14, 6),  -- node 1 GPU 1, launched by pid 4343
  (5, 1001, 1000, 0, 4500, 4600, 1, 9),   -- barrier on GPU 1: no call, GPU 1's process
  (6, 1002, 1000, 0, 4700, 4800, 1, 9);   -- barrier on GPU 2: no call, nobody's GPU
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (2, 1), (3, 2), (3, 3), (5, 4);
INSERT INTO rocpd_counter(value, op_id, name_id) VALUES (12.5, 1, 10), (3, 4, 10);
INSERT INTO rocpd_stackframe(api_ptr_id, depth, name_id) VALUES (2, 1, 12), (2, 0, 11);
INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, "end", value) VALUES
  ('gpu', 1000, 'sclk', 500, 1500, '800'), ('gpu', 1000, 'sclk', 1500, 3000, '1700'),
  ('gpu', 1000, 'sclk', 4000, 5000, '900');  -- a gap before the last interval
SQL
OUT="$TMP/v3.db"
expect_ok "v3: rpd2db imports a schema 3 file" rpd2db -q "$V3" -o "$OUT"
expect_eq "v3: pids decoded with pid_stride, node kept; placeholder process pid 0" \
  "0:-:rpd2db: GPU work without a launching call 4242:1: 4343:1:" \
  "$(q "$OUT" "SELECT group_concat(pid || ':' || COALESCE(json_extract(extdata, '$.rpd_node'), '-') || ':' ||
               COALESCE(command, ''), ' ') FROM (SELECT * FROM rocpd_info_process ORDER BY pid)")"
expect_eq "v3: tids decoded (the threads of the calls)" "4242:4242 4242:4244 4343:4343" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT pid || ':' || tid x FROM rocpd_region ORDER BY 1)")"
expect_eq "v3: GPUs decoded with gpu_stride (node in extdata)" "0:1 1:1 2:1" \
  "$(q "$OUT" "SELECT group_concat(type_index || ':' || json_extract(extdata, '$.rpd_node'), ' ')
               FROM (SELECT * FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY type_index)")"
expect_eq "v3: queues decoded" "GPU 0 queue 0|GPU 0 queue 1|GPU 1 queue 0|GPU 2 queue 0" \
  "$(q "$OUT" "SELECT group_concat(name, '|') FROM (SELECT DISTINCT name FROM rocpd_info_queue ORDER BY name)")"
expect_eq "v3: domain as category" "UserMarker=1 hip=4" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT c.string || '=' || count(*) x FROM rocpd_region r
               JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string c ON c.id = e.category_id
               GROUP BY c.string ORDER BY c.string)")"
expect_eq "v3: UserMarker range named by its label" "epoch 1|1000|9000|4242|4242" \
  "$(q "$OUT" "SELECT n.string || '|' || r.start || '|' || r.end || '|' || r.pid || '|' || r.tid FROM rocpd_region r
               JOIN rocpd_string n ON n.id = r.name_id JOIN rocpd_event e ON e.id = r.event_id
               JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'UserMarker'")"
expect_eq "v3: instant UserMarker as a sample named by its label" "checkpoint|5000|markers" \
  "$(q "$OUT" "SELECT json_extract(s.extdata, '$.name') || '|' || s.timestamp || '|' || n.string FROM rocpd_sample s
               JOIN rocpd_track t ON t.id = s.track_id JOIN rocpd_string n ON n.id = t.name_id
               WHERE json_extract(t.extdata, '$.kind') = 'marker'")"
expect_eq "v3: args from rocpd_ustring, key by key" \
  "kernel=my_kernel stream=0x0" \
  "$(q "$OUT" "SELECT group_concat(g.name || '=' || g.value, ' ') FROM (SELECT * FROM rocpd_arg ORDER BY name) g
               JOIN rocpd_region r ON r.event_id = g.event_id JOIN rocpd_string n ON n.id = r.name_id
               WHERE n.string = 'hipLaunchKernel' AND g.name IN ('kernel', 'stream', 'gridX')")"
expect_eq "v3: the launching call's kernelapi columns without a hub column go with its kernel" \
  "my_kernel(float*)|stream=0x0 gemm_kernel|stream=0x1" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT s.kernel_name || '|' || g.name || '=' || g.value x
               FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id
               JOIN rocpd_arg g ON g.event_id = k.event_id WHERE g.name = 'stream' ORDER BY k.start)")"
expect_eq "v3: a call that launched nothing keeps its copyapi row as args" \
  "hipMemcpy|dst=0x20 kind=2 size=64 src=0x10" \
  "$(q "$OUT" "SELECT n.string || '|' || (SELECT group_concat(g.name || '=' || g.value, ' ') FROM (SELECT * FROM
               rocpd_arg ORDER BY name) g WHERE g.event_id = r.event_id AND g.name IN ('size', 'kind', 'src', 'dst'))
               FROM rocpd_region r JOIN rocpd_string n ON n.id = r.name_id WHERE n.string = 'hipMemcpy'")"
expect_eq "v3: stack frames as args of the call" "stack[0]=main stack[1]=train_step" \
  "$(q "$OUT" "SELECT group_concat(g.name || '=' || g.value, ' ') FROM (SELECT * FROM rocpd_arg ORDER BY name) g
               JOIN rocpd_region r ON r.event_id = g.event_id JOIN rocpd_string n ON n.id = r.name_id
               WHERE n.string = 'hipLaunchKernel' AND g.name GLOB 'stack*'")"
expect_eq "v3: rocpd_counter values as args of their op" "2600:SQ_WAVES=12.5 2700:SQ_WAVES=3" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT k.start || ':' || g.name || '=' || g.value x
               FROM rocpd_kernel_dispatch k JOIN rocpd_arg g ON g.event_id = k.event_id
               WHERE g.name = 'SQ_WAVES' ORDER BY k.start)")"
expect_eq "v3: kernels: pid, tid, correlation, grid (blocks and work-items), workgroup" \
  "my_kernel(float*)|4242|4242|2|256x4|64x2|128|16 gemm_kernel|4343|4343|5|1024x1|256x1|0|0" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT s.kernel_name || '|' || k.pid || '|' || k.tid || '|' ||
               e.correlation_id || '|' || k.grid_size_x || 'x' || k.grid_size_y || '|' || k.workgroup_size_x || 'x' ||
               k.workgroup_size_y || '|' || k.group_segment_size || '|' || k.private_segment_size x
               FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id
               JOIN rocpd_event e ON e.id = k.event_id WHERE e.correlation_id IS NOT NULL ORDER BY k.start)")"
expect_eq "v3: copies: names, direction (op type, else hipMemcpyKind), bytes, addresses" \
  "CopyDeviceToDevice|GPU>GPU|4096|139637976735744|139637976731648|3 DeviceToHost|GPU>GPU|4096|139637976735744|139637976731648|3" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT n.string || '|' || s.type || '>' || d.type || '|' || m.size || '|' ||
               m.src_address || '|' || m.dst_address || '|' || e.correlation_id x FROM rocpd_memory_copy m
               JOIN rocpd_string n ON n.id = m.name_id JOIN rocpd_event e ON e.id = m.event_id
               JOIN rocpd_info_agent s ON s.id = m.src_agent_id JOIN rocpd_info_agent d ON d.id = m.dst_agent_id
               ORDER BY m.start)")"
expect_eq "v3: unlinked ops go to their GPU's process, else the stated placeholder (pid 0)" \
  "Barrier|4500|4343|GPU 1 queue 0 Barrier|4700|0|GPU 2 queue 0" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') FROM (SELECT c.string || '|' || k.start || '|' || k.pid || '|' || q.name x
               FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
               JOIN rocpd_string c ON c.id = e.category_id JOIN rocpd_info_queue q ON q.id = k.queue_id
               WHERE e.correlation_id IS NULL ORDER BY k.start)")"
expect_eq "v3: monitor: samples at 500 1500 3000(gap) 4000 5000(last)" "500:800 1500:1700 3000:1700 4000:900 5000:900|GPU 0 sclk" \
  "$(q "$OUT" "SELECT group_concat(x, ' ') || '|' || (SELECT group_concat(n.string) FROM rocpd_track t
               JOIN rocpd_string n ON n.id = t.name_id WHERE json_extract(t.extdata, '$.kind') = 'counter')
               FROM (SELECT s.timestamp || ':' || CAST(json_extract(s.extdata, '$.value') AS INTEGER) x
               FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id
               WHERE json_extract(t.extdata, '$.kind') = 'counter' ORDER BY s.timestamp)")"
expect_ok "v3: db2json exports it" db2json -q "$OUT" -o "$TMP/v3.json"
$PY "$ROOT/tests/checkers/json_stats.py" "$TMP/v3.json" >"$TMP/v3.stats"
expect_eq "v3: db2json launch arrows: one per launched op (hipMemcpyAsync has two), all paired" \
  "$(q "$V3" "SELECT count(*) FROM rocpd_api_ops")|0" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/v3.stats" "'%d|%d' % (d['flows_paired'], d['flows_dangling'])")"
expect_ok "v3: db2perfetto exports it" db2perfetto -q "$OUT" -o "$TMP/v3.pftrace"

# Two nodes sharing a pid and a GPU index: nothing may merge.
cp "$V3" "$TMP/v3b.rpd"
sqlite3 "$TMP/v3b.rpd" "UPDATE rocpd_api SET pid = 20004242, tid = 20004242 WHERE id = 5;
                        UPDATE rocpd_op SET gpuId = 2000 WHERE id IN (4, 5)"
expect_ok "v3, two nodes: imports" rpd2db -q "$TMP/v3b.rpd" -o "$TMP/v3b.db"
expect_eq "v3, two nodes sharing pid 4242 and GPU 0: ids stay encoded, nothing merges" \
  "10004242 10004343 20004242|1000 1002 2000" \
  "$(q "$TMP/v3b.db" "SELECT (SELECT group_concat(pid, ' ') FROM (SELECT pid FROM rocpd_info_process WHERE pid > 0 ORDER BY pid))
               || '|' || (SELECT group_concat(type_index, ' ') FROM (SELECT type_index FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY 1))")"

# A call whose args string is missing from rocpd_ustring: kept without args, said once.
cp "$V3" "$TMP/v3c.rpd"
sqlite3 "$TMP/v3c.rpd" "UPDATE rocpd_api SET args_id = 99 WHERE id = 2"
expect_eq "v3: a dangling args id: imported without args, one warning" \
  "rpd2db: warning: $TMP/v3c.rpd: 1 rocpd_api rows name an args string missing from rocpd_ustring: imported without args|0" \
  "$(rpd2db "$TMP/v3c.rpd" -o "$TMP/v3c.db" 2>&1 | grep args)|$(q "$TMP/v3c.db" "SELECT count(*) FROM rocpd_arg g
     JOIN rocpd_region r ON r.event_id = g.event_id JOIN rocpd_string n ON n.id = r.name_id
     WHERE n.string = 'hipLaunchKernel' AND g.name = 'kernel'")"

# ------------------------------------------------------------- bad input
mkdir -p "$TMP/bad"
cd "$TMP/bad" || exit 1
bad_case() { # DESC PATTERN INPUT
  expect_fail "$1" "$2" rpd2db "$3" -o "$TMP/bad/out.db"
  expect_eq "$1: no output left" "" "$(ls "$TMP/bad" | grep -v '\.rpd$' | grep -v '\.txt$')"
}
echo "hello, not a database" >"$TMP/bad/text.txt"
bad_case "not an RPD (a text file)" "text\.txt: not a SQLite database \(byte 0: no SQLite header\)" "$TMP/bad/text.txt"
head -c 50000 "$SMALL" >"$TMP/bad/cut.rpd"
bad_case "truncated RPD" "cut\.rpd: truncated: 50000 bytes, the SQLite header says 98304" "$TMP/bad/cut.rpd"
cp "$SMALL" "$TMP/bad/noops.rpd"; sqlite3 "$TMP/bad/noops.rpd" "DROP TABLE rocpd_api_ops"
bad_case "missing table" "noops\.rpd: not a complete RPD file: missing table rocpd_api_ops" "$TMP/bad/noops.rpd"
sqlite3 "$TMP/bad/empty.rpd" "CREATE TABLE t(x)"
bad_case "SQLite but not RPD" "empty\.rpd: not an RPD file: no rocpd_api or rocpd_op table" "$TMP/bad/empty.rpd"
cp "$TMP/small.db" "$TMP/bad/hub.rpd"
bad_case "a hub is not an RPD" "hub\.rpd: this is a rocpd hub database, not an input of rpd2db: use db2json" "$TMP/bad/hub.rpd"
cp "$SMALL" "$TMP/bad/v9.rpd"; sqlite3 "$TMP/bad/v9.rpd" "UPDATE rocpd_metadata SET value = '9' WHERE tag = 'schema_version'"
bad_case "unknown schema version" "v9\.rpd: RPD schema_version 9 .*reads versions 2 and 3" "$TMP/bad/v9.rpd"
cp "$V3" "$TMP/bad/nou.rpd"; sqlite3 "$TMP/bad/nou.rpd" "DROP TABLE rocpd_ustring"
bad_case "v3 without rocpd_ustring" "nou\.rpd: RPD schema_version 3 without its table rocpd_ustring" "$TMP/bad/nou.rpd"
cp "$SMALL" "$TMP/bad/dangling.rpd"; sqlite3 "$TMP/bad/dangling.rpd" "UPDATE rocpd_api SET apiName_id = 999 WHERE id = 7"
bad_case "dangling string id" "dangling\.rpd: table rocpd_api row id 7: apiName_id 999 is not in rocpd_string" "$TMP/bad/dangling.rpd"
cp "$V3" "$TMP/bad/stride.rpd"; sqlite3 "$TMP/bad/stride.rpd" "UPDATE rocpd_metadata SET value = 'x' WHERE tag = 'pid_stride'"
bad_case "bad stride" "stride\.rpd: rocpd_metadata pid_stride = 'x': not a positive integer" "$TMP/bad/stride.rpd"
cd "$ROOT" || exit 1
