#!/usr/bin/env bash
# db2otf2: every fixture imported and converted, each archive read back
# with libotf2's own readers (python3-otf2 via tests/checkers/otf2_stats.py, and
# otf2-print), its counts compared with the hub's rows counted by sqlite3.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
O="$BIN/db2otf2"

# js JSON EXPR: a value from the stats line (EXPR in Python, d = the dict),
# printed as print() prints it. One python3 for the whole test evaluates
# them all (a python3 start per value was a third of the test's time): it
# reads EXPR and JSON as two lines and answers the value's lines, then a
# line holding only \x1e. The same python3 runs otf2_stats.py (below).
coproc JS { "$PY" -u -c '
import contextlib, io, json, sys, traceback
sys.path.insert(0, sys.argv[1])
while True:
    expr, text = sys.stdin.readline(), sys.stdin.readline()
    if not text:
        break
    if expr == "\x1fstats\n":
        # otf2_stats.py on the archive TEXT names: "0" (or "1" and the
        # traceback when it failed), then what it printed
        try:
            import otf2_stats
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                otf2_stats.main(text.rstrip("\n"))
            sys.stdout.write("0\n" + buf.getvalue())
        except Exception:
            sys.stdout.write("1\n" + traceback.format_exc())
        sys.stdout.write("\x1e\n")
        continue
    try:
        d = json.loads(text)
        sys.stdout.write(str(eval(expr)) + "\n")
    except Exception as e:
        sys.stderr.write("js: %s: %r\n" % (expr.strip(), e))
    sys.stdout.write("\x1e\n")
' "$ROOT/tests/checkers"; }
js() {
  local line out=
  printf '%s\n%s\n' "$2" "${1//$'\n'/ }" >&"${JS[1]}"
  while IFS= read -r line <&"${JS[0]}" && [ "$line" != $'\x1e' ]; do out+=$line$'\n'; done
  printf '%s' "$out"
}
# stats ARCHIVE: tests/checkers/otf2_stats.py's line for ARCHIVE (its
# traceback, and a non-zero status, when it failed), from the one python3
# above: its start and import of otf2 cost more than reading an archive.
stats() {
  local line status out=
  printf '\x1fstats\n%s\n' "$1" >&"${JS[1]}"
  IFS= read -r status <&"${JS[0]}" || { echo "stats: the python3 of this test is gone"; return 2; }
  while IFS= read -r line <&"${JS[0]}" && [ "$line" != $'\x1e' ]; do out+=$line$'\n'; done
  printf '%s' "$out"
  [ "$status" = 0 ]
}

# The hub's interval rows: regions, kernels, copies, and instant samples
# (written as zero-length regions). Flows are not records in OTF2.
INSTANTS="SELECT count(*) FROM $HUB_SAMPLES s JOIN rocpd_track t ON t.id = s.track_id
          WHERE COALESCE(json_extract(t.extdata,'\$.kind'),'') NOT IN ('flow','counter')"
intervals() {
  q "$1" "SELECT (SELECT count(*) FROM $HUB_REGIONS) + (SELECT count(*) FROM rocpd_kernel_dispatch)
          + (SELECT count(*) FROM rocpd_memory_copy) + ($INSTANTS)"
}
# Interval rows whose event has a correlation id (the attribute on Enter).
correlated() {
  q "$1" "SELECT count(*) FROM (SELECT event_id FROM $HUB_REGIONS UNION ALL
          SELECT event_id FROM rocpd_kernel_dispatch UNION ALL SELECT event_id FROM rocpd_memory_copy
          UNION ALL SELECT s.event_id FROM $HUB_SAMPLES s JOIN rocpd_track t ON t.id = s.track_id
          WHERE COALESCE(json_extract(t.extdata,'\$.kind'),'') NOT IN ('flow','counter')) x
          JOIN rocpd_event e ON e.id = x.event_id WHERE e.correlation_id IS NOT NULL"
}
# Earliest start of anything written (the clock's global offset), CPU
# samples (their frame rows; CallingContextSample events) included.
first_ts() {
  q "$1" "SELECT min(m) FROM (SELECT min(start) m FROM $HUB_REGIONS UNION ALL
          SELECT min(start) FROM rocpd_kernel_dispatch UNION ALL SELECT min(start) FROM rocpd_memory_copy
          UNION ALL SELECT min(s.timestamp) FROM $HUB_SAMPLES s JOIN rocpd_track t ON t.id = s.track_id
          WHERE COALESCE(json_extract(t.extdata,'\$.kind'),'') <> 'flow'
          UNION ALL SELECT min(timestamp) FROM rocpd_sample WHERE event_id IN $HUB_FRAME_EVENTS)"
}
# Stream locations Score-P would name: PREFIX[<device>:<stream>] per stream
# with kernels or copies; "GPU <device> stream <n>" when the vendor is
# unknown (PREFIX GPU).
stream_names() {
  # A negative stream number ("stream -1", Kineto's tid -1) is written as
  # its unsigned 32-bit value, as every exporter writes negative tids
  # (docs/exporters.md "Tids as written").
  local num="replace(s.name, 'stream ', '')"
  local name="'$2[' || a.type_index || ':' || (CASE WHEN CAST($num AS INTEGER) < 0
    THEN CAST($num AS INTEGER) + 4294967296 ELSE $num END) || ']'"
  [ "$2" = GPU ] && name="'GPU ' || a.type_index || ' ' || s.name"
  q "$1" "SELECT group_concat(n, ',') FROM (SELECT DISTINCT $name n FROM (SELECT agent_id, stream_id FROM rocpd_kernel_dispatch
          UNION SELECT COALESCE(dst_agent_id, src_agent_id), stream_id FROM rocpd_memory_copy) w
          JOIN rocpd_info_agent a ON a.id = w.agent_id JOIN rocpd_info_stream s ON s.id = w.stream_id
          ORDER BY n)"
}

# The vendor prefix of a hub whose GPUs are unnamed: its API calls'
# (all cuda*/cu* -> CUDA, all hip* -> HIP, else GPU).
api_prefix() {
  q "$1" "SELECT CASE WHEN c > 0 AND h = 0 THEN 'CUDA' WHEN h > 0 AND c = 0 THEN 'HIP' ELSE 'GPU' END
          FROM (SELECT sum(s.string GLOB 'cuda*' OR s.string GLOB 'cu[A-Z]*') c,
                       sum(s.string GLOB 'hip*' OR s.string GLOB 'hsa_*') h
                FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id)"
}

# check NAME DB PREFIX: convert, read back, compare with the hub. PREFIX
# "api": the GPUs are unnamed, the prefix follows from the API calls.
check() {
  local name=$1 db=$2 prefix=$3 out="$TMP/$1.otf2" st
  [ "$prefix" = api ] && prefix=$(api_prefix "$db")
  expect_ok "$name: db2otf2" "$O" -q "$db" -o "$out"
  if [ ! -f "$out/traces.otf2" ] || [ ! -f "$out/traces.def" ] || [ ! -d "$out/traces" ]; then
    fail "$name: archive layout (traces.otf2, traces.def, traces/)"; return
  fi
  pass "$name: archive layout"
  st=$(stats "$out/traces.otf2" 2>&1) || { fail "$name: python3-otf2 reads it: $st"; return; }
  # tests/checkers/check_otf2.py's checks (order, nesting, counts, clock range,
  # process and accelerator groups) and accelerator groups under devices.
  expect_eq "$name: order, nesting, counts, clock range, groups, system tree" "[]" \
    "$(js "$st" 'd["problems"]')"
  local n; n=$(intervals "$db")
  expect_eq "$name: Enter records = hub interval rows" "$n" "$(js "$st" 'd["enter"]')"
  expect_eq "$name: Leave records = hub interval rows" "$n" "$(js "$st" 'd["leave"]')"
  expect_eq "$name: correlation attribute on every correlated Enter" "$(correlated "$db")" \
    "$(js "$st" 'd["corr_enters"]')"
  expect_eq "$name: clock offset = earliest event" "$(first_ts "$db")" "$(js "$st" 'd["clock_offset"]')"
  expect_eq "$name: clock length reaches the last event" "$(js "$st" 'd["ts_max"] - d["ts_min"]')" \
    "$(js "$st" 'd["clock_length"]')"
  local kernels; kernels=$(q "$db" "SELECT count(*) FROM rocpd_kernel_dispatch")
  if [ "$kernels" -gt 0 ]; then
    expect_eq "$name: accelerator groups present" 1 \
      "$(js "$st" 'int(d["group_types"].get("ACCELERATOR", 0) > 0)')"
    expect_eq "$name: stream locations named as Score-P does" "$(stream_names "$db" "$prefix")" \
      "$(js "$st" '",".join(sorted(set(n.split(" overlap")[0] for n in d["accel_names"])))')"
  else
    expect_eq "$name: no accelerator locations without kernels" 0 \
      "$(js "$st" 'd["loc_types"].get("ACCELERATOR_STREAM", 0)')"
  fi
  if [ "$prefix" != GPU ]; then
    expect_eq "$name: RmaGet per host->device copy" \
      "$(q "$db" "SELECT count(*) FROM rocpd_memory_copy m JOIN rocpd_string s ON s.id = m.name_id
                  WHERE m.stream_id IS NOT NULL AND s.string LIKE '%HtoD%'")" "$(js "$st" 'd["rma_get"]')"
    expect_eq "$name: RmaPut per device->host copy" \
      "$(q "$db" "SELECT count(*) FROM rocpd_memory_copy m JOIN rocpd_string s ON s.id = m.name_id
                  WHERE m.stream_id IS NOT NULL AND s.string LIKE '%DtoH%'")" "$(js "$st" 'd["rma_put"]')"
    expect_eq "$name: every RMA operation completes" "$(js "$st" 'd["rma_get"] + d["rma_put"]')" \
      "$(js "$st" 'd["rma_complete"]')"
  fi
  expect_eq "$name: otf2-print reads it without a warning" "" \
    "$(otf2-print -G "$out/traces.otf2" 2>&1 >/dev/null)"
  # otf2-check: for every archive at once, after the last (validate_each)
  otf2_checks+=("$name: otf2-check" "$out/traces.otf2")
}
otf2_checks=()

K=fixtures/kineto
for f in hta_alexnet_trace.json.gz:CUDA hta_cpu_only_rank-34.pt.trace.json.gz:CUDA \
         hta_cupti_profiler_trace.json.gz:CUDA hta_mi250_rocm6_2_kineto.json.gz:HIP \
         hta_triton_example.json.gz:CUDA hta_event_sync_multi_stream.json.gz:CUDA \
         hta_sampled_rank-0.json.gz:api hta_backward_thread.json:api \
         kineto_tbplugin_gpu_metrics_input.json:api \
         tracelens_mi210_gpu_only_trace_gpu_only_trace.json.gz:HIP; do
  file=${f%%:*} prefix=${f##*:} name=${file%%.*}
  "$BIN/kineto2db" -q "$FIX/kineto/$file" -o "$TMP/$name.db" || { fail "$name: import"; continue; }
  check "$name" "$TMP/$name.db" "$prefix"
done
"$BIN/nvvp2db" -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$TMP/nvvp.db" &&
  check nvvp "$TMP/nvvp.db" CUDA
"$BIN/nvvp2db" -q "$FIX/nvprof/rasolca_output_file.nvprof" -o "$TMP/rasolca.db" &&
  check rasolca "$TMP/rasolca.db" CUDA
"$BIN/nsys2db" -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/nsys.db" 2>/dev/null &&
  check nsys "$TMP/nsys.db" CUDA
validate_each otf2-check "${otf2_checks[@]}"

# ---- specifics ----
expect_eq "unnamed GPU, CUDA API calls: CUDA stream names" "CUDA[0:7]" \
  "$(js "$(stats "$TMP/hta_backward_thread.otf2/traces.otf2")" '",".join(d["accel_names"])')"
st=$(stats "$TMP/tracelens_mi210_gpu_only_trace_gpu_only_trace.otf2/traces.otf2")
expect_eq "gpu-only: HIP kernels are HIP functions" \
  "$(q "$TMP/tracelens_mi210_gpu_only_trace_gpu_only_trace.db" "SELECT count(DISTINCT ks.display_name)
     FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol ks ON ks.id = k.kernel_id")" \
  "$(js "$st" 'd["regions"].get("HIP/FUNCTION", 0)')"
st=$(stats "$TMP/nsys.otf2/traces.otf2")
expect_eq "nsys: CUDA API calls are CUDA wrappers (distinct cuda* names)" \
  "$(q "$TMP/nsys.db" "SELECT count(DISTINCT s.string) FROM $HUB_REGIONS r JOIN rocpd_string s ON s.id = r.name_id
     WHERE s.string GLOB 'cuda*' OR s.string GLOB 'cu[A-Z]*'")" "$(js "$st" 'd["regions"].get("CUDA/WRAPPER", 0)')"
expect_eq "nsys: copies are data transfers" 2 "$(js "$st" 'd["regions"].get("CUDA/DATA_TRANSFER", 0)')"
expect_eq "nsys: archive's definition file names the stream" 1 \
  "$(otf2-print -G "$TMP/nsys.otf2/traces.otf2" | grep -c 'Name: "CUDA\[0:7\]".*Type: ACCELERATOR_STREAM')"
expect_eq "nsys: CUDA_WINDOW over a communicator" 1 \
  "$(otf2-print -G "$TMP/nsys.otf2/traces.otf2" | grep -c '^RMA_WIN .*"CUDA_WINDOW"')"

# Overlapping intervals that do not nest go to overflow locations.
db="$TMP/nvvp.db"
st=$(stats "$TMP/nvvp.otf2/traces.otf2")
expect_eq "nvvp: no interval dropped (overflow locations carry the overlaps)" "$(intervals "$db")" \
  "$(js "$st" 'd["enter"]')"

# ---- metrics: counters and allocated bytes ----
cat >"$TMP/c.json" <<'EOF'
{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"op","pid":5,"tid":6,"ts":10,"dur":5},
{"ph":"C","name":"mem","pid":5,"ts":11,"args":{"used":10,"free":2.5}},
{"ph":"C","name":"mem","pid":5,"ts":12,"args":{"used":30,"free":1.5}},
{"ph":"C","name":"util","pid":5,"ts":13,"args":{"util":7}}]}
EOF
"$BIN/kineto2db" -q "$TMP/c.json" -o "$TMP/c.db"
T=$(q "$TMP/c.db" "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_memory_allocate%'")
G=$(q "$TMP/c.db" "SELECT guid FROM rocpd_info_process LIMIT 1")
q "$TMP/c.db" "INSERT INTO \"$T\"(guid,nid,pid,tid,type,level,start,\"end\",size) VALUES
  ('$G',1,5,6,'ALLOC','REAL',12000,12000,100), ('$G',1,5,6,'ALLOC','REAL',13000,13000,50),
  ('$G',1,5,6,'FREE','REAL',14000,14000,100)"
expect_ok "metrics: db2otf2" "$O" -q "$TMP/c.db" -o "$TMP/c.otf2"
st=$(stats "$TMP/c.otf2/traces.otf2")
expect_eq "metrics: no problems" "[]" "$(js "$st" 'd["problems"]')"
expect_eq "metrics: one sample per counter value and allocation" \
  "$(( $(q "$TMP/c.db" "SELECT count(*) FROM rocpd_sample") + 3 ))" "$(js "$st" 'd["metric"]')"
expect_eq "metrics: largest value of each metric" \
  '{"Host Memory": 150, "mem.free": 2.5, "mem.used": 30.0, "util": 7.0}' \
  "$(js "$st" 'json.dumps(d["metric_max"], sort_keys=True)')"
expect_eq "metrics: on the per-process metric location" 1 "$(js "$st" 'd["loc_types"]["METRIC"]')"
expect_eq "metrics: allocation metric in bytes, absolute next" 1 \
  "$(otf2-print -G "$TMP/c.otf2/traces.otf2" | grep -c 'METRIC_MEMBER.*"Host Memory".*Mode: ABSOLUTE_NEXT.*Unit: "bytes"')"

# ---- shared options ----
db="$TMP/hta_alexnet_trace.db"
expect_ok "split window: 3 parts" "$O" -q "$db" --split window --windows 3 -o "$TMP/w.otf2"
total=0
for i in 0 1 2; do
  p="$TMP/w.w00$i.otf2"
  st=$(stats "$p/traces.otf2" 2>&1) || { fail "split window part $i reads: $st"; continue; }
  expect_eq "split window part $i: complete and nested" "[]" "$(js "$st" 'd["problems"]')"
  total=$((total + $(js "$st" 'd["enter"]')))
done
[ "$total" -ge "$(intervals "$db")" ] && pass "split window: every interval in some part ($total)" ||
  fail "split window: $total enters < $(intervals "$db")"
# Events crossing a cut are clipped and marked in every part, as db2json
# marks them ("clipped": start|end|both): a "clipped" string attribute on
# the Enter, the same events with the same values.
"$BIN/db2json" -q "$db" --split window --windows 3 -o "$TMP/w.json"
clip_marks() { "$PY" - "$@" <<'PYEOF'
import collections, json, sys
import otf2
o, j = collections.Counter(), collections.Counter()
with otf2.reader.open(sys.argv[1]) as t:
    for _, ev in t.events:
        if isinstance(ev, otf2.events.Enter) and ev.attributes:
            for k, v in ev.attributes.items():
                if k.name == "clipped": o[ev.region.name, v] += 1
for e in json.load(open(sys.argv[2]))["traceEvents"]:
    if "clipped" in e.get("args", {}): j[e["name"], e["args"]["clipped"]] += 1
print(sum(j.values()), sum(o.values()) if o == j else "differ: %s" % sorted((o - j) + (j - o)))
PYEOF
}
for i in 0 1 2; do
  read -r want got <<<"$(clip_marks "$TMP/w.w00$i.otf2/traces.otf2" "$TMP/w.w00$i.json")"
  expect_eq "split window part $i: the clipped events marked as db2json marks them" "$want" "$got"
  [ "$want" -gt 0 ] && pass "split window part $i: some events cross a cut ($want)" ||
    fail "split window part $i: no event crosses a cut"
done
expect_ok "split process" "$O" -q "$db" --split process -o "$TMP/p.otf2"
pids=$(q "$db" "SELECT group_concat(pid) FROM (SELECT DISTINCT pid FROM (SELECT pid FROM rocpd_region UNION
  SELECT pid FROM rocpd_kernel_dispatch UNION SELECT pid FROM rocpd_memory_copy UNION
  SELECT t.pid FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id) ORDER BY pid)")
expect_eq "split process: one archive per process" "$pids" \
  "$(cd "$TMP" && ls -d p.p*.otf2 | sed 's/^p\.p//; s/\.otf2$//' | sort -n | paste -sd,)"
sum=0
for p in "$TMP"/p.p*.otf2; do
  st=$(stats "$p/traces.otf2")
  expect_eq "split process $(basename "$p"): complete" "[]" "$(js "$st" 'd["problems"]')"
  sum=$((sum + $(js "$st" 'd["enter"]')))
done
expect_eq "split process: parts hold every interval once" "$(intervals "$db")" "$sum"
expect_ok "--part" "$O" -q "$db" --split window --windows 3 --part 1 -o "$TMP/one.otf2"
[ -d "$TMP/one.w001.otf2" ] && [ ! -e "$TMP/one.w000.otf2" ] && pass "--part writes only that part" ||
  fail "--part writes only that part"
expect_ok "--name filter" "$O" -q "$db" --name 'cuda*' -o "$TMP/n.otf2"
st=$(stats "$TMP/n.otf2/traces.otf2")
expect_eq "--name: only matching intervals" \
  "$(q "$db" "SELECT count(*) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string GLOB 'cuda*'")" \
  "$(js "$st" 'd["enter"]')"
expect_ok "--category filter" "$O" -q "$db" --category kernel -o "$TMP/k.otf2"
st=$(stats "$TMP/k.otf2/traces.otf2")
expect_eq "--category kernel: only kernels" \
  "$(q "$db" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
              JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'kernel'")" "$(js "$st" 'd["enter"]')"
expect_ok "--no-args" "$O" -q "$db" --no-args -o "$TMP/na.otf2"
expect_eq "--no-args: only the correlation attribute is defined" 1 \
  "$(otf2-print -G "$TMP/na.otf2/traces.otf2" | grep -c '^ATTRIBUTE ')"
st=$(stats "$TMP/na.otf2/traces.otf2")
expect_eq "--no-args: correlation kept" "$(correlated "$db")" "$(js "$st" 'd["corr_enters"]')"
# Distinct string argument values are bounded (TT_OTF2_STRING_LIMIT lowers
# the 32 MB bound): past it, new values become a placeholder.
TT_OTF2_STRING_LIMIT=1 "$O" -q "$db" -o "$TMP/lim.otf2"
st=$(stats "$TMP/lim.otf2/traces.otf2")
expect_eq "string bound: archive complete" "[]" "$(js "$st" 'd["problems"]')"
strings() { "$PY" -c "import otf2,sys
with otf2.reader.open(sys.argv[1]) as t: print('\n'.join(sorted(x.name for x in t.definitions.strings)))" "$1"; }
q "$db" "SELECT DISTINCT name FROM rocpd_arg" >"$TMP/argnames"
expect_eq "string bound: strings are the --no-args ones, argument names and the placeholder" \
  "$( (strings "$TMP/na.otf2/traces.otf2"; cat "$TMP/argnames"; echo '(too many distinct values)') | sort -u)" \
  "$(strings "$TMP/lim.otf2/traces.otf2" | sort -u)"
[ "$(otf2-print "$TMP/lim.otf2/traces.otf2" | grep -c 'too many distinct values')" -gt 0 ] &&
  pass "string bound: placeholder written" || fail "string bound: placeholder written"
expect_eq "-q: silent" "" "$("$O" -q "$db" -o "$TMP/quiet.otf2" 2>&1)"
expect_ok "an existing archive is replaced" "$O" -q "$TMP/nsys.db" -o "$TMP/quiet.otf2"
st=$(stats "$TMP/quiet.otf2/traces.otf2")
expect_eq "replaced archive holds the new trace" "$(intervals "$TMP/nsys.db")" "$(js "$st" 'd["enter"]')"
expect_eq "no staging directories left" "" "$(cd "$TMP" && ls -d *.tmp* *.old* 2>/dev/null)"

# ---- bad input: message, non-zero exit, no archive ----
echo "not a database" >"$TMP/bad.db"
expect_fail "not a hub" "bad.db" "$O" -q "$TMP/bad.db" -o "$TMP/bad.otf2"
head -c 65536 "$TMP/nvvp.db" >"$TMP/trunc.db"
expect_fail "truncated hub" "trunc.db" "$O" -q "$TMP/trunc.db" -o "$TMP/trunc.otf2"
expect_fail "unwritable output" "cannot create" "$O" -q "$db" -o "$TMP/no/such/dir/x.otf2"
mkdir -p "$TMP/notarchive" && touch "$TMP/notarchive/keep"
expect_fail "a directory of other files is not overwritten" "not an OTF2 archive" \
  "$O" -q "$db" -o "$TMP/notarchive"
expect_eq "that directory is untouched" keep "$(ls "$TMP/notarchive")"
expect_fail "output naming an input" "not a directory|overwrite the input" "$O" -q "$db" -o "$db"
expect_fail "trailing slash refused" "without a trailing" "$O" -q "$db" -o "$TMP/quiet.otf2/"
expect_fail "stdout refused" "cannot go to stdout" "$O" -q "$db" -o -
expect_eq "no archive or staging directory left by failures" "" \
  "$(cd "$TMP" && ls -d bad.otf2* trunc.otf2* no *.tmp* 2>/dev/null)"

# ---- process names: the label every exporter gives (issue 35) -------------
# No host, no rank: the command alone, as db2json names the process; no
# command: "Process PID".
cat >"$TMP/pn.json" <<'EOF'
{"traceEvents":[{"ph":"M","name":"process_name","pid":392793,"tid":0,"args":{"name":"CuptiActivityProfilerTest"}},
{"ph":"X","cat":"cpu_op","name":"op","pid":392793,"tid":392793,"ts":10,"dur":5},
{"ph":"X","cat":"cpu_op","name":"op","pid":5,"tid":5,"ts":10,"dur":5}]}
EOF
"$BIN/kineto2db" -q "$TMP/pn.json" -o "$TMP/pn.db"
"$O" -q "$TMP/pn.db" -o "$TMP/pn.otf2"
"$BIN/db2json" -q "$TMP/pn.db" -o "$TMP/pn.trace.json"
groups=$(otf2-print -G "$TMP/pn.otf2/traces.otf2" | sed -n 's/^LOCATION_GROUP .*Name: "\([^"]*\)".*Type: PROCESS.*/\1/p' | sort | paste -sd,)
json_name=$("$PY" -c 'import json, sys
print(*[e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"]
        if e.get("name") == "process_name" and e["pid"] == 392793])' "$TMP/pn.trace.json")
expect_eq "db2json names pid 392793 by its command alone" CuptiActivityProfilerTest "$json_name"
expect_eq "OTF2 process groups: the command alone (as db2json), Process PID without one" \
  "CuptiActivityProfilerTest,Process 5" "$groups"

# ---- a write that fails (a full disk): exit 1, nothing left -----------------
# RLIMIT_FSIZE (ulimit -f, in KiB, SIGXFSZ ignored: write() fails with
# EFBIG) cuts a file short as a full disk does, without root. libotf2 says
# some of these failures only to its error handler (a buffered write that
# fails when its file is closed), never in a return status.
# 3000 distinct 70-byte names on one thread: traces.def holds them all
# (278 KB), the one event file 3000 short Enter/Leave pairs (78 KB); at
# 128 KiB only traces.def is cut.
"$PY" -c 'import json
json.dump({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "op_%04d_%s" % (i, "x" * 62), "pid": 7,
  "tid": 7, "ts": 10 + 2 * i, "dur": 1} for i in range(3000)]}, open("'"$TMP/names.json"'", "w"))'
"$BIN/kineto2db" -q "$TMP/names.json" -o "$TMP/names.db"
expect_ok "many names: db2otf2 without a limit" "$O" -q "$TMP/names.db" -o "$TMP/names.otf2"
expect_eq "many names: traces.def is the file past 128 KiB, the event file is not" "1 0" \
  "$(( $(stat -c %s "$TMP/names.otf2/traces.def") > 131072 )) $(( $(stat -c %s "$TMP/names.otf2/traces/0.evt") > 131072 ))"
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; "$@"); }
expect_fail "traces.def cut short: exit 1, said" "cut.otf2: otf2: the archive is incomplete.*not written" \
  limited 128 "$O" -q "$TMP/names.db" -o "$TMP/cut.otf2"
expect_eq "traces.def cut short: no archive or staging directory left" "" \
  "$(cd "$TMP" && ls -d cut.otf2* 2>/dev/null)"
# Every limit below the archive's largest file (29 KB of events, 13 KB of
# definitions): the run fails and leaves nothing; at 32 KiB it is whole.
for kib in 4 8 16 24 28; do
  expect_fail "limit ${kib} KiB: exit 1, said" "otf2" limited "$kib" "$O" -q "$TMP/hta_alexnet_trace.db" -o "$TMP/lim$kib.otf2"
  expect_eq "limit ${kib} KiB: nothing left" "" "$(cd "$TMP" && ls -d lim$kib.otf2* 2>/dev/null)"
done
expect_ok "limit 32 KiB: written" limited 32 "$O" -q "$TMP/hta_alexnet_trace.db" -o "$TMP/lim32.otf2"
expect_eq "limit 32 KiB: otf2-print reads it" "" "$(otf2-print "$TMP/lim32.otf2/traces.otf2" 2>&1 >/dev/null)"
expect_fail "a failed write keeps the archive it would replace" "incomplete|otf2" \
  limited 128 "$O" -q "$TMP/names.db" -o "$TMP/lim32.otf2"
st=$(stats "$TMP/lim32.otf2/traces.otf2")
expect_eq "the old archive is intact" "$(intervals "$TMP/hta_alexnet_trace.db")" "$(js "$st" 'd["enter"]')"

# ---- a hub without events: an empty but valid archive, as db2json writes an empty trace
echo '{"traceEvents": []}' >"$TMP/empty.json"
"$BIN/kineto2db" -q "$TMP/empty.json" -o "$TMP/empty.db"
expect_eq "empty hub: it holds no event" 0 "$(intervals "$TMP/empty.db")"
expect_ok "empty hub: db2otf2" "$O" -q "$TMP/empty.db" -o "$TMP/empty.otf2"
expect_eq "empty hub: otf2-print reads it" "" "$(otf2-print "$TMP/empty.otf2/traces.otf2" 2>&1 >/dev/null)"
st=$(stats "$TMP/empty.otf2/traces.otf2" 2>&1)
expect_eq "empty hub: no problem, no event, one process with its thread" \
  '[] 0 0 {"PROCESS": 1} {"CPU_THREAD": 1}' \
  "$(js "$st" '" ".join([str(d["problems"]), str(d["enter"]), str(d["metric"]), json.dumps(d["group_types"]), json.dumps(d["loc_types"])])')"

# ---- interruption: SIGTERM mid-run leaves the old archive and no staging ----
GEN="$ROOT/$BUILD/bench/gen_hub"
"$GEN" "$TMP/big.db" 300000 4 >/dev/null 2>&1
"$O" -q "$TMP/nsys.db" -o "$TMP/intr.otf2"
"$O" -q "$TMP/big.db" -o "$TMP/intr.otf2" &
pid=$!
# Wait until the staging archive has event data: the run is under way.
for _ in $(seq 200); do
  [ -n "$(find "$TMP/intr.otf2.tmp$pid/traces" -name '*.evt' -size +0 2>/dev/null | head -1)" ] && break
  sleep 0.05
done
if [ -d "$TMP/intr.otf2.tmp$pid" ]; then
  kill -TERM "$pid"; wait "$pid"; rc=$?
  expect_eq "SIGTERM: killed by the signal" 143 "$rc"
  expect_eq "SIGTERM: no staging directory left" "" "$(ls -d "$TMP"/intr.otf2.* 2>/dev/null)"
  st=$(stats "$TMP/intr.otf2/traces.otf2")
  expect_eq "SIGTERM: the previous archive is intact" "$(intervals "$TMP/nsys.db")" "$(js "$st" 'd["enter"]')"
else
  wait "$pid"
  fail "SIGTERM: the staging directory never appeared"
fi

# ---- the signal handler calls only async-signal-safe functions ------------
# gdb stops db2otf2 once its staging directory exists (OTF2_Archive_Open),
# breaks on the allocator and the directory walkers, and delivers SIGTERM:
# the handler must remove the staging directory and end the process
# without reaching any of them (nftw/opendir allocate: a signal arriving
# inside malloc deadlocked or corrupted the heap).
if command -v gdb >/dev/null; then
  cat >"$TMP/sig.gdb" <<'EOF'
set pagination off
set confirm off
handle SIGTERM nostop noprint pass
break OTF2_Archive_Open
run
delete
break malloc
break calloc
break realloc
break free
break nftw
break opendir
signal SIGTERM
bt 8
kill
quit
EOF
  out=$(gdb -q -batch -x "$TMP/sig.gdb" --args "$O" -q "$TMP/nsys.db" -o "$TMP/gdb.otf2" 2>&1)
  expect_eq "signal handler: no allocation or directory walk inside it" "" \
    "$(grep -B4 '<signal handler called>' <<<"$out" | cut -c1-160)"
  expect_eq "signal handler: the process ends by the signal" 1 "$(grep -c 'terminated with signal SIGTERM' <<<"$out")"
  expect_eq "signal handler: no staging directory left" "" "$(cd "$TMP" && ls -d gdb.otf2* 2>/dev/null)"
else
  skip "signal handler under gdb: gdb not installed (not run)"
fi

# Kernels: display name as the region name, the mangled name as its
# canonical name (Score-P's CUDA adapter); the node is the hub's host.
nvvp2db -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$TMP/canon.db"
db2otf2 -q "$TMP/canon.db" -o "$TMP/canon.otf2"
want=$(q "$TMP/canon.db" "SELECT count(*) FROM (SELECT DISTINCT ks.kernel_name FROM rocpd_kernel_dispatch k
  JOIN rocpd_info_kernel_symbol ks ON ks.id = k.kernel_id WHERE ks.kernel_name GLOB '_Z*' AND ks.display_name != ks.kernel_name)")
got=$(otf2-print -G "$TMP/canon.otf2/traces.otf2" | grep -c '^REGION .*(Aka\. "_Z')
expect_eq "kernel regions carry the mangled name as canonical name" "$want" "$got"
[ "$want" -gt 0 ] && pass "the nvprof hub has mangled kernel names ($want)" || fail "no mangled kernel names in the nvprof hub"
# nvprof records no host: the hub's node is "unknown", the OTF2 node "node"
# (test_identity.sh checks a named host).
host=$(q "$TMP/canon.db" "SELECT hostname FROM rocpd_info_node LIMIT 1")
[ "$host" = unknown ] && host=node
expect_eq "the system-tree node is named after the hub's host" "1" \
  "$(otf2-print -G "$TMP/canon.otf2/traces.otf2" | grep -c "^SYSTEM_TREE_NODE .*Name: \"$host\" .*Class: \"node\"")"

# ---- one classifier (hub.h): copy direction and API calls -----------------
# A copy's direction comes from its agents' types, not from its name:
# rocprofv3 names its copies MEMORY_COPY_HOST_TO_DEVICE, which no name
# pattern caught (no RMA records were written for them).
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/v3.db" "0000ab00-aaaa-4bbb-8ccc-dddddddddddd" 77 7 60
expect_ok "rocprofv3 shape: db2otf2" "$O" -q "$TMP/v3.db" -o "$TMP/v3.otf2"
st=$(stats "$TMP/v3.otf2/traces.otf2")
v3q() { q "$TMP/v3.db" "$(sed 's/__/_0000ab00_aaaa_4bbb_8ccc_dddddddddddd/g' <<<"$1")"; }
expect_eq "rocprofv3 shape: RmaGet per CPU -> GPU copy (by agent types)" \
  "$(v3q "SELECT count(*) FROM rocpd_memory_copy__ m JOIN rocpd_info_agent__ s ON s.id = m.src_agent_id
          JOIN rocpd_info_agent__ d ON d.id = m.dst_agent_id WHERE s.type = 'CPU' AND d.type = 'GPU'")" \
  "$(js "$st" 'd["rma_get"]')"
expect_eq "rocprofv3 shape: the copies are host -> device ones (the count is not 0)" 1 \
  "$(js "$st" 'int(d["rma_get"] > 0 and d["rma_put"] == 0 and d["rma_complete"] == d["rma_get"])')"
# API calls are the records whose category names an API, whatever their
# name: a CUDA runtime call named __cuda* is a CUDA wrapper, an NVTX range
# named cuda* is not.
cp "$TMP/nsys.db" "$TMP/nsys_names.db"
S=$(q "$TMP/nsys_names.db" "SELECT substr(name, 13) FROM sqlite_master WHERE type = 'table' AND name GLOB 'rocpd_string_*'")
api_named() { # CATEGORY NAME: the first region of CATEGORY renamed NAME
  q "$TMP/nsys_names.db" "INSERT INTO rocpd_string$S(id, guid, string) SELECT max(id) + 1, min(guid), '$2' FROM rocpd_string$S;
    UPDATE rocpd_region$S SET name_id = (SELECT id FROM rocpd_string$S WHERE string = '$2')
    WHERE id = (SELECT min(r.id) FROM rocpd_region$S r JOIN rocpd_event$S e ON e.id = r.event_id
                JOIN rocpd_string$S c ON c.id = e.category_id WHERE c.string = '$1')"
}
api_named CUDA_RUNTIME_API __cudaPushCallConfiguration
api_named NVTX cudaLooksLikeAnApiCall
expect_ok "nsys, renamed calls: db2otf2" "$O" -q "$TMP/nsys_names.db" -o "$TMP/nsys_names.otf2"
st=$(stats "$TMP/nsys_names.otf2/traces.otf2")
expect_eq "CUDA wrappers = distinct names of CUDA_*_API regions" \
  "$(q "$TMP/nsys_names.db" "SELECT count(DISTINCT s.string) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
     JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string c ON c.id = e.category_id WHERE c.string GLOB 'CUDA_*_API'")" \
  "$(js "$st" 'd["regions"].get("CUDA/WRAPPER", 0)')"
defs=$(otf2-print -G "$TMP/nsys_names.otf2/traces.otf2")
expect_eq "a CUDA_RUNTIME_API call named __cuda* is a CUDA wrapper" 1 \
  "$(grep -c '^REGION .*Name: "__cudaPushCallConfiguration".*Role: WRAPPER, Paradigm: [^,]*CUDA' <<<"$defs")"
expect_eq "an NVTX range named cuda* is a user function" 1 \
  "$(grep -c '^REGION .*Name: "cudaLooksLikeAnApiCall".*Role: FUNCTION, Paradigm: USER' <<<"$defs")"
