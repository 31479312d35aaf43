#!/usr/bin/env bash
# kineto2db: every Kineto fixture is imported and its hub compared with
# values tests/checkers/kineto_expect.py computes from the JSON alone (per-category
# row counts, instants, flows, names, args, timestamps to the ns); small
# generated traces cover B/E, counters, bare arrays, hostile strings; bad
# input fails with file and position, leaving no output behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K="$BIN/kineto2db"
EXPECT="$ROOT/tests/checkers/kineto_expect.py"

# structural: every row joins its event and thread (rocpd's views need both)
# and every JSON column parses.
structure_checks() {
  local name=$1 db=$2
  expect_eq "$name: integrity" "ok" "$(q "$db" 'PRAGMA integrity_check')"
  expect_eq "$name: every interval row has its rocpd_event" 0 "$(q "$db" "
    SELECT (SELECT count(*) FROM rocpd_region WHERE event_id NOT IN (SELECT id FROM rocpd_event))
         + (SELECT count(*) FROM rocpd_kernel_dispatch WHERE event_id NOT IN (SELECT id FROM rocpd_event))
         + (SELECT count(*) FROM rocpd_memory_copy WHERE event_id NOT IN (SELECT id FROM rocpd_event))")"
  expect_eq "$name: every region's thread exists" 0 "$(q "$db" "
    SELECT count(*) FROM rocpd_region r LEFT JOIN rocpd_info_thread t ON t.tid = r.tid AND t.pid = r.pid
    WHERE t.id IS NULL")"
  expect_eq "$name: every kernel has its stream, agent and symbol" 0 "$(q "$db" "
    SELECT count(*) FROM rocpd_kernel_dispatch k WHERE k.stream_id NOT IN (SELECT id FROM rocpd_info_stream)
      OR k.agent_id NOT IN (SELECT id FROM rocpd_info_agent)
      OR k.kernel_id NOT IN (SELECT id FROM rocpd_info_kernel_symbol)")"
  expect_eq "$name: all extdata is valid JSON" 0 "$(q "$db" "
    SELECT (SELECT count(*) FROM rocpd_info_process WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_info_thread WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_info_agent WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_info_stream WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_track WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_event WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_sample WHERE NOT json_valid(extdata))
         + (SELECT count(*) FROM rocpd_arg WHERE type = 'json' AND NOT json_valid(value))")"
}

# import_and_check FILE: import, then run every check kineto_expect.py prints.
import_and_check() {
  local f=$1 name db exp desc sql want
  name=$(basename "$f")
  db="$TMP/$name.db"
  if ! "$K" -q "$f" -o "$db" 2>"$TMP/err"; then
    fail "$name: import: $(head -c 400 "$TMP/err")"
    return
  fi
  pass "$name: imports"
  if ! exp=$("$PY" "$EXPECT" "$f"); then fail "$name: kineto_expect.py failed"; return; fi
  while IFS=$'\t' read -r desc sql want; do
    expect_eq "$name: $desc" "$want" "$(q "$db" "$sql")"
  done <<<"$exp"
  structure_checks "$name" "$db"
}

# ---- the real traces ----
n=0
for f in "$FIX"/kineto/*.json "$FIX"/kineto/*.json.gz; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  import_and_check "$f"
done
expect_eq "Kineto fixtures found" 14 "$n"

# A few facts checked by hand against the files.
db="$TMP/hta_cpu_only_rank-34.pt.trace.json.gz.db"
# ts 1212075548353.304 us after baseTimeNanoseconds 1719853884000000000 (given last)
expect_eq "cpu_only: first op start exact to the ns" "1721065959548353304|1721065959721563017" \
  "$(q "$db" "SELECT start, \"end\" FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
              WHERE s.string = 'gloo:all_reduce' ORDER BY start LIMIT 1")"
expect_eq "cpu_only: nested JSON arg kept as JSON text" "json|[[321271]]" \
  "$(q "$db" "SELECT type, value FROM rocpd_arg WHERE name = 'Input Dims' ORDER BY id LIMIT 1")"
# Kineto's pseudo-process "Spans" is no process: with one real process it
# folds into it, a thread named after it (#46; tests/tools/test_kineto_fidelity.sh).
expect_eq "cpu_only: string pid becomes a named thread of the trace's process" "1074|Spans · PyTorch Profiler|\"Spans\"" \
  "$(q "$db" "SELECT pid, name, json_extract(extdata,'$.folded_process.kineto_pid') FROM rocpd_info_thread
              WHERE json_extract(extdata,'$.folded_process.kineto_pid') = 'Spans'" | sed 's/|Spans$/|"Spans"/')"
expect_eq "cpu_only: baseTimeNanoseconds kept" "1719853884000000000" \
  "$(q "$db" "SELECT value FROM rocpd_metadata WHERE tag = 'kineto.baseTimeNanoseconds'")"

db="$TMP/hta_alexnet_trace.json.gz.db"
expect_eq "alexnet: GPU work belongs to the CPU process" "2869224" \
  "$(q "$db" "SELECT group_concat(DISTINCT pid) FROM rocpd_kernel_dispatch")"
expect_eq "alexnet: grid_size in work-items (grid x block), block as workgroup" "221184|1|1|256|1|1" \
  "$(q "$db" "SELECT grid_size_x, grid_size_y, grid_size_z, workgroup_size_x, workgroup_size_y, workgroup_size_z
              FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id WHERE e.correlation_id = 218")"
expect_eq "alexnet: copy size from args.bytes, on stream 7" "92928|stream 7" \
  "$(q "$db" "SELECT c.size, s.name FROM rocpd_memory_copy c JOIN rocpd_info_stream s ON s.id = c.stream_id
              JOIN rocpd_event e ON e.id = c.event_id WHERE e.correlation_id = 14")"
expect_eq "alexnet: launch and kernel share correlation 218" "cuda_runtime|kernel" \
  "$(q "$db" "SELECT group_concat(n, '|') FROM (SELECT s.string n FROM rocpd_event e JOIN rocpd_string s
              ON s.id = e.category_id WHERE e.correlation_id = 218 AND e.id IN (SELECT event_id FROM
              rocpd_region UNION ALL SELECT event_id FROM rocpd_kernel_dispatch) ORDER BY n)")"

db="$TMP/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz.db"
expect_eq "resnet50 (2021 schema): 'stream 7' tid maps to stream 7" "stream 7|{\"device\":0,\"stream\":7}" \
  "$(q "$db" "SELECT name, extdata FROM rocpd_info_stream")"
expect_eq "resnet50: numeric-string tids are the numbers" "25738,25772" \
  "$(q "$db" "SELECT group_concat(DISTINCT tid) FROM (SELECT tid FROM rocpd_region WHERE pid = 25738
              AND tid < 2130706432 ORDER BY tid)")"  # not the folded \"Traces\" thread

db="$TMP/tracelens_mi210_gpu_only_trace_gpu_only_trace.json.gz.db"
expect_eq "mi210: float ts exact (6869181218039.954 us + base)" 1 \
  "$(q "$db" "SELECT count(*) FROM rocpd_kernel_dispatch WHERE start = 1759300074000000000 + 6869181218039954")"

# ---- generated traces: phases and shapes the fixtures lack ----
"$PY" - "$TMP" <<'EOF'
import json, gzip, sys
d = sys.argv[1]
ev = [
  {"ph": "B", "name": "outer", "cat": "user_annotation", "pid": 5, "tid": 6, "ts": 10, "args": {"a": 1}},
  {"ph": "B", "name": "inner", "pid": 5, "tid": 6, "ts": "11.5"},
  {"ph": "E", "pid": 5, "tid": 6, "ts": 12.0005, "args": {"late": True}},
  {"ph": "E", "pid": 5, "tid": 6, "ts": 20},
  {"ph": "E", "pid": 5, "tid": 6, "ts": 21},
  {"ph": "B", "name": "never closed", "cat": "cpu_op", "pid": 5, "tid": 7, "ts": 30},
  {"ph": "C", "name": "mem", "pid": 5, "ts": 31, "args": {"used": 10, "free": 2.5, "note": "x"}},
  {"ph": "C", "name": "util", "pid": 5, "ts": 32, "args": {"util": 7}},
  {"ph": "X", "name": "op", "cat": "cpu_op", "pid": "5", "tid": "6", "ts": 40.001, "dur": 0.0004,
   "id": 3, "foo": {"bar": [1, None, False]}, "args": {"n": None, "b": True, "s": "str", "d": 1e3}},
  {"ph": "X", "name": "label", "pid": "Spans", "tid": "x y", "ts": 41, "dur": 1},
  {"ph": "X", "name": "gpu", "cat": "cuda_sync", "pid": 0, "tid": 9, "ts": 50, "dur": 2,
   "args": {"device": 0, "stream": 9, "correlation": 77}},
  {"ph": "X", "name": "no-cat", "pid": 5, "tid": 6, "ts": 60, "dur": 1, "args": [1, 2]},
  {"ph": "s", "id": "0x1f", "pid": 5, "tid": 6, "ts": 40.5, "cat": "fwdbwd", "name": "fwdbwd"},
  {"ph": "f", "id": "abc", "pid": 5, "tid": 6, "ts": 41, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
  {"ph": "t", "id": 4, "pid": 5, "tid": 6, "ts": 42, "cat": "x", "name": "x"},
  {"ph": "n", "name": "async instant", "pid": 5, "tid": 6, "ts": 43},
  {"ph": "R", "name": "mark", "pid": 5, "tid": 6, "ts": 44, "args": {"k": "v"}},
  {"ph": "M", "name": "process_name", "pid": 5, "args": {"name": "proc five"}},
  {"ph": "M", "name": "thread_name", "pid": 5, "tid": 6, "args": {"name": "main"}},
  {"ph": "M", "name": "process_labels", "pid": 5, "args": {"labels": "CPU"}},
  {"ph": "M", "name": "custom_meta", "pid": 5, "args": {"x": [1, 2]}},
  {"ph": "M", "name": "process_name", "pid": "Spans", "args": {"name": "spans renamed"}},
]
with open(d + "/bare.json", "w") as f:
    json.dump(ev, f)
doc = {"traceEvents": ev, "displayTimeUnit": "ns", "baseTimeNanoseconds": 1000000000000}
with gzip.open(d + "/based.json.gz", "wt") as f:
    json.dump(doc, f)
EOF
import_and_check "$TMP/bare.json"
import_and_check "$TMP/based.json.gz"
db="$TMP/bare.json.db"
expect_eq "B/E nest per thread; E args join B's event" "inner|11500|12001|late|true" \
  "$(q "$db" "SELECT s.string, r.start, r.\"end\", a.name, a.value FROM rocpd_region r
              JOIN rocpd_string s ON s.id = r.name_id JOIN rocpd_arg a ON a.event_id = r.event_id
              WHERE s.string = 'inner'")"
expect_eq "unmatched B closed at the last timestamp" "30000|61000" \
  "$(q "$db" "SELECT start, \"end\" FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
              WHERE s.string = 'never closed'")"
expect_eq "counter tracks: name.key, or name alone" "mem.free=2.5|mem.used=10|util=7" \
  "$(q "$db" "SELECT group_concat(k, '|') FROM (SELECT s.string || '=' || json_extract(x.extdata,'$.value') k
              FROM rocpd_sample x JOIN rocpd_track t ON t.id = x.track_id JOIN rocpd_string s ON s.id = t.name_id
              WHERE json_extract(t.extdata,'$.kind') = 'counter' ORDER BY k)")"
expect_eq "arg types and unknown keys kept" \
  "n|null|null;b|bool|true;s|string|str;d|double|1000.0;kineto.foo|json|{\"bar\":[1,null,false]};kineto.id|int|3" \
  "$(q "$db" "SELECT group_concat(name || '|' || type || '|' || value, ';') FROM (SELECT a.* FROM rocpd_arg a
              JOIN rocpd_region r ON r.event_id = a.event_id JOIN rocpd_string s ON s.id = r.name_id
              WHERE s.string = 'op' ORDER BY a.position)")"
expect_eq "fractional us to ns; a 0.4 ns duration rounds to 0" "40001|40001" \
  "$(q "$db" "SELECT start, \"end\" FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string='op'")"
expect_eq "pid==args.device makes cuda_sync GPU work" "1|stream 9" \
  "$(q "$db" "SELECT count(*), s.name FROM rocpd_kernel_dispatch k JOIN rocpd_info_stream s ON s.id = k.stream_id")"
expect_eq "GPU work reassigned to the one CPU process" "5" \
  "$(q "$db" "SELECT group_concat(DISTINCT pid) FROM rocpd_kernel_dispatch")"
expect_eq "string flow ids pair by a stable id; hex ids read as numbers" "31" \
  "$(q "$db" "SELECT e.correlation_id FROM rocpd_sample x JOIN rocpd_event e ON e.id = x.event_id
              WHERE json_extract(e.extdata,'$.ph') = 's'")"
expect_eq "other M events kept in process extdata" '{"x":[1,2]}' \
  "$(q "$db" "SELECT json_extract(extdata,'$.custom_meta') FROM rocpd_info_process WHERE pid = 5")"
expect_eq "unknown phase kept as an instant with its ph" "mark|R" \
  "$(q "$db" "SELECT json_extract(extdata,'$.name'), json_extract(extdata,'$.ph') FROM rocpd_sample
              WHERE json_extract(extdata,'$.ph') IS NOT NULL")"
expect_eq "warnings recorded in metadata" '{"unmatched_E":1,"unmatched_B":1,"other_phase":1,"counter_not_number":1}' \
  "$(q "$db" "SELECT value FROM rocpd_metadata WHERE tag = 'kineto2db.warnings'")"
expect_eq "base time given after the events shifts every row" "1000000040001" \
  "$(q "$TMP/based.json.gz.db" "SELECT start FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
                                 WHERE s.string='op'")"

# A kernel's thread is its launching call's: of several calls with its
# correlation id, the one that starts first, else the first written (the
# writer keeps one per (pid, correlation) as the regions are read).
"$PY" - "$TMP" <<'EOF'
import json, sys
call = lambda tid, ts, corr: {"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime",
                              "pid": 5, "tid": tid, "ts": ts, "dur": 1, "args": {"correlation": corr}}
kernel = lambda ts, corr: {"ph": "X", "name": "k%d" % corr, "cat": "kernel", "pid": 0, "tid": 7,
                           "ts": ts, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": corr}}
ev = [call(61, 20, 100), call(62, 10, 100), kernel(30, 100),
      call(61, 40, 200), call(62, 40, 200), kernel(50, 200),
      kernel(60, 300), call(63, 55, 300)]
with open(sys.argv[1] + "/launch.json", "w") as f:
    json.dump({"traceEvents": ev}, f)
EOF
"$K" -q "$TMP/launch.json" -o "$TMP/launch.db" 2>"$TMP/err" || fail "launch.json: $(head -c 400 "$TMP/err")"
expect_eq "kernel thread: the launch that starts first, then the first written" "k100|62;k200|61;k300|63" \
  "$(q "$TMP/launch.db" "SELECT group_concat(s.kernel_name || '|' || t.tid, ';') FROM (SELECT k.* FROM
              rocpd_kernel_dispatch k ORDER BY k.start) k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id
              JOIN rocpd_info_thread t ON t.id = k.tid")"

# Hostile strings: NUL escapes and invalid UTF-8 are stored as U+FFFD.
printf '{"traceEvents":[{"ph":"X","name":"a\\u0000b\xff\xfe","cat":"c\\"q","ts":1,"dur":1,"pid":1,"tid":1,"args":{"k\\u0000":"v\\u0000\\n","deep":%s1%s}}]}' \
  "$(printf '[%.0s' {1..3000})" "$(printf ']%.0s' {1..3000})" >"$TMP/hostile.json"
if "$K" -q "$TMP/hostile.json" -o "$TMP/hostile.db"; then
  pass "hostile strings import"
  expect_eq "NUL and invalid UTF-8 become U+FFFD" "61EFBFBD62EFBFBDEFBFBD" \
    "$(q "$TMP/hostile.db" "SELECT hex(s.string) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id")"
  expect_eq "hostile arg name/value" "6BEFBFBD|76EFBFBD0A" \
    "$(q "$TMP/hostile.db" "SELECT hex(name), hex(value) FROM rocpd_arg WHERE type = 'string'")"
  expect_eq "3000-deep nested arg kept as JSON" "6001" \
    "$(q "$TMP/hostile.db" "SELECT length(value) FROM rocpd_arg WHERE name = 'deep'")"
else
  fail "hostile strings import"
fi

# ---- bad input ----
bad_input() { # DESC FILE
  local desc=$1 f=$2 out="$TMP/outdir/out.db" sum
  rm -rf "$TMP/outdir"; mkdir -p "$TMP/outdir"
  sum=$(md5sum <"$f")
  expect_fail "$desc: error names the file and the byte" "$(basename "$f").*byte [0-9]+" "$K" "$f" -o "$out"
  expect_eq "$desc: no output or temporary left" "" "$(ls -A "$TMP/outdir")"
  expect_eq "$desc: input unchanged" "$sum" "$(md5sum <"$f")"
}
head -c 3000 "$FIX/kineto/hta_backward_thread.json" >"$TMP/truncated.json"
bad_input "truncated .json" "$TMP/truncated.json"
gz="$FIX/kineto/hta_alexnet_trace.json.gz"
head -c $(($(stat -c %s "$gz") / 2)) "$gz" >"$TMP/truncated.json.gz"
bad_input "truncated .json.gz" "$TMP/truncated.json.gz"
head -c 4096 "$K" >"$TMP/binary.json"
bad_input "non-JSON (binary) file" "$TMP/binary.json"
printf 'hello, world\n' >"$TMP/text.json"
bad_input "non-JSON text file" "$TMP/text.json"
cp "$gz" "$TMP/corrupt.json.gz"
printf '\x00\xff\x13\x37\x00\xff\x13\x37' | dd of="$TMP/corrupt.json.gz" bs=1 seek=5000 conv=notrunc status=none
bad_input "corrupt gzip" "$TMP/corrupt.json.gz"
: >"$TMP/empty.json"
# an empty file is said to be empty before any parser sees it (issue 45 item 9)
rm -rf "$TMP/outdir"; mkdir -p "$TMP/outdir"
expect_fail "empty file: is empty (0 bytes)" "empty.json: is empty \(0 bytes\)" "$K" "$TMP/empty.json" -o "$TMP/outdir/out.db"
expect_eq "empty file: no output or temporary left" "" "$(ls -A "$TMP/outdir")"
printf '42\n' >"$TMP/scalar.json"
bad_input "top level is a number" "$TMP/scalar.json"
expect_fail "top level scalar: says so" "not an object or an array" "$K" "$TMP/scalar.json" -o "$TMP/x.db"
printf '{"traceEvents":[{"ph":"X"}] ' >"$TMP/open.json"
bad_input "unterminated object" "$TMP/open.json"
printf '{"traceEvents":[]} trailing' >"$TMP/trailing.json"
bad_input "garbage after the JSON" "$TMP/trailing.json"

# A failed import must not destroy an existing output either.
echo keep >"$TMP/existing.db"
"$K" -q "$TMP/truncated.json" -o "$TMP/existing.db" 2>/dev/null
expect_eq "failed import leaves an existing output as it was" "keep" "$(cat "$TMP/existing.db")"

expect_fail "missing input file" "nope.json" "$K" "$TMP/nope.json" -o "$TMP/x.db"
expect_fail "no -o" "-o" "$K" "$FIX/kineto/hta_backward_thread.json"
expect_ok "--help" "$K" --help
expect_ok "--version" "$K" --version
