#!/usr/bin/env bash
# One call that launches many GPU works (a graph launch: hipGraphLaunch,
# cudaGraphLaunch) gets one arrow per GPU work, in db2json and db2perfetto,
# whole or split, read directly or in passes; db2summary's launch latency
# counts each launch once, by its first GPU work. The input is the real
# rocmProfileData RPD with its hipLaunchKernel calls' ops relinked
# (rocpd_api_ops) to the first of them, renamed hipGraphLaunch. Every expected number comes from the RPD or the
# hub with sqlite3. (Kineto's graph launches: test_launch_arrows.sh.)
source "$(dirname "$0")/lib.sh"

SRC="$TMP/graph.rpd"
cp "$FIX/rocm/rpd_matmul_result.rpd" "$SRC"
chmod u+w "$SRC"
GRAPH=$(q "$SRC" "SELECT min(a.id) FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id
                  WHERE s.string = 'hipLaunchKernel'")
q "$SRC" "INSERT INTO rocpd_string(string) VALUES ('hipGraphLaunch');
          UPDATE rocpd_api SET apiName_id = (SELECT id FROM rocpd_string WHERE string = 'hipGraphLaunch')
            WHERE id = $GRAPH;
          UPDATE rocpd_api_ops SET api_id = $GRAPH WHERE api_id IN (SELECT a.id FROM rocpd_api a
            JOIN rocpd_string s ON s.id = a.apiName_id WHERE s.string = 'hipLaunchKernel')"
# Each op's launching call (its first, as rpd2db links it), when the op
# starts after the call: an arrow each.
LINKED="SELECT o.id, o.start AS ostart, a.start AS astart, a.id AS api, t.string AS type
        FROM rocpd_op o JOIN (SELECT op_id, min(api_id) AS api_id FROM rocpd_api_ops GROUP BY op_id) l
          ON l.op_id = o.id JOIN rocpd_api a ON a.id = l.api_id
        JOIN rocpd_string t ON t.id = o.opType_id WHERE o.start >= a.start"
ARROWS=$(q "$SRC" "SELECT count(*) FROM ($LINKED)")
CALLS=$(q "$SRC" "SELECT count(DISTINCT api) FROM ($LINKED)")
GRAPH_OPS=$(q "$SRC" "SELECT count(*) FROM ($LINKED) WHERE api = $GRAPH")
expect_eq "the graph input: one call launches many ops ($GRAPH_OPS), $ARROWS ops from $CALLS calls" \
  yes "$([ "$GRAPH_OPS" -gt 20 ] && [ "$CALLS" -lt "$ARROWS" ] && echo yes)"
HUB="$TMP/graph.db"
expect_ok "rpd2db imports it" rpd2db -q "$SRC" -o "$HUB"

# --- db2json: an s and an f per linked op -----------------------------------------
expect_ok "db2json exports it" db2json -q "$HUB" -o "$TMP/g.json"
$PY "$ROOT/tests/checkers/json_stats.py" "$TMP/g.json" >"$TMP/g.stats"
expect_eq "db2json: one arrow per linked op, all paired" "$ARROWS|0" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/g.stats" "'%d|%d' % (d['flows_paired'], d['flows_dangling'])")"
GTS=$(q "$SRC" "SELECT start FROM rocpd_api WHERE id = $GRAPH")
expect_eq "db2json: the graph launch starts $GRAPH_OPS arrows" "$GRAPH_OPS" \
  "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))  # times: µs after baseTimeNanoseconds
ev, base = d["traceEvents"], d["baseTimeNanoseconds"]
print(sum(1 for e in ev if e.get("ph") == "s" and base + round(e["ts"] * 1000) == int(sys.argv[2])))' "$TMP/g.json" "$GTS")"
expect_eq "db2json: every linked op (each kernel and copy the graph launched) ends an arrow" \
  "$(q "$SRC" "SELECT group_concat(ostart, ' ') FROM (SELECT ostart FROM ($LINKED) ORDER BY ostart)")" \
  "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev, base = d["traceEvents"], d["baseTimeNanoseconds"]
print(" ".join(str(base + round(e["ts"] * 1000)) for e in sorted(ev, key=lambda e: e["ts"]) if e.get("ph") == "f"))' "$TMP/g.json")"
validate "db2json output: chrome-json-check" chrome-json-check "$TMP/g.json"

# --- db2perfetto: a flow id per linked op, each terminated once ---------------------
expect_ok "db2perfetto exports it" db2perfetto -q "$HUB" -o "$TMP/g.pftrace"
pf=$(protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" \
       <"$TMP/g.pftrace" 2>&1)
expect_eq "db2perfetto: flow ids and terminating flow ids, one per linked op" "$ARROWS|$ARROWS" \
  "$(grep -c '^ *flow_ids:' <<<"$pf")|$(grep -c '^ *terminating_flow_ids:' <<<"$pf")"
expect_eq "db2perfetto: the ids are distinct" "$ARROWS" \
  "$(grep '^ *flow_ids:' <<<"$pf" | sort -u | wc -l)"
validate "db2perfetto output: pftrace-check" pftrace-check "$TMP/g.pftrace"

# --- db2summary: launch latency, one per launching call ------------------------------
# By the call's first GPU work when that is a kernel (or fill): a graph
# launch's later kernels wait on its earlier ones, not on the launch.
expect_eq "db2summary: launch latency counts each launching call once, by its first GPU work" \
  "$(q "$SRC" "SELECT count(*) FROM (SELECT api, type, min(ostart) FROM ($LINKED) GROUP BY api)
               WHERE NOT (type GLOB 'Copy*' OR type = 'Memcpy')")" \
  "$(db2summary -q --format csv --table launch_latency "$HUB" -o - | awk -F, 'NR > 1 {print $2}')"

# --- a window split: an arrow where both ends are in one window, no dangling end ----
# 2 windows of 30 ms from the graph launch: the first holds the launch and
# some of its ops, the rest are in the second.
NW=2 T0=$GTS T1=$((GTS + 60000000))
per_win=$($PY - "$HUB" $NW $T0 $T1 <<'EOF2'
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
nw, lo, hi = map(int, sys.argv[2:5])
size = -(-(hi - lo) // nw)
pairs = con.execute("""
  SELECT r.start, g.start FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
  JOIN (SELECT k.start, k.pid, e2.correlation_id AS corr FROM rocpd_kernel_dispatch k
          JOIN rocpd_event e2 ON e2.id = k.event_id
        UNION ALL SELECT m.start, m.pid, e2.correlation_id FROM rocpd_memory_copy m
          JOIN rocpd_event e2 ON e2.id = m.event_id) g
    ON g.corr = e.correlation_id AND g.pid = r.pid
  WHERE g.start >= r.start AND r.start >= ?""", (lo,)).fetchall()
win = [0] * nw
for a, b in pairs:
    if (a - lo) // size == (b - lo) // size and b < hi:
        win[(a - lo) // size] += 1
print(" ".join(map(str, win)))
EOF2
)
expect_eq "the split's first window holds some, not all, of the graph's ops" yes \
  "$(q "$SRC" "SELECT CASE WHEN sum(ostart < $T0 + 30000000) BETWEEN 1 AND count(*) - 1 THEN 'yes' END
               FROM ($LINKED) WHERE api = $GRAPH")"
SPLIT=(--start $T0 --end $T1 --split window --windows $NW)
expect_ok "db2json: split into $NW windows" db2json -q "$HUB" "${SPLIT[@]}" -o "$TMP/w.json"
got="" ok=1
for w in $(seq 0 $((NW - 1))); do
  f="$TMP/w.w00$w.json"
  $PY "$ROOT/tests/checkers/json_stats.py" "$f" >"$TMP/w.stats"
  got="$got $($PY "$ROOT/tests/checkers/json_field.py" "$TMP/w.stats" "d['flows_paired']")"
  [ "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/w.stats" "d['flows_dangling']")" = 0 ] || ok=0
done
expect_eq "db2json split: arrows per window (both ends in it), none dangling" "$per_win|1" "${got# }|$ok"
expect_ok "db2perfetto: split into $NW windows" db2perfetto -q "$HUB" "${SPLIT[@]}" -o "$TMP/w.pftrace"
got=""
for w in $(seq 0 $((NW - 1))); do
  f="$TMP/w.w00$w.pftrace"
  validate "db2perfetto split window $w: pftrace-check (no lone flow end)" pftrace-check "$f"
  pf=$(protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" <"$f")
  got="$got $(grep -c '^ *terminating_flow_ids:' <<<"$pf")"
done
expect_eq "db2perfetto split: arrows per window" "$per_win" "${got# }"
expect_ok "db2json: window 0 alone (--part 0)" db2json -q "$HUB" "${SPLIT[@]}" --part 0 -o "$TMP/p.json"
$PY "$ROOT/tests/checkers/json_stats.py" "$TMP/p.w000.json" >"$TMP/p.stats"
expect_eq "db2json --part 0: the same arrows as in the one-pass split" \
  "$(echo "$per_win" | cut -d' ' -f1)|0" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/p.stats" "'%d|%d' % (d['flows_paired'], d['flows_dangling'])")"

# --- in passes: the same bytes as a direct read ----------------------------------------
mkdir "$TMP/many" "$TMP/passtmp"
for i in $(seq -w 1 12); do rpd2db -q "$SRC" -o "$TMP/many/g$i.db"; done
M=("$TMP"/many/g*.db)
for tool in db2json db2perfetto db2summary; do
  $tool -q "${M[@]}" -o "$TMP/direct.$tool"
  (ulimit -n 24; TMPDIR="$TMP/passtmp" $tool -q "${M[@]}" -o "$TMP/passes.$tool")
  expect_eq "$tool: 12 graph hubs in passes (ulimit -n 24) = the direct read, byte for byte" \
    "$(sha256sum <"$TMP/direct.$tool")" "$(sha256sum <"$TMP/passes.$tool")"
done
$PY "$ROOT/tests/checkers/json_stats.py" "$TMP/direct.db2json" >"$TMP/m.stats"
expect_eq "db2json: 12 graph hubs, 12 times the arrows, all paired" "$((12 * ARROWS))|0" \
  "$($PY "$ROOT/tests/checkers/json_field.py" "$TMP/m.stats" "'%d|%d' % (d['flows_paired'], d['flows_dangling'])")"
