#!/usr/bin/env bash
# A multi-node job: one hub per rank, ranks on two hosts with the same pid,
# each with its GPU 0 and stream 7 and the same correlation ids. Every
# exporter keeps the two GPUs apart (a device is (host, process, index)),
# named with host and rank, and every arrow joins a launch and a kernel of
# one rank, whether the hubs are read together or merged by dbmerge.
source "$(dirname "$0")/lib.sh"

# --- two Kineto ranks: nodeA rank 0, nodeB rank 4 ---------------------------
# Both: pid 1234 (its main thread 1111 on nodeA, 4444 on nodeB), GPU 0 stream
# 7, launches with correlation ids 1..3; kernel names carry their rank, and
# the two ranks' kernels start at the same times (90, 290 us).
$PY - "$TMP/r0.json" "$TMP/r4.json" <<'EOF'
import json, sys
def trace(host, rank, tid, kernels):
    ev = [{"ph": "M", "name": "process_name", "pid": 1234, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "thread_name", "pid": 1234, "tid": tid, "args": {"name": "main"}}]
    for corr, (launch, start, dur) in enumerate(kernels, 1):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234,
                   "tid": tid, "ts": launch, "dur": 4, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_r%d_c%d" % (rank, corr), "pid": 0,
                   "tid": 7, "ts": start, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": corr}})
        ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 1234, "tid": tid,
                   "ts": launch})
        ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 0, "tid": 7,
                   "ts": start, "bp": "e"})
    return {"schemaVersion": 1, "host_name": host,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 8},
            "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": ev}
json.dump(trace("nodeA", 0, 1111, [(10, 100, 50), (20, 300, 40), (30, 500, 10)]), open(sys.argv[1], "w"))
json.dump(trace("nodeB", 4, 4444, [(12, 100, 80), (22, 300, 20), (32, 505, 30)]), open(sys.argv[2], "w"))
EOF
kineto2db -q "$TMP/r0.json" -o "$TMP/r0.db"
kineto2db -q "$TMP/r4.json" -o "$TMP/r4.db"
dbmerge -q "$TMP/r0.db" "$TMP/r4.db" -o "$TMP/merged.db"

# What the inputs say, independently of the exporters: each rank's kernels
# and the thread that launched them.
RANKS="r0 r4"
ARROWS="1111 gemm_r0_c1;1111 gemm_r0_c2;1111 gemm_r0_c3;4444 gemm_r4_c1;4444 gemm_r4_c2;4444 gemm_r4_c3;"
GPU_A="GPU 0 (NVIDIA A100-SXM4-80GB) · nodeA [rank 0]"
GPU_B="GPU 0 (NVIDIA A100-SXM4-80GB) · nodeB [rank 4]"
# ranks_per_pid: from "PID<TAB>KERNEL" lines, the ranks (r0, r4) each pid
# holds, one pid per word: "r0 r4" when every pid holds one rank's kernels.
ranks_per_pid() {
  awk -F'\t' '$2 ~ /^gemm_/ {split($2, a, "_"); r[$1] = r[$1] (index(r[$1], a[2]) ? "" : (r[$1] ? "," : "") a[2])}
    END {for (p in r) print r[p]}' | sort | paste -sd' '
}
# json_kernels FILE: "pid<TAB>name" of every complete event
json_kernels() {
  $PY -c '
import json,sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "X": print("%d\t%s" % (e["pid"], e["name"]))' "$1"
}
json_process_names() {
  $PY -c '
import json,sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "M" and e.get("name") == "process_name": print(e["args"]["name"])' "$1" | sort | paste -sd';'
}

for how in separate merged; do
  if [ $how = separate ]; then IN=("$TMP/r0.db" "$TMP/r4.db"); else IN=("$TMP/merged.db"); fi

  db2json -q "${IN[@]}" -o "$TMP/$how.json"
  validate "db2json ($how hubs) is valid" chrome-json-check "$TMP/$how.json"
  expect_eq "db2json ($how hubs): two GPU 0s, each on a pid of its own" "$RANKS" \
    "$(json_kernels "$TMP/$how.json" | ranks_per_pid)"
  expect_eq "db2json ($how hubs): each GPU named with its host and rank" \
    "$GPU_A;$GPU_B;python3 [rank 0] nodeA (pid 1234);python3 [rank 4] nodeB (pid 1234)" \
    "$(json_process_names "$TMP/$how.json")"
  expect_eq "db2json ($how hubs): every arrow from a rank's launch to that rank's kernel" "$ARROWS" \
    "$($PY "$ROOT/tests/checkers/json_flows.py" "$TMP/$how.json" | awk -F'\t' '{printf "%s %s;", $2, $6}')"

  db2perfetto -q "${IN[@]}" -o "$TMP/$how.pftrace"
  validate "db2perfetto ($how hubs) is valid" pftrace-check "$TMP/$how.pftrace"
  F=$($PY "$ROOT/tests/checkers/pftrace_flows.py" "$ROOT/tests/data" "$TMP/$how.pftrace")
  expect_eq "db2perfetto ($how hubs): two GPU 0s, each a process track of its own" "$RANKS" \
    "$(awk -F'\t' '$1 == "slice" {print $2 "\t" $3}' <<<"$F" | ranks_per_pid)"
  expect_eq "db2perfetto ($how hubs): each GPU named with its host and rank" "$GPU_A;$GPU_B" \
    "$($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/$how.pftrace" |
       awk -F'\t' '$1 == "process" && $3 ~ /^GPU/ {print $3}' | paste -sd';')"
  expect_eq "db2perfetto ($how hubs): every arrow from a rank's launch to that rank's kernel" \
    "$ARROWS" "$(awk -F'\t' '$1 == "arrow" {printf "%s %s;", $3, $6}' <<<"$F")"
done

# Perfetto's own trace_processor (the UI's parser), when ../shared has it:
# the arrows it binds in the .pftrace and the JSON, the kernels per GPU.
TP="$SHARED_TOOLS/perfetto/trace-processor"
if [ -x "$TP" ]; then
  tp() { # tp FILE SQL: one column, unquoted, ";"-joined
    echo "$2" >"$TMP/q.sql"
    "$TP" -q "$TMP/q.sql" "$1" 2>/dev/null | tail -n +2 | tr -d '"' | paste -sd';'
  }
  ARROW_SQL="SELECT t.tid || ' ' || si.name FROM flow f JOIN slice so ON so.id = f.slice_out
    JOIN thread_track tt ON so.track_id = tt.id JOIN thread t USING (utid)
    JOIN slice si ON si.id = f.slice_in ORDER BY 1;"
  for f in separate.pftrace separate.json merged.pftrace merged.json; do
    expect_eq "trace_processor: $f's arrows each join one rank's launch and kernel" \
      "${ARROWS%;}" "$(tp "$TMP/$f" "$ARROW_SQL")"
  done
  expect_eq "trace_processor: three kernels on each GPU process" "$GPU_A|3;$GPU_B|3" \
    "$(tp "$TMP/separate.pftrace" "SELECT p.name || '|' || count(*) FROM slice s
        JOIN process_track pt ON s.track_id = pt.id JOIN process p USING (upid)
        WHERE s.name LIKE 'gemm%' GROUP BY p.upid ORDER BY 1;")"
else
  echo "NOTE: Perfetto's trace_processor not here ($TP): not run; the project's checkers above stand in"
fi

# OTF2: an accelerator location group per host's GPU 0, each on a device
# node under its host, made by its rank's process.
db2otf2 -q "$TMP/r0.db" "$TMP/r4.db" -o "$TMP/two.otf2"
validate "db2otf2 of two hosts is valid" otf2-check "$TMP/two.otf2/traces.otf2"
G=$(otf2-print -G "$TMP/two.otf2/traces.otf2")
expect_eq "db2otf2: a GPU 0 device node under each host" "node::nodeA;node::nodeB" \
  "$(grep '^SYSTEM_TREE_NODE .*Class: "CUDA Device"' <<<"$G" | grep -o 'Parent: "[^"]*"' | sed 's/^Parent: "//; s/"$//' | sort | paste -sd';')"
expect_eq "db2otf2: an accelerator location group per GPU 0, each made by its rank" \
  "python3 [rank 0] nodeA (pid 1234);python3 [rank 4] nodeB (pid 1234)" \
  "$(grep '^LOCATION_GROUP .*Type: ACCELERATOR' <<<"$G" | grep -o 'Creator: "[^"]*"' | sed 's/^Creator: "//; s/"$//' | sort | paste -sd';')"

# db2summary: a GPU busy row per host's GPU 0, named with its model (the
# deviceProperties name), rank and host.
expect_eq "db2summary: a GPU busy row per host's GPU 0 (3 kernels each)" \
  "3 GPU 0 NVIDIA A100-SXM4-80GB [rank 0] nodeA;3 GPU 0 NVIDIA A100-SXM4-80GB [rank 4] nodeB" \
  "$(db2summary -q --format csv --table gpu_busy "$TMP/r0.db" "$TMP/r4.db" | $PY -c '
import csv, sys
print(";".join(sorted("%s %s" % (r["intervals"], r["agent"]) for r in csv.DictReader(sys.stdin))))')"

expect_eq "db2summary --by-process: a launch latency row per rank, named with rank and host" \
  "3 88000 473000 python3 [rank 4] nodeB (pid 1234);3 90000 470000 python3 [rank 0] nodeA (pid 1234)" \
  "$(db2summary -q --format csv --table launch_latency --by-process "$TMP/r0.db" "$TMP/r4.db" | $PY -c '
import csv, sys
print(";".join(sorted("%s %s %s %s" % (r["launches"], r["min_ns"], r["max_ns"], r["scope"]) for r in csv.DictReader(sys.stdin))))')"

# --- one host: nothing to keep apart, names as before -----------------------
db2json -q "$TMP/r0.db" -o "$TMP/one.json"
expect_eq "db2json of one rank: its GPU named as before, without host" \
  "GPU 0 (NVIDIA A100-SXM4-80GB);python3 [rank 0] nodeA (pid 1234)" "$(json_process_names "$TMP/one.json")"

# --- rocprofv3-shaped hubs: the same pid and GPU 0 on node0 and node1 ------
# Arrows come from correlation ids (1..24 in both hubs): each CPU process's
# arrows go to one GPU, the other process's to the other.
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/a.db" 00000001-aaaa-4bbb-8ccc-dddddddddddd 7 1 20
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/b.db" 00000002-aaaa-4bbb-8ccc-dddddddddddd 7 1 20 1000000500
sqlite3 "$TMP/b.db" "UPDATE rocpd_info_node_00000002_aaaa_4bbb_8ccc_dddddddddddd SET hostname = 'node1'"
N=$(q "$TMP/a.db" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id WHERE e.correlation_id IN (SELECT e2.correlation_id FROM rocpd_region r JOIN rocpd_event e2 ON e2.id = r.event_id)")
C=$(q "$TMP/a.db" "SELECT count(*) FROM rocpd_memory_copy")
expect_eq "the two rocprof hubs share host names only in pid: node0 and node1" "node0 node1" \
  "$(q "$TMP/a.db" "SELECT hostname FROM rocpd_info_node") $(q "$TMP/b.db" "SELECT hostname FROM rocpd_info_node")"
db2json -q "$TMP/a.db" "$TMP/b.db" -o "$TMP/ab.json"
expect_eq "db2json (rocprof): each process's $((N + C)) arrows go to its own GPU" \
  "$((N + C)) $((N + C))" \
  "$($PY "$ROOT/tests/checkers/json_flows.py" "$TMP/ab.json" | awk -F'\t' '{print $1 " " $4}' | sort | uniq -c |
     awk '{n[$2]++; c[$2] = $1; g[$3]++} END {for (p in n) if (n[p] != 1) bad = 1; for (x in g) if (g[x] != 1) bad = 1;
          if (!bad) for (p in c) print c[p]}' | sort | paste -sd' ')"

# --- the multi-node generator: 2 hosts x 2 ranks, rocprofv3-shaped hubs ----
# Every hub lists both GPUs of its node; each rank runs on the GPU of its
# local rank. Expected from the hubs by SQL: per rank its host, its RANK,
# the GPU its kernels ran on and their number.
$PY "$ROOT/tests/data/gen_multinode.py" "$TMP/mn" --steps 2 --formats rocprof >/dev/null
WANT="" WANT_ARROWS=""
for db in "$TMP"/mn/rocprof/rank*.db; do
  WANT+="$(q "$db" "SELECT 'GPU ' || a.type_index || ' (' || a.product_name || ') · ' ||
      (SELECT hostname FROM rocpd_info_node) || ' [rank ' ||
      (SELECT value FROM rocpd_info_process p, json_each(p.environment) WHERE key = 'RANK') ||
      ']|' || count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_info_agent a ON a.id = k.agent_id
      GROUP BY a.id");"
  WANT_ARROWS+="$(q "$db" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
      WHERE e.correlation_id IN (SELECT e2.correlation_id FROM rocpd_region r JOIN rocpd_event e2 ON e2.id = r.event_id)") "
done
expect_eq "generator: 4 ranks on 2 hosts, each rank's kernels on one GPU" "4" "$(tr ';' '\n' <<<"${WANT%;}" | wc -l)"
db2json -q "$TMP"/mn/rocprof/rank*.db -o "$TMP/mn.json"
expect_eq "db2json (generator): a GPU per host and rank, named so, with that rank's kernels" \
  "$(tr ';' '\n' <<<"${WANT%;}" | sort | paste -sd';')" \
  "$($PY -c '
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in d if e.get("ph") == "M" and e["name"] == "process_name"}
n = Counter(names[e["pid"]] for e in d if e.get("ph") == "X" and names.get(e["pid"], "").startswith("GPU"))
print(";".join(sorted("%s|%d" % kv for kv in n.items())))' "$TMP/mn.json")"
expect_eq "db2json (generator): each process's arrows all go to one GPU, one GPU per process" \
  "$(tr ' ' '\n' <<<"${WANT_ARROWS% }" | sort | paste -sd' ')" \
  "$($PY "$ROOT/tests/checkers/json_flows.py" "$TMP/mn.json" | awk -F'\t' '{print $1 " " $4}' | sort | uniq -c |
     awk '{n[$2]++; c[$2] = $1; g[$3]++} END {for (p in n) if (n[p] != 1) bad = 1; for (x in g) if (g[x] != 1) bad = 1;
          if (!bad) for (p in c) print c[p]}' | sort | paste -sd' ')"

# The generator's Kineto traces of the same run: each rank's kernels (device
# = its local rank) on a GPU track of its own, named from the trace's
# deviceProperties, host_name and distributedInfo.rank.
$PY "$ROOT/tests/data/gen_multinode.py" "$TMP/mk" --steps 2 --formats kineto >/dev/null
KWANT=$($PY -c '
import json, sys
from collections import Counter
rows = []
for f in sys.argv[1:]:
    d = json.load(open(f))
    props = {p["id"]: p["name"] for p in d["deviceProperties"]}
    n = Counter(e["args"]["device"] for e in d["traceEvents"] if e.get("cat") == "kernel")
    for dev, c in n.items():
        rows.append("GPU %d (%s) · %s [rank %d]|%d" % (dev, props[dev], d["host_name"], d["distributedInfo"]["rank"], c))
print(";".join(sorted(rows)))' "$TMP"/mk/kineto/rank*.json)
for f in "$TMP"/mk/kineto/rank*.json; do kineto2db -q "$f" -o "${f%.json}.db"; done
db2perfetto -q "$TMP"/mk/kineto/rank*.db -o "$TMP/mk.pftrace"
validate "db2perfetto (generator, Kineto) is valid" pftrace-check "$TMP/mk.pftrace"
expect_eq "db2perfetto (generator, Kineto): a GPU per host and rank, named so, with that rank's kernels" \
  "$KWANT" \
  "$(join -t $'\t' <($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/mk.pftrace" | awk -F'\t' '$1 == "process" {print $2 "\t" $3}' | sort) \
       <($PY "$ROOT/tests/checkers/pftrace_flows.py" "$ROOT/tests/data" "$TMP/mk.pftrace" | awk -F'\t' '$1 == "slice" {print $2}' | sort | uniq -c | awk '{print $2 "\t" $1}' | sort) |
     awk -F'\t' '$2 ~ /^GPU/ {print $2 "|" $3}' | sort | paste -sd';')"
