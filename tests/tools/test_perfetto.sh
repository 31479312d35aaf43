#!/usr/bin/env bash
# db2perfetto: every output decodes with the official Perfetto schema (a
# copy in tests/, so this does not need ../shared); the independent
# validator finds no error and its counts (slices per category, instants,
# counters, flows) equal counts computed from the hub with sqlite3; split
# parts are valid alone and together hold every event; bad input fails
# cleanly; memory stays flat.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"

# decodes DESC FILE: protoc parses the whole file as perfetto.protos.Trace;
# the text it decodes is kept in FILE.txt (one protoc run per file).
decodes() {
  local err
  if err=$(pftrace_text <"$2" 2>&1 >"$2.txt"); then pass "$1"
  else fail "$1: protoc --decode: ${err:0:400}"; fi
}
decoded() { pftrace_text <"$1"; }

# checked DESC FILE: validate's check (tests/checkers/check_pftrace.py, and the
# independent validator where present) in one checker run that keeps its
# counts in FILE.counts for counts_of.
checked() {
  local out
  if ! out=$(check_trace pftrace-check "$2" 2>&1 >"$2.counts"); then
    fail "$1: check_pftrace.py: ${out:0:800}"; return
  fi
  if have_validator pftrace-check && ! out=$("$SHARED_TOOLS/pftrace-check" -q "$2" 2>&1); then
    fail "$1: ../shared/tools/pftrace-check: ${out:0:800}"; return
  fi
  pass "$1"
}

# counts_of FILE.pftrace: tests/checkers/check_pftrace.py's counts, as
# "slices instants counters flows dangling | cat=n ...", against EXPECTED.
counts_of() {
  { if [ -s "$1.counts" ]; then cat "$1.counts"; else check_trace pftrace-check "$1" 2>/dev/null; fi; } | $PY -c '
import json, sys
d = json.loads(sys.stdin.read())
cats = " ".join("%s=%d" % kv for kv in sorted(d["categories"].items()))
print(d["slices"], d["instants"], d["counters"], d["flows"], d["dangling_flows"], "|", cats)'
}

# The same counts from the hub alone (plain SQL on the rocpd views).
# Slices: every interval row, under its category ("(none)" when it has
# none; GPU rows without one use the exporter's defaults). Instants and
# counters: samples by their track's kind. Flows: recorded flow ids with
# ends of two phases, and one per GPU work whose process holds a call
# with its correlation (a launch link) where the hub is tagged as drawing
# those (tracetools.launch_arrows) or records no flows.
hub_counts() {
  q "$1" "
WITH iv(cat) AS (
  SELECT COALESCE(NULLIF(c.string,''),'(none)') FROM $HUB_REGIONS r
    LEFT JOIN rocpd_event e ON e.id = r.event_id LEFT JOIN rocpd_string c ON c.id = e.category_id
  UNION ALL SELECT COALESCE(NULLIF(c.string,''),'kernel') FROM rocpd_kernel_dispatch k
    LEFT JOIN rocpd_event e ON e.id = k.event_id LEFT JOIN rocpd_string c ON c.id = e.category_id
  UNION ALL SELECT COALESCE(NULLIF(c.string,''),'gpu_memcpy') FROM rocpd_memory_copy m
    LEFT JOIN rocpd_event e ON e.id = m.event_id LEFT JOIN rocpd_string c ON c.id = e.category_id
  UNION ALL SELECT COALESCE(NULLIF(c.string,''),'memory') FROM rocpd_memory_allocate a
    LEFT JOIN rocpd_event e ON e.id = a.event_id LEFT JOIN rocpd_string c ON c.id = e.category_id),
smp(kind, cat, corr, ph) AS (
  SELECT COALESCE(json_extract(t.extdata,'\$.kind'),''), e.category_id, e.correlation_id,
         json_extract(e.extdata,'\$.ph')
  FROM $HUB_SAMPLES s JOIN rocpd_track t ON t.id = s.track_id LEFT JOIN rocpd_event e ON e.id = s.event_id),
recorded(n) AS (SELECT count(*) FROM (SELECT 1 FROM smp WHERE kind = 'flow' AND corr IS NOT NULL
  GROUP BY cat, corr HAVING count(DISTINCT ph) >= 2)),
gpu(pid, corr) AS (SELECT k.pid, e.correlation_id FROM rocpd_kernel_dispatch k
    JOIN rocpd_event e ON e.id = k.event_id
  UNION ALL SELECT m.pid, e.correlation_id FROM rocpd_memory_copy m JOIN rocpd_event e ON e.id = m.event_id),
derived(n) AS (SELECT count(*) FROM gpu WHERE corr IS NOT NULL AND EXISTS (SELECT 1 FROM rocpd_region r
  JOIN rocpd_event e ON e.id = r.event_id WHERE r.pid = gpu.pid AND e.correlation_id = gpu.corr)),
tagged(n) AS (SELECT count(*) FROM rocpd_metadata WHERE tag = 'tracetools.launch_arrows')
SELECT (SELECT count(*) FROM iv) || ' ' ||
       (SELECT count(*) FROM smp WHERE kind NOT IN ('flow','counter')) || ' ' ||
       (SELECT count(*) FROM smp WHERE kind = 'counter') || ' ' ||
       (SELECT CASE WHEN (SELECT n FROM tagged) > 0 THEN (SELECT n FROM recorded) + (SELECT n FROM derived)
               WHEN (SELECT count(*) FROM smp WHERE kind = 'flow') > 0
               THEN (SELECT n FROM recorded) ELSE (SELECT n FROM derived) END) || ' 0 | ' ||
       COALESCE((SELECT group_concat(cat || '=' || n, ' ') FROM
                 (SELECT cat, count(*) AS n FROM iv GROUP BY cat ORDER BY cat)), '')"
}

# --- every fixture an importer reads ------------------------------------
n_fixtures=0 checks=()
for src in "$FIX"/kineto/* "$FIX"/nvprof/* "$FIX"/nsys/*; do
  [ -f "$src" ] || continue
  case "$src" in *.md) continue ;; esac
  b=$(basename "$src")
  case "$src" in */kineto/*) tool=kineto2db ;; */nsys/*) tool=nsys2db ;; *) tool=nvvp2db ;; esac
  [ -x "$BIN/$tool" ] || { fail "$b: no $tool"; continue; }
  if ! $tool -q "$src" -o "$TMP/$b.db" >/dev/null 2>&1; then fail "$b: $tool cannot read it"; continue; fi
  n_fixtures=$((n_fixtures + 1))
  if ! db2perfetto -q "$TMP/$b.db" -o "$TMP/$b.pftrace"; then fail "$b: db2perfetto"; continue; fi
  decodes "$b: decodes with the official schema" "$TMP/$b.pftrace"
  # Windows: each part alone, every event in some part.
  mkdir "$TMP/$b.parts"
  db2perfetto -q "$TMP/$b.db" --split window --windows 4 -o "$TMP/$b.parts/$b.pftrace" || rm -rf "$TMP/$b.parts"
  checks+=("$b")
done
[ "$n_fixtures" -gt 0 ] || fail "no importer could read a fixture"
# One checker run for every fixture's trace and window parts (its start,
# loading the schema, cost more than checking a fixture): each trace's
# counts line, in argument order, goes to its FILE.counts; a problem line
# names its file.
args=()
for b in "${checks[@]}"; do args+=("$TMP/$b.pftrace"); done
for b in "${checks[@]}"; do [ -d "$TMP/$b.parts" ] && args+=("$TMP/$b.parts/"*); done
err=$($PY "$(own_checker pftrace-check)" "${args[@]}" 2>&1 >"$TMP/fixtures.counts"); rc=$?
named() { awk -v p="$1: " 'index($0, p) == 1' <<<"$err"; }
stray=$err
for f in "${args[@]}"; do stray=$(awk -v p="$f: " 'index($0, p) != 1' <<<"$stray"); done
# A run that failed otherwise than by naming problems vouches for no file.
if [ "$rc" -gt 1 ]; then stray=" (exit $rc) $stray"; elif [ "$rc" -eq 0 ]; then stray=; fi
# The independent validator, where present, on the same files (one run too).
shared_each pftrace-check "${args[@]}"
i=0
while read -r line; do
  [ "$i" -lt "${#checks[@]}" ] && echo "$line" >"$TMP/${checks[$i]}.pftrace.counts"
  i=$((i + 1))
done <"$TMP/fixtures.counts"
for b in "${checks[@]}"; do
  out="$(named "$TMP/$b.pftrace")$stray"
  if [ -n "$out" ]; then fail "$b: pftrace-check: check_pftrace.py: ${out:0:800}"
  elif out=$(shared_verdict "$TMP/$b.pftrace"); [ -n "$out" ]; then
    fail "$b: pftrace-check: ../shared/tools/pftrace-check: ${out:0:800}"
  else pass "$b: pftrace-check"; fi
  expect_eq "$b: slices/instants/counters/flows and categories equal the hub's" \
    "$(hub_counts "$TMP/$b.db")" "$(counts_of "$TMP/$b.pftrace")"
  if [ -d "$TMP/$b.parts" ]; then
    bad=0
    for p in "$TMP/$b.parts/"*; do
      [ -z "$(named "$p")$stray" ] || bad=1
      [ -z "$(shared_verdict "$p")" ] || bad=1
    done
    expect_eq "$b: 4 windows, each valid alone" "0" "$bad"
  else fail "$b: --split window"; fi
  rm -rf "$TMP/$b".*
done

# --- synthetic hub: exact numbers -----------------------------------------
N=3000
"$GEN" "$TMP/g.db" $N 3 >/dev/null || fail "gen_hub"
expect_ok "gen_hub: db2perfetto" db2perfetto -q "$TMP/g.db" -o "$TMP/g.pftrace"
decodes "gen_hub: decodes with the official schema" "$TMP/g.pftrace"
txt=$(<"$TMP/g.pftrace.txt")
expect_eq "gen_hub: one SLICE_BEGIN and one SLICE_END per row" "$((2 * N)) $((2 * N))" \
  "$(grep -c 'type: TYPE_SLICE_BEGIN' <<<"$txt") $(grep -c 'type: TYPE_SLICE_END' <<<"$txt")"
expect_eq "gen_hub: one flow start and one flow end per launch" "$N $N" \
  "$(grep -c '^ *flow_ids:' <<<"$txt") $(grep -c '^ *terminating_flow_ids:' <<<"$txt")"
expect_eq "gen_hub: first packet clears the incremental state, starts the sequence" \
  "sequence_flags: 1|first_packet_on_sequence: true" \
  "$(awk '/^packet/{n++} n==1' <<<"$txt" | grep -E 'sequence_flags|first_packet' | sed 's/^ *//' | paste -sd'|')"
expect_eq "gen_hub: correlation_id set on every slice" "$((2 * N))" "$(grep -c '^ *correlation_id:' <<<"$txt")"
expect_eq "gen_hub: one sequence id" "1" \
  "$(grep -o 'trusted_packet_sequence_id: [0-9]*' <<<"$txt" | sort -u | wc -l)"
checked "gen_hub: pftrace-check" "$TMP/g.pftrace"
expect_eq "gen_hub: counts equal the hub's" "$(hub_counts "$TMP/g.db")" "$(counts_of "$TMP/g.pftrace")"
expect_ok "--no-args" db2perfetto -q --no-args "$TMP/g.db" -o "$TMP/na.pftrace"
expect_eq "--no-args: no debug annotations" "0" "$(decoded "$TMP/na.pftrace" | grep -c debug_annotations)"
expect_eq "-o - writes the trace to stdout" "$(cat "$TMP/g.pftrace" | md5sum)" \
  "$(db2perfetto -q "$TMP/g.db" -o - | md5sum)"

# Interning bound: a tiny bound forces state resets mid-sequence; every
# reference must still resolve (pftrace-check checks iids per reset).
TT_PERFETTO_INTERN_LIMIT=5 db2perfetto -q "$TMP/g.db" -o "$TMP/small.pftrace" || fail "intern bound run"
decodes "interning bound: decodes" "$TMP/small.pftrace"
resets=$(grep -cE 'sequence_flags: (1|3)$' "$TMP/small.pftrace.txt")
if [ "$resets" -gt 10 ]; then pass "interning bound: state cleared $resets times"
else fail "interning bound: state cleared only $resets times"; fi
checked "interning bound: pftrace-check" "$TMP/small.pftrace"
expect_eq "interning bound: same counts" "$(counts_of "$TMP/g.pftrace")" "$(counts_of "$TMP/small.pftrace")"

# --- split by window: parts valid alone, together every event ---------------
W=7
for db in g; do
  rm -f "$TMP"/w.*
  expect_ok "$db: --split window --windows $W" db2perfetto -q "$TMP/$db.db" --split window --windows $W -o "$TMP/w.pftrace"
  expect_eq "$db: $W parts written" "$W" "$(ls "$TMP"/w.w*.pftrace | wc -l)"
  # Window edges as the driver defines them: [t0, t1+1) cut in W equal
  # parts; an interval is one piece per window it overlaps.
  read -r t0 size <<<"$(q "$TMP/$db.db" "WITH s(lo, hi) AS (SELECT min(start), max(\"end\") + 1 FROM
    (SELECT start, \"end\" FROM rocpd_region UNION ALL SELECT start, \"end\" FROM rocpd_kernel_dispatch))
    SELECT lo || ' ' || ((hi - lo + $W - 1) / $W) FROM s")"
  extra=$(q "$TMP/$db.db" "SELECT sum(MAX(0, ((\"end\" - 1 - $t0) / $size) - ((start - $t0) / $size)))
    FROM (SELECT start, \"end\" FROM rocpd_region UNION ALL SELECT start, \"end\" FROM rocpd_kernel_dispatch)
    WHERE \"end\" > start")
  spanning=$(q "$TMP/$db.db" "SELECT count(*) FROM (SELECT start, \"end\" FROM rocpd_region UNION ALL
    SELECT start, \"end\" FROM rocpd_kernel_dispatch) WHERE \"end\" > start AND
    ((\"end\" - 1 - $t0) / $size) > ((start - $t0) / $size)")
  begins=0 clipped=0 each=()
  for p in "$TMP"/w.w*.pftrace; do
    decodes "$db: $(basename "$p") decodes" "$p"
    begins=$((begins + $(grep -c 'type: TYPE_SLICE_BEGIN' "$p.txt")))
    clipped=$((clipped + $(grep -cE 'string_value: "(start|end|both)"' "$p.txt")))
    each+=("$db: $(basename "$p") valid alone" "$p")
  done
  validate_each pftrace-check "${each[@]}"
  expect_eq "$db: parts hold every row + one piece per boundary crossed" \
    "$((2 * N + extra))" "$begins"
  expect_eq "$db: boundary-spanning pieces are marked clipped" "$((spanning + extra))" "$clipped"
  [ "$extra" -gt 0 ] && pass "$db: some events span a boundary ($extra crossings)" || fail "$db: no event spans a boundary"
done

# --part K alone equals the same window of the one-pass split.
expect_ok "--part 3" db2perfetto -q "$TMP/g.db" --split window --windows $W --part 3 -o "$TMP/p.pftrace"
expect_eq "--part 3: same slices as w003 of the full split" \
  "$(grep -c TYPE_SLICE_BEGIN "$TMP/w.w003.pftrace.txt")" "$(decoded "$TMP/p.w003.pftrace" | grep -c TYPE_SLICE_BEGIN)"

# Split by process: three hubs, one process each, read together.
for i in 1 2; do "$GEN" "$TMP/g$i.db" 500 2 >/dev/null; done
sfx=$(q "$TMP/g2.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
for t in region kernel_dispatch; do q "$TMP/g2.db" "UPDATE rocpd_${t}$sfx SET pid = 5151"; done
q "$TMP/g2.db" "UPDATE rocpd_info_process$sfx SET pid = 5151; UPDATE rocpd_info_thread$sfx SET pid = 5151"
rm -f "$TMP"/pp.*
expect_ok "--split process over two hubs" db2perfetto -q "$TMP/g1.db" "$TMP/g2.db" --split process -o "$TMP/pp.pftrace"
expect_eq "--split process: one part per process" "pp.p4242.pftrace pp.p5151.pftrace" \
  "$(cd "$TMP" && ls pp.p*.pftrace | paste -sd' ')"
each=()
for p in "$TMP"/pp.p*.pftrace; do
  decodes "$(basename "$p") decodes" "$p"
  each+=("$(basename "$p") valid alone" "$p")
  expect_eq "$(basename "$p"): 1000 slices" "1000" "$(grep -c TYPE_SLICE_BEGIN "$p.txt")"
done
validate_each pftrace-check "${each[@]}"

# --- counters and instants (samples on rocpd_track rows) --------------------
"$GEN" "$TMP/c.db" 50 1 >/dev/null
sfx=$(q "$TMP/c.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/c.db" "INSERT INTO rocpd_string$sfx(string) VALUES ('mem used'), ('marker');
  INSERT INTO rocpd_track$sfx(nid, pid, tid, name_id, extdata) VALUES
    (1, 4242, NULL, (SELECT id FROM rocpd_string$sfx WHERE string = 'mem used'), '{\"kind\":\"counter\"}'),
    (1, 4242, 4242, (SELECT id FROM rocpd_string$sfx WHERE string = 'marker'), '{}');
  INSERT INTO rocpd_sample$sfx(track_id, timestamp, extdata)
    SELECT (SELECT min(id) FROM rocpd_track$sfx), start + 10, '{\"value\":' || (id * 1.5) || '}'
    FROM rocpd_region$sfx WHERE id % 5 = 0;
  INSERT INTO rocpd_sample$sfx(track_id, timestamp, extdata)
    SELECT (SELECT max(id) FROM rocpd_track$sfx), start + 20, '{}' FROM rocpd_region$sfx WHERE id % 10 = 0;"
expect_ok "counters: db2perfetto" db2perfetto -q "$TMP/c.db" -o "$TMP/c.pftrace"
decodes "counters: decodes" "$TMP/c.pftrace"
ctxt=$(<"$TMP/c.pftrace.txt")
expect_eq "counters: one COUNTER event per sample, values kept" \
  "$(q "$TMP/c.db" "SELECT group_concat(v, ' ') FROM (SELECT printf('%g', json_extract(s.extdata, '\$.value')) AS v FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id WHERE json_extract(t.extdata, '\$.kind') = 'counter' ORDER BY s.timestamp)")" \
  "$(grep -o 'double_counter_value: [0-9.e+-]*' <<<"$ctxt" | awk '{printf "%g\n", $2}' | paste -sd' ')"
expect_eq "counters: a counter track named after the rocpd_track" "1" "$(grep -c 'name: "mem used"' <<<"$ctxt")"
checked "counters: pftrace-check" "$TMP/c.pftrace"
expect_eq "counters: counts equal the hub's" "$(hub_counts "$TMP/c.db")" "$(counts_of "$TMP/c.pftrace")"

# --- overlapping intervals that do not nest go to an overflow track -------
"$GEN" "$TMP/o.db" 20 1 >/dev/null
sfx=$(q "$TMP/o.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
# Kernel i now runs [t+500, t+1700): it overlaps kernel i+1 without nesting.
q "$TMP/o.db" "UPDATE rocpd_kernel_dispatch$sfx SET \"end\" = start + 1200"
expect_ok "overlaps: db2perfetto" db2perfetto -q "$TMP/o.db" -o "$TMP/o.pftrace"
validate "overlaps: pftrace-check (strict nesting per track)" pftrace-check "$TMP/o.pftrace"
expect_eq "overlaps: an overflow track beside the stream" "1" \
  "$(decoded "$TMP/o.pftrace" | grep -c 'name: "GPU 0 .* stream 7 (overlap 1)"')"
expect_eq "overlaps: nothing lost" "40" "$(decoded "$TMP/o.pftrace" | grep -c TYPE_SLICE_BEGIN)"

# --- bad input: a message naming the file, non-zero exit, no output ------
printf 'not a database\n' >"$TMP/bad.db"
mkdir -p "$TMP/out"
expect_fail "non-SQLite input" "bad\.db" db2perfetto "$TMP/bad.db" -o "$TMP/out/x.pftrace"
sqlite3 "$TMP/other.db" "CREATE TABLE t(a); INSERT INTO t VALUES (1);"
expect_fail "SQLite file that is not a hub" "other\.db" db2perfetto "$TMP/other.db" -o "$TMP/out/x.pftrace"
expect_fail "missing input" "nosuch\.db" db2perfetto "$TMP/nosuch.db" -o "$TMP/out/x.pftrace"
expect_eq "bad input: no output file left behind" "" "$(ls -A "$TMP/out")"

# Flat memory in the number of events: tests/tools/test_memory.sh (both exporters).

# --- interned string values: every string argument survives, exactly ------
# pftrace_args.py resolves interned annotation names and string values per
# sequence (as the trace processor does); the hub's own string args, from
# sqlite3, must come back one for one.
for f in hta_alexnet_trace.json.gz kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz; do
  b=${f%%.*}
  kineto2db -q "$FIX/kineto/$f" -o "$TMP/sv-$b.db"
  db2perfetto -q "$TMP/sv-$b.db" -o "$TMP/sv-$b.pftrace"
  want=$(sqlite3 -separator $'\t' "$TMP/sv-$b.db" "SELECT name, value FROM rocpd_arg WHERE type NOT IN ('int','double','bool')" \
    | $PY -c 'import sys; sys.stdout.write("".join(sorted(sys.stdin)))' | sha256sum)
  $PY "$ROOT/tests/checkers/pftrace_args.py" "$ROOT/tests/data" "$TMP/sv-$b.pftrace" >"$TMP/sv-$b.args"
  got=$(grep -v '^clipped	' "$TMP/sv-$b.args" | sha256sum)
  expect_eq "$b: every string argument, interned or inline, round-trips" "$want" "$got"
  n=$(wc -l <"$TMP/sv-$b.args")
  [ "$n" -gt 0 ] && pass "$b: string arguments present ($n)" || fail "$b: no string arguments"
done
db2json -q "$TMP/sv-kineto_tbplugin_resnet50_worker0.db" -o "$TMP/sv-resnet.json"
ratio=$($PY -c "import os,sys; print(os.path.getsize(sys.argv[1]) / os.path.getsize(sys.argv[2]))" \
  "$TMP/sv-kineto_tbplugin_resnet50_worker0.pftrace" "$TMP/sv-resnet.json")
$PY -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 0.35 else 1)" "$ratio" \
  && pass "resnet50 with every arg: Perfetto output $ratio of the JSON (<= 0.35)" \
  || fail "resnet50: Perfetto output $ratio of the JSON (> 0.35)"

# Perfetto shows a parent's child tracks in sibling_order_rank order only
# when the parent says child_ordering: EXPLICIT (track_event_tracker.cc,
# which stores it as the track's "child_ordering" arg); without it the
# ranks every descriptor carries are ignored. Every process and GPU group
# track holds threads or streams, so each must say it.
decoded "$TMP/sv-hta_alexnet_trace.pftrace" >"$TMP/order.txt"
nproc_desc=$(grep -c '^    process {' "$TMP/order.txt")
nexplicit=$(grep -c '^    child_ordering: EXPLICIT' "$TMP/order.txt")
[ "$nproc_desc" -gt 0 ] && pass "alexnet: $nproc_desc process track descriptors" || fail "alexnet: no process track descriptor"
expect_eq "alexnet: every process track orders its children explicitly" "$nproc_desc" "$nexplicit"
if [ -x "$SHARED_TOOLS/perfetto/trace-processor" ]; then
  echo "SELECT count(*) FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id
        WHERE a.key = 'child_ordering' AND a.display_value = 'explicit';" >"$TMP/order.sql"
  got=$("$SHARED_TOOLS/perfetto/trace-processor" -q "$TMP/order.sql" "$TMP/sv-hta_alexnet_trace.pftrace" 2>/dev/null | tail -n 1)
  expect_eq "alexnet: Perfetto's trace_processor keeps the explicit order of every process track" "$nproc_desc" "$got"
else
  echo "NOTE: ../shared/tools/perfetto absent: the order was not checked in trace_processor"
fi
