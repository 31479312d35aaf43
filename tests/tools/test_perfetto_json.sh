#!/usr/bin/env bash
# db2json's JSON as Perfetto's own importer reads it (issue 36): on real
# profiles of each importer, whole and split by window, process and size,
# tests/checkers/check_perfetto_json.py finds no flow end before its start,
# no complete events overlapping on a thread without nesting, every time
# exact when read as a double, every thread with events named; and the
# whole file holds the hub's complete events, instants and launch arrows
# (counted from the hub with sqlite3). Times are relative to the file's
# baseTimeNanoseconds, one base for every part (--time-base sets it), and
# kineto2db reads them back to the hub's ns. Where ../shared/tools exists,
# Perfetto's trace_processor (perfetto/trace-check) loads the same files
# and must report the same counts and no problem stat.
source "$(dirname "$0")/lib.sh"
CHECK="$ROOT/tests/checkers/check_perfetto_json.py"
TRACE_CHECK="$SHARED_TOOLS/perfetto/trace-check"

field() { $PY -c 'import json,sys; d=json.loads(sys.stdin.readline()); print("|".join(str(d[k]) for k in sys.argv[1:]))' "$@"; }

# Complete events (end > start), instants (end = start, and samples on
# neither flow nor counter tracks) and launch arrows of a hub: GPU work
# whose correlation a host call has, or for a Kineto trace the arrows its
# input says ($2).
hub_counts() {
  if [ $# -gt 1 ]; then hub_counts "$1" | sed "s/|[0-9]*\$/|$2/"; return; fi
  q "$1" "WITH iv(s, e) AS (SELECT start, end FROM $HUB_REGIONS UNION ALL
            SELECT start, end FROM rocpd_kernel_dispatch UNION ALL
            SELECT start, end FROM rocpd_memory_copy UNION ALL
            SELECT start, end FROM rocpd_memory_allocate),
          gpu(event_id) AS (SELECT event_id FROM rocpd_kernel_dispatch UNION ALL
            SELECT event_id FROM rocpd_memory_copy)
   SELECT (SELECT count(*) FROM iv WHERE e > s) || '|' ||
     ((SELECT count(*) FROM iv WHERE e = s) + (SELECT count(*) FROM $HUB_SAMPLES s
        JOIN rocpd_track t ON t.id = s.track_id
        WHERE coalesce(json_extract(t.extdata, '\$.kind'), '') NOT IN ('flow', 'counter'))) || '|' ||
     (SELECT count(*) FROM gpu g JOIN rocpd_event ge ON ge.id = g.event_id
        WHERE ge.correlation_id IN (SELECT e.correlation_id FROM rocpd_region r
          JOIN rocpd_event e ON e.id = r.event_id))"
}

# The checker rejects each thing it checks (one small trace per rule).
names='{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}}'
bad() { printf '{"traceEvents":[%s,%s]}' "$names" "$2" >"$TMP/bad.json"
  out=$($PY "$CHECK" -q "$TMP/bad.json" 2>&1) && fail "checker: $1: passed" || {
    grep -q "$3" <<<"$out" && pass "checker: $1" || fail "checker: $1: $out"; }; }
bad "an f before its s at the same time" '{"ph":"f","id":1,"cat":"c","name":"n","pid":1,"tid":1,"ts":5.000,"bp":"e"},{"ph":"s","id":1,"cat":"c","name":"n","pid":1,"tid":1,"ts":5.000}' "before its start"
bad "complete events that overlap without nesting" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":1.000,"dur":2.000},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2.000,"dur":2.000}' "does not nest"
bad "a time not exact as a double" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":1634291041186069.800,"dur":1.000}' "not exact"
bad "a thread without a name" '{"ph":"X","name":"a","pid":1,"tid":2,"ts":1.000,"dur":1.000}' "no thread_name"
bad "a process named without events" '{"ph":"X","name":"a","pid":1,"tid":1,"ts":1.000,"dur":1.000},{"ph":"M","name":"process_name","pid":9,"tid":0,"args":{"name":"p"}}' "no events"

kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/alexnet.db"
kineto2db -q "$FIX/kineto/hta_event_sync_multi_stream.json.gz" -o "$TMP/event_sync.db"
nvvp2db -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$TMP/nvvp.db"
nvvp2db -q "$FIX/nvprof/rasolca_output_file.nvprof" -o "$TMP/nvprof.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/nsys.db"
rpd2db -q "$FIX/rocm/rpd_matmul_result.rpd" -o "$TMP/rpd.db"

rpd2db -q "$FIX/rocm/rpd_matmul_result_large.rpd" -o "$TMP/rpd_large.db"
# A Kineto trace's arrows: one per GPU work with its call's correlation,
# and its recorded flows that are no launch (tests/checkers/kineto_arrows.py).
pairs() { $PY "$ROOT/tests/checkers/kineto_arrows.py" "$1" | awk '{print $1 + $2}'; }
declare -A ARROWS=([alexnet]=$(pairs "$FIX/kineto/hta_alexnet_trace.json.gz")
  [event_sync]=$(pairs "$FIX/kineto/hta_event_sync_multi_stream.json.gz"))
counts_of() { hub_counts "$TMP/$1.db" ${ARROWS[$1]:+"${ARROWS[$1]}"}; }
# Checked by hand once: alexnet's 139 arrows are its input's s/f pairs,
# each from a call to GPU work with its correlation.
expect_eq "alexnet hub: complete events, instants, launch arrows" "728|142|139" "$(counts_of alexnet)"

files=()
for h in alexnet event_sync nvvp nvprof nsys rpd; do
  db2json -q "$TMP/$h.db" -o "$TMP/$h.json"
  db2json -q "$TMP/$h.db" --split window --windows 3 -o "$TMP/$h.win.json"
  db2json -q "$TMP/$h.db" --split process -o "$TMP/$h.proc.json"
  db2json -q "$TMP/$h.db" --max-part-size 300K -o "$TMP/$h.size.json"
  out=$($PY "$CHECK" "$TMP/$h.json" 2>&1)
  expect_eq "$h: whole JSON read as Perfetto does: no problem, the hub's slices, instants, arrows" \
    "0|$(counts_of $h)" "$(tail -1 <<<"$out" | field errors slices instants flows)"
  [ "$(tail -1 <<<"$out" | field errors)" = 0 ] || echo "${out:0:1500}"
  for part in "$TMP/$h".win.*json "$TMP/$h".proc.*json "$TMP/$h".size.*json; do files+=("$part"); done
  expect_ok "$h: split parts (window, process, size) read as Perfetto does" $PY "$CHECK" -q \
    "$TMP/$h".win.*json "$TMP/$h".proc.*json "$TMP/$h".size.*json
done
n=$(ls "$TMP"/alexnet.win.*json | wc -l)
expect_eq "alexnet: 3 window parts" "3" "$n"

# One base for every part of a split, the inputs' first start floored to a µs.
first_us() { q "$1" "SELECT min(s) / 1000 * 1000 FROM (SELECT min(start) s FROM rocpd_region UNION ALL SELECT min(start) FROM rocpd_kernel_dispatch UNION ALL SELECT min(start) FROM rocpd_memory_copy UNION ALL SELECT min(start) FROM rocpd_memory_allocate UNION ALL SELECT min(timestamp) FROM rocpd_sample)"; }
first=$(first_us "$TMP/alexnet.db")
bases=$(for f in "$TMP/alexnet.json" "$TMP"/alexnet.win.*json "$TMP"/alexnet.proc.*json; do
  $PY "$CHECK" "$f" | field base; done | sort -u)
expect_eq "alexnet: every part has the base of the whole file" "$first" "$bases"
# Two runs of one GPU, 21 hours apart: one base, every time still exact.
db2json -q "$TMP/rpd_large.db" "$TMP/rpd.db" -o "$TMP/two.json"
two=$(printf '%s\n' "$(first_us "$TMP/rpd.db")" "$(first_us "$TMP/rpd_large.db")" | sort -n | head -1)
expect_eq "two hubs in one run: the earlier first start is the base, times exact" "$two|0" "$($PY "$CHECK" "$TMP/two.json" | field base errors)"
expect_ok "--time-base" db2json -q "$TMP/alexnet.db" --time-base 1695835500000000000 -o "$TMP/tb.json"
expect_eq "--time-base is written as the base" "1695835500000000000|0" "$($PY "$CHECK" "$TMP/tb.json" | field base errors)"
expect_fail "--time-base on an exporter of absolute times" "writes absolute times" \
  db2perfetto -q "$TMP/alexnet.db" --time-base 5 -o "$TMP/x.pftrace"

# kineto2db reads the relative times back: the hub's starts and ends, to the ns.
kineto2db -q "$TMP/alexnet.json" -o "$TMP/back.db"
times() { q "$1" "SELECT group_concat(t, ',') FROM (SELECT start || '-' || end t FROM rocpd_region UNION ALL SELECT start || '-' || end FROM rocpd_kernel_dispatch UNION ALL SELECT start || '-' || end FROM rocpd_memory_copy ORDER BY t)" | sha256sum; }
expect_eq "kineto2db: the JSON's times read back are the hub's, to the ns" "$(times "$TMP/alexnet.db")" "$(times "$TMP/back.db")"

# Kineto's top-level deviceProperties and distributedInfo (issue 35), read
# by HTA and TraceLens: written back as the input had them, once for two
# inputs of the same ranks' devices.
top() {
  $PY -c '
import gzip, json, sys
def load(p):
    return json.load(gzip.open(p, "rt") if p.endswith(".gz") else open(p))
a, b = load(sys.argv[1]), load(sys.argv[2])
print("%d|%s|%s" % (len(a["deviceProperties"]), a["deviceProperties"] == b["deviceProperties"],
                    a["distributedInfo"] == b["distributedInfo"]))' "$1" "$2"
}
expect_eq "alexnet: deviceProperties (8 GPUs) and distributedInfo as the input's" "8|True|True" \
  "$(top "$TMP/alexnet.json" "$FIX/kineto/hta_alexnet_trace.json.gz")"
kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/alexnet2.db" # a second import: a hub of its own
db2json -q "$TMP/alexnet.db" "$TMP/alexnet2.db" -o "$TMP/alexnet2.json"
expect_eq "two inputs of the same devices: each device once, their distributedInfo" "8|True|True" \
  "$(top "$TMP/alexnet2.json" "$FIX/kineto/hta_alexnet_trace.json.gz")"

# Two ranks (alexnet's rank 0, the CPU-only trace's rank 34 of 300): one
# file of both has no distributedInfo (they disagree: no rank is the
# file's), and each part of a split by process carries its own rank's
# (a part of Kineto's pseudo processes, which both inputs have, none).
kineto2db -q "$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz" -o "$TMP/rank34.db"
db2json -q "$TMP/alexnet.db" "$TMP/rank34.db" -o "$TMP/ranks.json"
expect_eq "two ranks in one file: no distributedInfo" "False" \
  "$($PY -c 'import json,sys; print("distributedInfo" in json.load(open(sys.argv[1])))' "$TMP/ranks.json")"
db2json -q "$TMP/alexnet.db" "$TMP/rank34.db" --split process -o "$TMP/ranks-p.json"
want=$($PY -c '
import gzip, json, sys
print("|".join(sorted(json.dumps(json.load(gzip.open(f, "rt"))["distributedInfo"], sort_keys=True) for f in sys.argv[1:])))' \
  "$FIX/kineto/hta_alexnet_trace.json.gz" "$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz")
got=$($PY -c '
import json, sys
infos = (json.load(open(f)).get("distributedInfo") for f in sys.argv[1:])
print("|".join(sorted(set(json.dumps(i, sort_keys=True) for i in infos if i is not None))))' \
  "$TMP"/ranks-p.*.json)
expect_eq "split by process: each part carries its own rank's distributedInfo, as its input had it" "$want" "$got"

if [ -x "$TRACE_CHECK" ]; then
  for h in alexnet event_sync nvvp nvprof nsys rpd; do
    out=$("$TRACE_CHECK" "$TMP/$h.json" 2>&1)
    got=$(sed -n 's/.*slices=\([0-9]*\) instants=\([0-9]*\) flows=\([0-9]*\).*problems=\([^ ]*\).*/\1|\2|\3|\4/p' <<<"$out")
    expect_eq "$h: Perfetto's trace_processor: the hub's counts, no problem" "$(counts_of $h)|none" "$got"
  done
  expect_ok "Perfetto's trace_processor: every split part loads with no problem" "$TRACE_CHECK" "${files[@]}"
else
  echo "NOTE: ../shared/tools/perfetto/trace-check is absent: Perfetto's trace_processor was not run"
fi
