#!/usr/bin/env bash
# etprof2db: ExecuTorch ETDumps and legacy profiler buffers. Every expected
# value is computed in Python from the input's own values (tests/checkers/etprof_expect.py):
# the real ETDump decoded by Debian's flatc with the schema, ETDumps built
# by flatc from the JSON cases below, legacy buffers from the spec their
# generator (tests/data/etprof_gen.py) wrote them from.
source "$(dirname "$0")/lib.sh"

SCHEMA="$ROOT/schema/executorch/etdump_schema_flatcc.fbs"
REAL="$FIX/executorch/et_tutorial_etdump.etdp"
GENPY="$ROOT/tests/data/etprof_gen.py"
EXP="$ROOT/tests/checkers/etprof_expect.py"
export LC_ALL=C

# rows of the hub in etprof_expect.py's formats
arg() { echo "(SELECT value FROM rocpd_arg a WHERE a.event_id = $1 AND a.name IN ($2))"; }
regions_of() {
  q "$1" "SELECT t.name || '|' || $(arg r.event_id "'iteration'") || '|' || s.string || '|' ||
            r.start || '|' || r.end || '|' || $(arg r.event_id "'chain_idx','chain_index'") || '|' ||
            $(arg r.event_id "'instruction_idx','instruction_id'") || '|' ||
            COALESCE((SELECT 'u' FROM rocpd_arg a WHERE a.event_id = r.event_id AND a.name = 'unfinished'), '') ||
            COALESCE((SELECT 'w' FROM rocpd_arg a WHERE a.event_id = r.event_id AND a.name = 'wrapped_32bit'), '')
          FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
          JOIN rocpd_info_thread t ON t.pid = r.pid AND t.tid = r.tid" | sort
}
allocs_of() {
  q "$1" "SELECT t.name || '|' || $(arg m.event_id "'iteration'") || '|' || $(arg m.event_id "'allocator'") || '|' ||
            $(arg m.event_id "'allocator_id'") || '|' || m.size || '|' || m.start
          FROM rocpd_memory_allocate m JOIN rocpd_info_thread t ON t.pid = m.pid AND t.tid = m.tid" | sort
}
expect() { $PY "$EXP" "$@"; }
summary_of() { etprof2db -q --summary "$@" | tail -n +2; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# exports DESC DB: db2json and db2perfetto both succeed; the JSON has one X
# event per region and the Perfetto trace decodes with the official schema.
exports() {
  local d=$1 db=$2 base=${2%.db}
  if db2json -q "$db" -o "$base.json"; then
    expect_eq "$d: db2json has one X event per region and per allocation" \
      "$(q "$db" "SELECT (SELECT count(*) FROM rocpd_region) || ' ' || (SELECT count(*) FROM rocpd_memory_allocate)")" \
      "$($PY -c 'import json,sys; ev=[e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]; print(sum(e["cat"].startswith("executorch") and e["cat"] != "executorch_allocation" for e in ev), sum(e["cat"] == "executorch_allocation" for e in ev))' "$base.json")"
    validate "$d: Chrome JSON valid" chrome-json-check "$base.json"
  else fail "$d: db2json"; fi
  if db2perfetto -q "$db" -o "$base.pftrace"; then
    if protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" \
         <"$base.pftrace" >"$base.txt" 2>/dev/null; then pass "$d: Perfetto trace decodes"
    else fail "$d: Perfetto trace does not decode"; fi
    validate "$d: pftrace-check" pftrace-check "$base.pftrace"
  else fail "$d: db2perfetto"; fi
  if [ ! -x "$BIN/db2otf2" ]; then skip "$d: db2otf2 (not built in this tree)"; return; fi
  if db2otf2 -q "$db" -o "$base.otf2" && otf2-print "$base.otf2/traces.otf2" >"$base.otf2.txt" 2>&1; then
    expect_eq "$d: OTF2 archive has one ENTER per region and per instant" \
      "$(q "$db" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id WHERE json_extract(t.extdata, '$.kind') = 'instant')")" \
      "$(grep -c '^ENTER ' "$base.otf2.txt")"
    validate "$d: otf2-check" otf2-check "$base.otf2/traces.otf2"
  else fail "$d: db2otf2 / otf2-print: $(head -c 300 "$base.otf2.txt" 2>/dev/null)"; fi
}

# ================================================================ real ETDump
(cd "$TMP" && flatc --json --strict-json --size-prefixed --raw-binary -o "$TMP" "$SCHEMA" -- "$REAL")
RJ="$TMP/et_tutorial_etdump.json"
expect_eq "flatc decodes the real ETDump" "yes" "$([ -s "$RJ" ] && echo yes)"
before=$(sha "$REAL")
expect_ok "etprof2db imports the real ETDump" etprof2db -q "$REAL" -o "$TMP/real.db"
expect_eq "real ETDump unchanged" "$before" "$(sha "$REAL")"
# The facts of the fixture (FORMATS.md, PROVENANCE): 2 + 29 profile events.
expect_eq "real: runs and their event counts (from flatc's decoding)" "Default:2 Execute:29" \
  "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%d" % (r["name"], len(r["events"])) for r in d["run_data"]))' "$RJ")"
expect_eq "real: regions per block in the hub" "Default|2 Execute|29" \
  "$(q "$TMP/real.db" "SELECT t.name || '|' || count(*) FROM rocpd_region r JOIN rocpd_info_thread t ON t.tid = r.tid GROUP BY t.name ORDER BY t.name" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "real: names in order, Default run" "Method::init,Program::load_method" \
  "$(q "$TMP/real.db" "SELECT group_concat(s.string) FROM (SELECT r.name_id FROM rocpd_region r WHERE r.tid = 1 ORDER BY r.id) x JOIN rocpd_string s ON s.id = x.name_id")"
expect_eq "real: 14 native_call + 14 OPERATOR_CALL + Method::execute" "14|14|1" \
  "$(q "$TMP/real.db" "SELECT sum(s.string GLOB 'native_call_*') || '|' || sum(s.string = 'OPERATOR_CALL') || '|' || sum(s.string = 'Method::execute') FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE r.tid = 2")"
expect_eq "real: every region (name, run, times, chain, instruction) as flatc decodes it" \
  "$(expect etdump "$RJ" regions)" "$(regions_of "$TMP/real.db")"
expect_eq "real: Method::execute lasts 1898821 ticks (NOTES.md)" "1898821" \
  "$(q "$TMP/real.db" "SELECT r.end - r.start FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string = 'Method::execute'")"
expect_eq "real: --summary (events, framework tax, per-name statistics)" \
  "$(expect etdump "$RJ" summary)" "$(summary_of "$REAL")"
expect_eq "real: --time-scale us multiplies by 1000" "$(expect etdump "$RJ" regions us)" \
  "$(etprof2db -q --time-scale us "$REAL" -o "$TMP/real_us.db" && regions_of "$TMP/real_us.db")"
expect_eq "real: --time-scale cycles --cpu-freq 1200000000" "$(expect etdump "$RJ" regions cycles 1200000000)" \
  "$(etprof2db -q --time-scale cycles --cpu-freq 1200000000 "$REAL" -o "$TMP/real_cy.db" && regions_of "$TMP/real_cy.db")"
expect_eq "real: blocks in metadata" \
  '[{"name":"Default","pid":1,"tid":1,"iterations":1},{"name":"Execute","pid":1,"tid":2,"iterations":1}]' \
  "$(q "$TMP/real.db" "SELECT value FROM rocpd_metadata WHERE tag = 'etprof2db.blocks'")"
exports "real ETDump" "$TMP/real.db"
expect_fail "cycles without --cpu-freq is a usage error" "cpu-freq" etprof2db --time-scale cycles "$REAL" -o "$TMP/x.db"
expect_fail "unknown --time-scale" "time-scale" etprof2db --time-scale s "$REAL" -o "$TMP/x.db"

# ================================================================ built ETDumps
mkcase() { # NAME JSON [unprefixed]: writes $TMP/NAME.json and $TMP/NAME.etdp with flatc
  printf '%s\n' "$2" >"$TMP/$1.json"
  if [ "${3:-}" = unprefixed ]; then
    (cd "$TMP" && flatc -b -o "$TMP/fb_$1" "$SCHEMA" "$TMP/$1.json")
  else
    (cd "$TMP" && flatc -b --size-prefixed -o "$TMP/fb_$1" "$SCHEMA" "$TMP/$1.json")
  fi
  mv "$TMP/fb_$1/$1.etdp" "$TMP/$1.etdp" 2>/dev/null || mv "$TMP/fb_$1/$1.bin" "$TMP/$1.etdp"
}
check_case() { # NAME DESC
  local n=$1 d=$2
  if ! etprof2db -q "$TMP/$n.etdp" -o "$TMP/$n.db" 2>"$TMP/$n.err"; then
    fail "$d: etprof2db failed: $(head -c 300 "$TMP/$n.err")"; return; fi
  expect_eq "$d: regions" "$(expect etdump "$TMP/$n.json" regions)" "$(regions_of "$TMP/$n.db")"
  expect_eq "$d: allocations" "$(expect etdump "$TMP/$n.json" allocs)" "$(allocs_of "$TMP/$n.db")"
  expect_eq "$d: --summary" "$(expect etdump "$TMP/$n.json" summary)" "$(summary_of "$TMP/$n.etdp")"
}

mkcase empty '{"run_data": [{"name": "Execute"}, {"name": "Execute", "events": []}, {"name": "Default", "allocators": []}]}'
check_case empty "empty runs"
expect_eq "empty runs: blocks and iterations kept" \
  '[{"name":"Execute","pid":1,"tid":1,"iterations":2},{"name":"Default","pid":1,"tid":2,"iterations":1}]' \
  "$(q "$TMP/empty.db" "SELECT value FROM rocpd_metadata WHERE tag = 'etprof2db.blocks'")"
mkcase noruns '{"version": 0}'
check_case noruns "no run_data at all"

DELEG='{"run_data": [{"name": "Execute", "events": [
  {"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0, "start_time": 1000, "end_time": 90000}},
  {"profile_event": {"chain_index": 0, "instruction_id": 3, "delegate_debug_id_int": 7, "delegate_debug_metadata": [1, 2, 255], "start_time": 2000, "end_time": 30000}},
  {"profile_event": {"chain_index": 0, "instruction_id": 4, "delegate_debug_id_str": "xnn_conv_0", "delegate_debug_metadata": [], "start_time": 31000, "end_time": 61000}},
  {"profile_event": {"name": "delegate_execute", "chain_index": 0, "instruction_id": 5, "start_time": 62000, "end_time": 80000}},
  {"profile_event": {"name": "XNN_FUSED", "chain_index": 0, "instruction_id": 5, "delegate_debug_id_int": 0, "delegate_debug_id_str": "s0", "start_time": 62100, "end_time": 70000}},
  {"profile_event": {"name": "native_call_wrap.out", "chain_index": 0, "instruction_id": 6, "start_time": 4294967000, "end_time": 500}}
]}, {"name": "Execute", "events": [
  {"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0, "start_time": 100000, "end_time": 150001}},
  {"profile_event": {"chain_index": 0, "instruction_id": 3, "delegate_debug_id_int": 7, "delegate_debug_metadata": [9], "start_time": 100100, "end_time": 120000}}
]}]}'
mkcase deleg "$DELEG"
check_case deleg "delegate events (named by debug id), 32-bit wrap"
expect_eq "delegate: metadata kept as hex, category executorch_delegate" "0102ff|executorch_delegate" \
  "$(q "$TMP/deleg.db" "SELECT a.value || '|' || c.string FROM rocpd_arg a JOIN rocpd_event e ON e.id = a.event_id JOIN rocpd_string c ON c.id = e.category_id WHERE a.name = 'delegate_debug_metadata' AND a.value != '' ORDER BY a.id LIMIT 1")"
expect_eq "delegate: string ids kept as args" "xnn_conv_0|s0" \
  "$(q "$TMP/deleg.db" "SELECT group_concat(value, '|') FROM (SELECT value FROM rocpd_arg WHERE name = 'delegate_debug_id_str' ORDER BY id)")"
expect_eq "delegate: named by the int id (0 is valid) before the string, its own name kept" "0|XNN_FUSED" \
  "$(q "$TMP/deleg.db" "SELECT s.string || '|' || a.value FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id JOIN rocpd_arg a ON a.event_id = r.event_id AND a.name = 'event_name'")"

mkcase alloc '{"run_data": [{"name": "Execute", "allocators": [{"name": "method_allocator"}, {"name": "scratch"}], "events": [
  {"allocation_event": {"allocator_id": 1, "allocation_size": 4096}},
  {"allocation_event": {"allocator_id": 2, "allocation_size": 128}},
  {"allocation_event": {"allocator_id": 2}},
  {"profile_event": {"name": "native_call_add.out", "instruction_id": 0, "start_time": 5000, "end_time": 7000}},
  {"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0, "start_time": 4000, "end_time": 9000}}
]}]}'
check_case alloc "allocation events (1-based allocator ids, omitted size = 0)"
expect_eq "allocations: allocator tables in metadata (1-based ids)" \
  '[{"block":"Execute","id":1,"name":"method_allocator"},{"block":"Execute","id":2,"name":"scratch"}]' \
  "$(q "$TMP/alloc.db" "SELECT value FROM rocpd_metadata WHERE tag = 'etprof2db.allocators'")"
expect_eq "allocations: every time marked synthetic" "3" \
  "$(q "$TMP/alloc.db" "SELECT count(*) FROM rocpd_memory_allocate m JOIN rocpd_arg a ON a.event_id = m.event_id AND a.name = 'synthetic_time' AND a.value = '1'")"

mkcase defaults '{"run_data": [{"name": "Execute", "events": [
  {"profile_event": {"name": "OPERATOR_CALL", "start_time": 10, "end_time": 20}},
  {"profile_event": {"name": "zero"}}
]}]}'
check_case defaults "omitted defaults (chain_index 0, instruction_id -1, times 0)"

mkcase debug '{"run_data": [{"name": "Execute", "events": [
  {"profile_event": {"name": "native_call_add.out", "instruction_id": 0, "start_time": 100, "end_time": 200}},
  {"debug_event": {"instruction_id": 0, "debug_entry": {"val": "Int", "int_value": {"int_val": -42}}}},
  {"debug_event": {"instruction_id": 1, "name": "loss", "debug_entry": {"val": "Double", "double_value": {"double_val": 0.25}}}},
  {"debug_event": {"instruction_id": 2, "debug_entry": {"val": "Tensor", "tensor": {"scalar_type": "FLOAT", "sizes": [2, 3], "strides": [3, 1], "offset": 64}, "output": {"bool_val": true}}}}
]}]}'
check_case debug "debug events"
expect_eq "debug: scalar values as counter samples" "-42|0.25" \
  "$(q "$TMP/debug.db" "SELECT group_concat(json_extract(s.extdata, '$.value'), '|') FROM (SELECT s.* FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id WHERE json_extract(t.extdata, '$.kind') = 'counter' ORDER BY s.id) s")"
expect_eq "debug: counter tracks named by name or instruction" "debug chain 0 instr 0|loss" \
  "$(q "$TMP/debug.db" "SELECT group_concat(n.string, '|') FROM rocpd_track t JOIN rocpd_string n ON n.id = t.name_id WHERE json_extract(t.extdata, '$.kind') = 'counter'")"
expect_eq "debug: tensor dtype and sizes as args, placed at the preceding event's end" \
  'FLOAT|[2,3]|true|200' \
  "$(q "$TMP/debug.db" "SELECT json_extract(a.value, '$.scalar_type') || '|' || json(json_extract(a.value, '$.sizes')) || '|' || (SELECT value FROM rocpd_arg WHERE event_id = a.event_id AND name = 'output') || '|' || s.timestamp FROM rocpd_arg a JOIN rocpd_sample s ON s.event_id = a.event_id WHERE a.name = 'tensor'")"
exports "debug ETDump" "$TMP/debug.db"

mkcase unpref '{"run_data": [{"name": "Execute", "events": [{"profile_event": {"name": "Method::execute", "start_time": 1, "end_time": 5}}]}]}' unprefixed
check_case unpref "a buffer without the size prefix (identifier at byte 4)"
exports "delegate ETDump" "$TMP/deleg.db"

# ================================================================ legacy buffers
$PY "$GENPY" main "$TMP/main.bin" "$TMP/main.spec.json"
before=$(sha "$TMP/main.bin")
expect_ok "etprof2db imports the generated legacy buffer" etprof2db -q "$TMP/main.bin" -o "$TMP/main.db"
expect_eq "legacy input unchanged" "$before" "$(sha "$TMP/main.bin")"
expect_eq "legacy: regions: blocks, iterations, names (one of 32 bytes), times, chain, instruction" \
  "$(expect legacy "$TMP/main.spec.json" regions)" "$(regions_of "$TMP/main.db")"
expect_eq "legacy: region count = entries used (unused capacity slots ignored)" \
  "$($PY -c 'import json,sys; print(sum(len(b["events"]) for b in json.load(open(sys.argv[1]))["blocks"]))' "$TMP/main.spec.json")" \
  "$(q "$TMP/main.db" "SELECT count(*) FROM rocpd_region")"
expect_eq "legacy: allocations (allocator named, 0-based ids, at the iteration start)" \
  "$(expect legacy "$TMP/main.spec.json" allocs)" "$(allocs_of "$TMP/main.db")"
expect_eq "legacy: every allocator table entry in metadata (unused ones too)" \
  "$($PY -c '
import json, sys
seen = []
for b in json.load(open(sys.argv[1]))["blocks"]:
    for name, i in b["allocators"]:
        if (b["name"], i, name) not in seen: seen.append((b["name"], i, name))
print(json.dumps([{"block": b, "id": i, "name": n} for b, i, n in seen], separators=(",", ":")))' "$TMP/main.spec.json")" \
  "$(q "$TMP/main.db" "SELECT value FROM rocpd_metadata WHERE tag = 'etprof2db.allocators'")"
expect_eq "legacy: one thread per block name" "default|Execute|Init" \
  "$(q "$TMP/main.db" "SELECT group_concat(name, '|') FROM (SELECT name FROM rocpd_info_thread ORDER BY tid)")"
expect_eq "legacy: --summary (framework tax, statistics, allocations)" \
  "$(expect legacy "$TMP/main.spec.json" summary)" "$(summary_of "$TMP/main.bin")"
expect_eq "legacy: framework tax of Execute iteration 0 from the generator's values" \
  "$($PY -c 'E=9000; K=1500+2700+2300; print("%.2f" % (round((E-K)/E, 4)*100))')" \
  "$(summary_of "$TMP/main.bin" | awk -F'\t' '$1 == "tax" && $2 == "Execute" && $3 == 0 { print $6 }')"
expect_eq "legacy: --summary with -o writes the same database too" \
  "$(expect legacy "$TMP/main.spec.json" summary)" "$(etprof2db -q --summary "$TMP/main.bin" -o "$TMP/main2.db" | tail -n +2)"
expect_eq "legacy: ... and that database" "$(regions_of "$TMP/main.db")" "$(regions_of "$TMP/main2.db")"
expect_eq "legacy: --time-scale ms" "$(expect legacy "$TMP/main.spec.json" regions ms)" \
  "$(etprof2db -q --time-scale ms "$TMP/main.bin" -o "$TMP/main_ms.db" && regions_of "$TMP/main_ms.db")"
expect_eq "legacy: --time-scale cycles --cpu-freq 3000000" "$(expect legacy "$TMP/main.spec.json" regions cycles 3000000)" \
  "$(etprof2db -q --time-scale cycles --cpu-freq 3000000 "$TMP/main.bin" -o "$TMP/main_cy.db" && regions_of "$TMP/main_cy.db")"
exports "legacy buffer" "$TMP/main.db"

$PY "$GENPY" unfinished "$TMP/unf.bin" "$TMP/unf.spec.json"
expect_ok "legacy: an entry with end_time 0 imports" etprof2db -q "$TMP/unf.bin" -o "$TMP/unf.db"
expect_eq "legacy: unfinished entry kept, marked" "$(expect legacy "$TMP/unf.spec.json" regions)" "$(regions_of "$TMP/unf.db")"
expect_eq "legacy: unfinished entry warned about" "1" \
  "$(etprof2db "$TMP/unf.bin" -o "$TMP/unf2.db" 2>&1 | grep -c 'never ended')"
expect_eq "legacy: unfinished entry out of the statistics" "$(expect legacy "$TMP/unf.spec.json" summary)" "$(summary_of "$TMP/unf.bin")"

for c in badcount badname badalloc; do
  $PY "$GENPY" $c "$TMP/$c.bin" "$TMP/$c.spec.json"
  rm -f "$TMP/$c.db"
  expect_fail "legacy $c: inconsistent iterations are an error" "byte [0-9]+.*iteration" \
    etprof2db "$TMP/$c.bin" -o "$TMP/$c.db"
  expect_eq "legacy $c: no output" "no" "$([ -e "$TMP/$c.db" ] && echo yes || echo no)"
  expect_ok "legacy $c: --lenient imports anyway" etprof2db -q --lenient "$TMP/$c.bin" -o "$TMP/$c.db"
  expect_eq "legacy $c: --lenient warns" "1" \
    "$(etprof2db --lenient "$TMP/$c.bin" -o "$TMP/$c.db" 2>&1 | grep -c 'warning: .*iteration 0')"
  expect_eq "legacy $c: --lenient keeps every entry" "$(expect legacy "$TMP/$c.spec.json" regions)" "$(regions_of "$TMP/$c.db")"
done

# ================================================================ bad input
# bad DESC PATTERN FILE [options]: fails with a message naming the file and
# a byte offset, exit 1, and leaves no output.
bad() {
  local d=$1 pat=$2 f=$3; shift 3
  rm -f "$TMP/bad.db"
  local err rc
  err=$(etprof2db "$@" "$f" -o "$TMP/bad.db" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 1 ]; then fail "$d: exit $rc (expected 1): ${err:0:300}"
  elif [[ ! "$err" =~ $(basename "$f"):\ byte\ [0-9]+ ]]; then fail "$d: no file and byte offset in [$err]"
  elif [[ ! "$err" =~ $pat ]]; then fail "$d: message [$err] lacks /$pat/"
  elif [ -e "$TMP/bad.db" ] || ls "$TMP"/bad.db.* >/dev/null 2>&1; then fail "$d: output left behind"
  else pass "$d"; fi
}
# region offsets of block 0 from the spec: header 0..64, then the tables
read -r EV0 AL0 MM0 END0 < <($PY -c '
import json,sys; b=json.load(open(sys.argv[1]))["blocks"][0]
ev=64; al=ev+56*b["maxp"]; mm=al+40*b["maxa"]; print(ev, al, mm, mm+8*b["maxm"])' "$TMP/main.spec.json")
cut() { head -c "$1" "$TMP/main.bin" >"$TMP/cut.bin"; }
cut 0 # an empty file is said to be empty before the reader (issue 45 item 9)
expect_fail "empty file: is empty (0 bytes)" "cut.bin: is empty \(0 bytes\)" etprof2db "$TMP/cut.bin" -o "$TMP/bad.db"
[ ! -e "$TMP/bad.db" ] && pass "empty file: no output" || fail "empty file: output left behind"
cut 40;               bad "truncated in the first header" "header of block 0" "$TMP/cut.bin"
cut $((EV0 + 60));    bad "truncated in the event table" "event table of block 0" "$TMP/cut.bin"
cut $((AL0 + 10));    bad "truncated in the allocator table" "allocator table of block 0" "$TMP/cut.bin"
cut $((MM0 + 3));     bad "truncated in the allocation table" "allocation table of block 0" "$TMP/cut.bin"
cut $((END0 + 20));   bad "truncated in the second block's header" "header of block 1" "$TMP/cut.bin"
SIZE=$(stat -c %s "$TMP/main.bin")
cut $((SIZE - 1));    bad "last byte missing" "truncated" "$TMP/cut.bin"
patch() { # OFFSET FORMAT VALUE: a copy of main.bin with one field changed
  $PY -c 'import struct,sys; b=bytearray(open(sys.argv[1],"rb").read()); struct.pack_into(sys.argv[3], b, int(sys.argv[2]), int(sys.argv[4])); open(sys.argv[5],"wb").write(b)' \
    "$TMP/main.bin" "$1" "$2" "$3" "$TMP/patched.bin"
}
patch 32 '<I' 2;          bad "wrong version" "prof_ver 2, expected 1" "$TMP/patched.bin"
patch 40 '<I' 5;          bad "prof_entries over capacity" "exceeds max_prof_entries" "$TMP/patched.bin"
patch 48 '<I' 5;          bad "allocator_entries over capacity" "exceeds max_allocator_entries" "$TMP/patched.bin"
patch 56 '<I' 7;          bad "mem_prof_entries over capacity" "exceeds max_mem_prof_entries" "$TMP/patched.bin"
patch 36 '<I' 4000000000; bad "capacity past the end of the file" "truncated in the event table" "$TMP/patched.bin"
patch $((EV0 + 48)) '<Q' 999; bad "end before start" "ends .* before it starts" "$TMP/patched.bin"
patch $((MM0)) '<I' 9;    bad "allocation naming no allocator" "allocator id 9" "$TMP/patched.bin"

# ETDumps: wrong identifier, offsets and lengths outside the buffer
$PY - "$REAL" "$TMP" <<'PY'
import struct, sys
src, d = sys.argv[1], sys.argv[2]
b = open(src, "rb").read()
def w(name, data): open("%s/%s.etdp" % (d, name), "wb").write(data)
w("ident", b[:8] + b"XX00" + b[12:])
w("trunc", b[:len(b) // 2])
# the size prefix made to agree with a cut file: internal offsets now point outside
c = bytearray(b[:1200]); struct.pack_into("<I", c, 0, len(c) - 4); w("cutfixed", bytes(c))
r = bytearray(b); struct.pack_into("<I", r, 4, 0x7ffffff0); w("rootoff", bytes(r))
s = bytearray(b); i = s.find(b"Program::load_method"); struct.pack_into("<I", s, i - 4, 0x7fffffff); w("strlen", bytes(s))
v = bytearray(b); struct.pack_into("<I", v, 4 + 8, struct.unpack_from("<I", v, 4 + 8)[0]); w("same", bytes(v))
t = bytearray(b[:6]); w("tiny", bytes(t))
vv = bytearray(b); struct.pack_into("<I", vv, 0, 0); w("version", bytes(vv))
PY
bad "ETDump: wrong identifier" "wrong file identifier" "$TMP/ident.etdp"
bad "ETDump: truncated (size prefix larger than the file)" "truncated" "$TMP/trunc.etdp"
bad "ETDump: offsets past a cut buffer" "outside|past the end" "$TMP/cutfixed.etdp"
bad "ETDump: root offset outside the buffer" "outside" "$TMP/rootoff.etdp"
bad "ETDump: string length outside the buffer" "string length" "$TMP/strlen.etdp"
bad "ETDump: shorter than a header" "truncated" "$TMP/tiny.etdp"
mkcase v1 '{"version": 1, "run_data": []}'
bad "ETDump: version other than 0" "ETDump version 1" "$TMP/v1.etdp"
# every 5th byte of the real ETDump, every 3rd of the debug-event case, set
# to 0xff in turn: a clean import or a clean error, never a crash
for f in "$REAL:5" "$TMP/debug.etdp:3"; do
  crashes=0
  $PY - "${f%:*}" "${f##*:}" "$TMP/fz" <<'PY'
import sys
src, step, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
b = open(src, "rb").read()
for i in range(0, len(b), step):
    c = bytearray(b); c[i] = 0xff
    open("%s.%06d.etdp" % (out, i), "wb").write(c)
PY
  for g in "$TMP"/fz.*.etdp; do
    etprof2db -q "$g" -o "$TMP/fz.db" 2>/dev/null; rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 1 ] || { crashes=$((crashes + 1)); echo "$g: exit $rc"; }
  done
  rm -f "$TMP"/fz.*.etdp
  expect_eq "$(basename "${f%:*}") with one byte corrupted: exit 0 or 1, never a crash" "0" "$crashes"
done
expect_fail "output naming the input is refused" "overwrite the input" etprof2db "$TMP/main.bin" -o "$TMP/main.bin"
