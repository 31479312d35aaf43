#!/usr/bin/env bash
# CPU samples and call stacks (issue #49): Nsight Systems' COMPOSITE_EVENTS
# with SAMPLING_CALLCHAINS, and OSRT_API's backtraces in OSRT_CALLCHAINS,
# into the hub as rocprof-sys lays them out, and out through the exporters.
# Every expected value is read from the export (or the hub) with sqlite3,
# never from the tools: sample counts, every sample's whole stack, the
# OS-runtime calls' frames, the summary's self and total counts; a hub
# written as rocprof-sys's own writer writes one exports the same way, and
# rocpd's own views read every hub made here.
source "$(dirname "$0")/lib.sh"

EX="$FIX/nsys/extrap_ex-gpu.s10.sqlite"          # 611 samples, 257 OSRT backtraces
CL="$FIX/nsys/pipit_perlmutter-cloverleaf-cuda.sqlite" # 1531 samples, 3 threads
H="$TMP/ex.db"
nsys2db "$EX" -o "$H" 2>"$TMP/ex.err"
expect_eq "nsys2db no longer reports the sample and call-stack tables as not imported" "" \
  "$(grep -o 'COMPOSITE_EVENTS\|SAMPLING_CALLCHAINS\|OSRT_CALLCHAINS\|UnwindMethodType' "$TMP/ex.err")"

# --- the hub ------------------------------------------------------------
# A sample is its frame rows of one (track, time): events whose call_stack
# is a frame object (rocprof-sys's layout), outermost first by row id.
FRAMES="SELECT s.id, s.track_id, s.timestamp, json_extract(e.call_stack, '\$.name') AS fn
        FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id
        WHERE json_type(e.call_stack, '\$.name') = 'text'"
expect_eq "hub: one frame row per SAMPLING_CALLCHAINS row" \
  "$(q "$EX" "SELECT count(*) FROM SAMPLING_CALLCHAINS")" "$(q "$H" "SELECT count(*) FROM ($FRAMES)")"
expect_eq "hub: as many samples as COMPOSITE_EVENTS rows" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" \
  "$(q "$H" "SELECT count(*) FROM (SELECT DISTINCT track_id, timestamp FROM ($FRAMES))")"
# every sample's stack, leaf first: the export's by stackDepth, the hub's by row id
q "$EX" "SELECT group_concat(v, ' < ') FROM (SELECT s.id, y.value AS v FROM SAMPLING_CALLCHAINS s
         JOIN StringIds y ON y.id = s.symbol ORDER BY s.id, s.stackDepth) GROUP BY id" | sort >"$TMP/stacks.want"
q "$H" "SELECT group_concat(fn, ' < ') FROM (SELECT * FROM ($FRAMES) ORDER BY track_id, timestamp, id DESC)
        GROUP BY track_id, timestamp" | sort >"$TMP/stacks.hub"
expect_eq "hub: every sample's whole stack as SAMPLING_CALLCHAINS has it" "" \
  "$(diff "$TMP/stacks.want" "$TMP/stacks.hub" | head -3)"
expect_eq "hub: the first sample's leaf, by name (SAMPLING_CALLCHAINS, stackDepth 0)" \
  "$(q "$EX" "SELECT y.value FROM SAMPLING_CALLCHAINS s JOIN StringIds y ON y.id = s.symbol
              WHERE s.id = (SELECT min(id) FROM COMPOSITE_EVENTS) AND s.stackDepth = 0")" \
  "$(q "$H" "SELECT fn FROM ($FRAMES) ORDER BY timestamp, track_id, id DESC LIMIT 1")"
expect_eq "hub: an unresolved frame says so (SAMPLING_CALLCHAINS.unresolved)" \
  "$(q "$EX" "SELECT count(*) FROM SAMPLING_CALLCHAINS WHERE unresolved = 1")" \
  "$(q "$H" "SELECT count(*) FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id
             WHERE json_extract(e.call_stack, '\$.unresolved') = 1")"
expect_eq "hub: each sample's CPU and weight (COMPOSITE_EVENTS.cpu, cpuCycles) on its rows" \
  "$(q "$EX" "SELECT sum(cpu), sum(cpuCycles) FROM COMPOSITE_EVENTS")" \
  "$(q "$H" "SELECT sum(c), sum(w) FROM (SELECT DISTINCT s.track_id, s.timestamp,
             json_extract(s.extdata, '\$.cpu') c, json_extract(s.extdata, '\$.weight') w
             FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id
             WHERE json_type(e.call_stack, '\$.name') = 'text')")"
# OS-runtime calls: the backtrace on the call's own event, outermost first
expect_eq "hub: every OS-runtime call with a callchain has its backtrace" \
  "$(q "$EX" "SELECT count(*) FROM OSRT_API WHERE callchainId != 0")" \
  "$(q "$H" "SELECT count(*) FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
             WHERE json_type(e.call_stack) = 'array'")"
q "$EX" "SELECT y.value || ': ' || (SELECT group_concat(v, ' < ') FROM (SELECT f.value AS v FROM OSRT_CALLCHAINS c
         JOIN StringIds f ON f.id = c.symbol WHERE c.id = o.callchainId ORDER BY c.stackDepth))
         FROM OSRT_API o JOIN StringIds y ON y.id = o.nameId WHERE o.callchainId != 0" | sort >"$TMP/osrt.want"
q "$H" "SELECT n.string || ': ' || (SELECT group_concat(json_extract(j.value, '\$.name'), ' < ') FROM
         (SELECT value FROM json_each(e.call_stack) ORDER BY key DESC) j)
         FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string n ON n.id = r.name_id
         WHERE json_type(e.call_stack) = 'array'" | sort >"$TMP/osrt.hub"
expect_eq "hub: every OS-runtime call's frames, by name, as OSRT_CALLCHAINS has them" "" \
  "$(diff "$TMP/osrt.want" "$TMP/osrt.hub" | head -3)"

# --- db2perfetto: PerfSample packets, stacks interned -------------------
db2perfetto -q "$H" -o "$TMP/ex.pftrace"
validate "db2perfetto with samples: a valid trace" pftrace-check "$TMP/ex.pftrace"
$PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP/ex.pftrace" >"$TMP/stacks.pf"
expect_eq "db2perfetto: one PerfSample per sample, each with its whole stack" "" \
  "$(diff "$TMP/stacks.want" "$TMP/stacks.pf" | head -3)"
expect_eq "db2perfetto: no slice for a sample frame (slices as the OS runtime, CUDA and NVTX rows)" \
  "$(q "$H" "SELECT count(*) FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
             WHERE json_type(e.call_stack, '\$.name') IS NOT 'text'")" \
  "$(check_trace pftrace-check "$TMP/ex.pftrace" | $PY -c "import json,sys; d=json.load(sys.stdin); print(d['slices'] - d['categories'].get('KERNEL_DISPATCH', 0))")"
$PY "$ROOT/tests/checkers/pftrace_samples.py" --calls "$ROOT/tests/data" "$TMP/ex.pftrace" >"$TMP/osrt.pf"
expect_eq "db2perfetto: every OS-runtime call's backtrace as its slice's callstack_iid, frames as OSRT_CALLCHAINS has them" "" \
  "$(diff "$TMP/osrt.want" "$TMP/osrt.pf" | head -3)"
if [ -x "$SHARED_TOOLS/perfetto/trace-check" ]; then
  expect_eq "trace_processor reads every sample (perfetto/trace-check samples=)" \
    "samples=$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" \
    "$("$SHARED_TOOLS/perfetto/trace-check" "$TMP/ex.pftrace" | grep -o 'samples=[0-9]*')"
  echo "SELECT count(*) FROM __intrinsic_track_event_callstacks;" >"$TMP/cs.sql"
  expect_eq "trace_processor gives each OS-runtime call with a callchain its call stack" \
    "$(q "$EX" "SELECT count(*) FROM OSRT_API WHERE callchainId != 0")" \
    "$("$SHARED_TOOLS/perfetto/trace-processor" -q "$TMP/cs.sql" "$TMP/ex.pftrace" 2>/dev/null | tail -1)"
fi

# --- db2json: the Trace Event Format's sample events and stackFrames ------
db2json -q "$H" -o "$TMP/ex.json"
validate "db2json with samples: valid trace-event JSON" chrome-json-check "$TMP/ex.json"
$PY "$ROOT/tests/checkers/json_samples.py" "$TMP/ex.json" >"$TMP/stacks.json"
expect_eq "db2json: one P event per sample, its sf resolving to its whole stack in stackFrames" "" \
  "$(diff "$TMP/stacks.want" "$TMP/stacks.json" | head -3)"
$PY "$ROOT/tests/checkers/json_samples.py" --calls "$TMP/ex.json" >"$TMP/osrt.json"
expect_eq "db2json: every OS-runtime call's backtrace as its X event's sf, frames as OSRT_CALLCHAINS has them" "" \
  "$(diff "$TMP/osrt.want" "$TMP/osrt.json" | head -3)"
db2json -q --split window --windows 4 "$H" -o "$TMP/ow.json"
# a call a window cuts is in both parts: counted where it starts (not clipped at its start)
for f in "$TMP"/ow.w*.json; do
  $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("ph") == "X" and "sf" in e and e.get("args", {}).get("clipped") != "start":
        print(e["name"])' "$f"
done | sort >"$TMP/ow.names"
expect_eq "db2json --split window: each call's backtrace in the parts that hold it" \
  "$(cut -d: -f1 "$TMP/osrt.want" | sort)" "$(cat "$TMP/ow.names")"
db2json -q --max-part-size 60KB "$H" -o "$TMP/sz.json" 2>"$TMP/sz.err"
n=0
for f in "$TMP"/sz.*.json; do n=$((n + $($PY "$ROOT/tests/checkers/json_samples.py" "$f" | grep -vc '?'))); done
expect_eq "db2json --max-part-size: every sample once, its stack in its own part" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" "$n"
expect_eq "db2json --max-part-size: no part over the size (samples counted as they are planned)" "" \
  "$(grep -o 'more than --max-part-size' "$TMP/sz.err" | head -1)"

# --- db2summary: self and total -------------------------------------------
db2summary -q --format csv --top 0 "$H" -o "$TMP/s.csv"
expect_eq "db2summary: self samples per leaf function (stackDepth 0), heaviest five" \
  "$(q "$EX" "SELECT y.value || ',' || count(*) FROM SAMPLING_CALLCHAINS s JOIN StringIds y ON y.id = s.symbol
              WHERE s.stackDepth = 0 GROUP BY y.value ORDER BY count(*) DESC, y.value LIMIT 5")" \
  "$(tail -n +2 "$TMP/s.cpu_samples.csv" | head -5 | awk -F, '{print $5 "," $1}')"
expect_eq "db2summary: total samples of __libc_malloc (samples with it anywhere on the stack)" \
  "$(q "$EX" "SELECT count(DISTINCT s.id) FROM SAMPLING_CALLCHAINS s JOIN StringIds y ON y.id = s.symbol
              WHERE y.value = '__libc_malloc'")" \
  "$(awk -F, '$5 == "__libc_malloc" {print $3}' "$TMP/s.cpu_samples.csv")"
expect_eq "db2summary: self samples add up to the samples" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" \
  "$(tail -n +2 "$TMP/s.cpu_samples.csv" | awk -F, '{s += $1} END {print s}')"
nsys2db -q "$CL" -o "$TMP/cl.db" 2>/dev/null
db2summary -q --format csv --top 0 --by-process "$TMP/cl.db" -o "$TMP/p.csv"
expect_eq "db2summary --by-process: each process's samples" \
  "$(q "$CL" "SELECT (globalTid >> 24) & 16777215, count(*) FROM COMPOSITE_EVENTS GROUP BY 1 ORDER BY 1" | tr '|' ' ')" \
  "$(tail -n +2 "$TMP/p.cpu_samples.csv" | awk -F, '{s[$1] += $3} END {for (p in s) print p, s[p]}' | sort -n)"
db2summary -q --format html "$H" -o "$TMP/s.html"
expect_eq "db2summary html: a CPU samples section with its table" 2 \
  "$(grep -c 'id="cpu_samples"\|__libc_malloc</td>' "$TMP/s.html" | head -1)"

# --- splits and filters carry samples -------------------------------------
db2perfetto -q --split window --windows 3 "$H" -o "$TMP/w.pftrace"
# (one checker run over the parts, each part resolved on its own)
n=$($PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP"/w*.pftrace | wc -l)
expect_eq "--split window: the parts hold every sample once" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" "$n"
# 40 windows: some hold samples and no call at all (the process samples
# its threads between OS runtime calls); they are written too
db2json -q --split window --windows 40 "$H" -o "$TMP/w40.json"
n=$($PY "$ROOT/tests/checkers/json_samples.py" "$TMP"/w40.w*.json | wc -l)
expect_eq "--split window --windows 40: every sample once, windows with samples and no call too" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" "$n"
db2perfetto -q --max-part-size 30KB "$H" -o "$TMP/sz.pftrace" 2>"$TMP/szp.err"
n=$($PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP"/sz.*.pftrace | grep -vc '?')
expect_eq "db2perfetto --max-part-size: every sample once, its stack interned in its own part" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")" "$n"
expect_eq "db2perfetto --max-part-size: no part over the size" "" \
  "$(grep -o 'more than --max-part-size' "$TMP/szp.err" | head -1)"
db2perfetto -q --split process "$TMP/cl.db" -o "$TMP/pp.pftrace"
got=""
for p in $(q "$CL" "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM COMPOSITE_EVENTS ORDER BY 1"); do
  got+="$p $($PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP/pp.p$p.pftrace" | wc -l) "
done
expect_eq "--split process: each part holds its own process's samples" \
  "$(q "$CL" "SELECT (globalTid >> 24) & 16777215, count(*) FROM COMPOSITE_EVENTS GROUP BY 1 ORDER BY 1" | tr '|\n' '  ')" \
  "$got"
# --start/--end: the samples in [a, b), a and b from the hub's own times
read -r a b <<<"$(q "$H" "SELECT min(timestamp) + 50000000, min(timestamp) + 150000000 FROM ($FRAMES)" | tr '|' ' ')"
db2summary -q --format csv --top 0 --start "$a" --end "$b" "$H" -o "$TMP/r.csv" 2>"$TMP/r.err"
expect_eq "--start/--end: the samples in the range" \
  "$(q "$H" "SELECT count(*) FROM (SELECT DISTINCT track_id, timestamp FROM ($FRAMES) WHERE timestamp >= $a AND timestamp < $b)")" \
  "$(tail -n +2 "$TMP/r.cpu_samples.csv" 2>/dev/null | awk -F, '{s += $1} END {print s + 0}')"
expect_eq "--list-categories: the samples once each, as cpu samples (their frame rows not as regions)" \
  "timer_sampling $(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS") cpu sample" \
  "$(db2json --list-categories "$H" | awk '$1 == "timer_sampling" {print $1, $2, $3, $4}')"
db2perfetto -q --category 'TIMER_*' "$H" -o "$TMP/c1.pftrace"
db2perfetto -q --category OSRT_API "$H" -o "$TMP/c2.pftrace"
db2perfetto -q --exclude-category timer_sampling "$H" -o "$TMP/c3.pftrace"
expect_eq "--category / --exclude-category: samples follow their category (timer_sampling), case-insensitive" \
  "$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS") 0 0" \
  "$(for f in c1 c2 c3; do $PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP/$f.pftrace" | wc -l; done | xargs)"
db2perfetto -q --gpu "$H" -o "$TMP/g.pftrace"
expect_eq "--gpu: no CPU samples" 0 \
  "$($PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP/g.pftrace" | wc -l)"

# --- a hub as rocprof-sys's own writer lays samples out --------------------
R="$TMP/rocprofsys.db"
$PY "$ROOT/tests/data/make_rocprofsys_samples.py" "$R"
RFR="SELECT s.id, s.track_id, s.timestamp, json_extract(e.call_stack, '\$.name') AS fn
     FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id
     WHERE json_type(e.call_stack, '\$.name') = 'text'"
q "$R" "SELECT group_concat(fn, ' < ') FROM (SELECT * FROM ($RFR) ORDER BY track_id, timestamp, id DESC)
        GROUP BY track_id, timestamp" | sort >"$TMP/r.want"
db2perfetto -q "$R" -o "$TMP/r.pftrace"
validate "rocprof-sys layout: db2perfetto writes a valid trace" pftrace-check "$TMP/r.pftrace"
$PY "$ROOT/tests/checkers/pftrace_samples.py" "$ROOT/tests/data" "$TMP/r.pftrace" >"$TMP/r.pf"
expect_eq "rocprof-sys layout: one PerfSample per (track, time), each with its whole stack" \
  "$(cat "$TMP/r.want")" "$(cat "$TMP/r.pf")"
db2summary -q --format csv --top 0 "$R" -o "$TMP/rs.csv"
expect_eq "rocprof-sys layout: self and total per function (worker, recursive, once per sample)" \
  "$(q "$R" "SELECT fn || ',' || sum(leaf) || ',' || count(DISTINCT g) FROM (SELECT fn, track_id || '/' || timestamp AS g,
             id = (SELECT max(id) FROM ($RFR) x WHERE x.track_id = f.track_id AND x.timestamp = f.timestamp) AS leaf
             FROM ($RFR) f) GROUP BY fn ORDER BY fn")" \
  "$(tail -n +2 "$TMP/rs.cpu_samples.csv" | awk -F, '{print $5 "," $1 "," $3}' | sort)"
expect_eq "rocprof-sys layout: its whole-span region stays a slice" "samples [rocprof-sys]" \
  "$(db2summary -q --format csv --table region:timer_sampling "$R" -o - 2>/dev/null | tail -n +2 | awk -F, '{print $NF}')"

# --- db2otf2: CallingContextSample, intervals as CallingContextEnter/Leave --
OS="$ROOT/tests/checkers/otf2_samples.py"
NS=$(q "$EX" "SELECT count(*) FROM COMPOSITE_EVENTS")
db2otf2 -q "$H" -o "$TMP/ex.otf2"
validate "db2otf2 with samples: a valid archive" otf2-check "$TMP/ex.otf2/traces.otf2"
st=$($PY "$ROOT/tests/checkers/otf2_stats.py" "$TMP/ex.otf2/traces.otf2")
expect_eq "db2otf2: one CallingContextSample per sample (COMPOSITE_EVENTS)" "$NS" \
  "$(echo "$st" | $PY -c 'import json,sys; print(json.load(sys.stdin)["samples"])')"
expect_eq "db2otf2: every interval a CallingContextEnter, no Enter beside them (OTF2 keeps the two apart)" \
  "$(q "$H" "SELECT (SELECT count(*) FROM $HUB_REGIONS) + (SELECT count(*) FROM rocpd_kernel_dispatch)
             + (SELECT count(*) FROM rocpd_memory_copy) + (SELECT count(*) FROM rocpd_memory_allocate)") 0" \
  "$(echo "$st" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["cc_enter"], d["enter"] - d["cc_enter"])')"
$PY "$OS" "$TMP/ex.otf2/traces.otf2" | sort >"$TMP/stacks.o2"
expect_eq "db2otf2: each sample's calling context is its whole stack, frames by name" "" \
  "$(diff "$TMP/stacks.want" "$TMP/stacks.o2" | head -3)"
expect_eq "db2otf2: leaf functions by name and count (SAMPLING_CALLCHAINS, stackDepth 0), heaviest five" \
  "$(q "$EX" "SELECT y.value || ' ' || count(*) FROM SAMPLING_CALLCHAINS s JOIN StringIds y ON y.id = s.symbol
              WHERE s.stackDepth = 0 GROUP BY y.value ORDER BY count(*) DESC, y.value LIMIT 5")" \
  "$(sed 's/ < .*//' "$TMP/stacks.o2" | sort | uniq -c | awk '{print $2 " " $1}' | sort -k2,2nr -k1,1 | head -5)"
q "$EX" "SELECT group_concat(v, ' < ') FROM (SELECT s.id, y.value || '@' || m.value ||
         CASE WHEN s.originalIP IS NULL THEN '' ELSE printf(' 0x%x', s.originalIP) END AS v
         FROM SAMPLING_CALLCHAINS s JOIN StringIds y ON y.id = s.symbol JOIN StringIds m ON m.id = s.module
         ORDER BY s.id, s.stackDepth) GROUP BY id" | sort >"$TMP/mods.want"
expect_eq "db2otf2: each frame's module (its region's source file) and address (a context property)" "" \
  "$(diff "$TMP/mods.want" <($PY "$OS" --modules "$TMP/ex.otf2/traces.otf2" | sort) | head -3)"
expect_eq "db2otf2: every OS-runtime call's context sits under its backtrace, frames as OSRT_CALLCHAINS has them" "" \
  "$(diff "$TMP/osrt.want" <($PY "$OS" --calls "$TMP/ex.otf2/traces.otf2" | sort) | head -3)"
db2otf2 -q --exclude-category timer_sampling "$H" -o "$TMP/nos.otf2"
expect_eq "db2otf2: a part without samples keeps Enter/Leave (no calling-context event)" "0 0" \
  "$($PY "$ROOT/tests/checkers/otf2_stats.py" "$TMP/nos.otf2/traces.otf2" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["cc_enter"], d["samples"])')"
db2otf2 -q --split window --windows 3 "$H" -o "$TMP/w.otf2"
args=()
for d in "$TMP"/w.w*.otf2; do args+=("db2otf2 --split window: $(basename "$d") valid" "$d/traces.otf2"); done
validate_each otf2-check "${args[@]}"
expect_eq "db2otf2 --split window: the parts hold every sample once" "$NS" \
  "$($PY "$OS" "$TMP"/w.w*.otf2/traces.otf2 | wc -l)"
db2otf2 -q --threads 2 --split window --windows 3 "$H" -o "$TMP/t2.otf2"
same=0
for d in "$TMP"/w.w*.otf2; do diff -rq -x traces.otf2 "$d" "$TMP/t2${d#"$TMP"/w}" >/dev/null && same=$((same + 1)); done
expect_eq "db2otf2 --threads 2: the same parts as one thread writes" 3 "$same"
db2otf2 -q --max-part-size 60KB "$H" -o "$TMP/sz.otf2" 2>"$TMP/szo.err"
expect_eq "db2otf2 --max-part-size: every sample once, in more than one part" "$NS 1" \
  "$($PY "$OS" "$TMP"/sz.*.otf2/traces.otf2 | wc -l) $(ls -d "$TMP"/sz.*.otf2 | wc -l | awk '{print ($1 > 1)}')"
expect_eq "db2otf2 --max-part-size: no part over the size (samples counted as they are planned)" "" \
  "$(grep -o 'more than --max-part-size' "$TMP/szo.err" | head -1)"
db2otf2 -q --split process "$TMP/cl.db" -o "$TMP/pp.otf2"
got=""
for p in $(q "$CL" "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM COMPOSITE_EVENTS ORDER BY 1"); do
  got+="$p $($PY "$OS" "$TMP/pp.p$p.otf2/traces.otf2" | wc -l) "
done
expect_eq "db2otf2 --split process: each part holds its own process's samples" \
  "$(q "$CL" "SELECT (globalTid >> 24) & 16777215, count(*) FROM COMPOSITE_EVENTS GROUP BY 1 ORDER BY 1" | tr '|\n' '  ')" \
  "$got"
db2otf2 -q "$R" -o "$TMP/r.otf2"
validate "rocprof-sys layout: db2otf2 writes a valid archive" otf2-check "$TMP/r.otf2/traces.otf2"
expect_eq "rocprof-sys layout: db2otf2, one CallingContextSample per (track, time), each with its whole stack" \
  "$(cat "$TMP/r.want")" "$($PY "$OS" "$TMP/r.otf2/traces.otf2" | sort)"

# --- rocpd's own views read every row of every hub made here --------------
for db in "$H" "$TMP/cl.db" "$R"; do
  expect_ok "rocpd's views (tests/checkers/rocpd_views.py) list every row of $(basename "$db")" \
    $PY "$ROOT/tests/checkers/rocpd_views.py" "$db"
  if have_validator rocpd-views; then
    expect_eq "rocpd-views reads every sample row of $(basename "$db")" \
      "$(q "$db" "SELECT count(*) FROM rocpd_sample") 0" \
      "$("$SHARED_TOOLS/rocpd-views" "$db" | $PY -c "import json,sys; d=json.load(sys.stdin); print(d['views']['samples'], d['errors'])")"
  fi
done
