#!/usr/bin/env bash
# dbmerge: per-process hubs into one file as rocpd's merge lays it out.
# Checked against the inputs with sqlite3 (every table, every row), against
# rocpd's own views (tests/data/rocpd/), and through the exporters: the merged
# hub exports exactly what the inputs export. Bad input is refused with a
# message and leaves nothing.
source "$(dirname "$0")/lib.sh"

HUBS=()
for p in 100 200 300; do
  $PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/h$p.db" "0000${p}0-aaaa-4bbb-8ccc-dddddddddddd" "$p" "$p" 40 \
    $((1000000000 + p * 1000))
  HUBS+=("$TMP/h$p.db")
done
# A hub our own importer wrote (its reader indexes must come along too).
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/saxpy.db" 2>/dev/null
HUBS+=("$TMP/saxpy.db")
# (uuids in sorted order: a file holding several is read in uuid order)
expect_eq "the inputs' uuids sort in the order given" \
  "$(for h in "${HUBS[@]}"; do q "$h" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_event_*'"; done)" \
  "$(for h in "${HUBS[@]}"; do q "$h" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_event_*'"; done | sort)"

# A planted view and trigger in one input: never copied.
sqlite3 "$TMP/h200.db" "CREATE VIEW evil_view AS SELECT 1; CREATE TRIGGER evil_trigger AFTER INSERT ON
  rocpd_string_00002000_aaaa_4bbb_8ccc_dddddddddddd BEGIN SELECT 1; END;"
sums=$(sha256sum "${HUBS[@]}")
expect_ok "dbmerge merges four hubs" dbmerge -q "${HUBS[@]}" -o "$TMP/merged.db"
M="$TMP/merged.db"
expect_eq "the inputs are not modified" "$sums" "$(sha256sum "${HUBS[@]}")"

# --- every table and row of every input, unchanged ---------------------------
tables_of() { q "$1" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_*' ORDER BY name"; }
expect_eq "the merged file holds every input's tables" \
  "$(for h in "${HUBS[@]}"; do tables_of "$h"; done | sort)" "$(tables_of "$M")"
diffs=0 ntables=0
for h in "${HUBS[@]}"; do
  for t in $(tables_of "$h"); do
    ntables=$((ntables + 1))
    a=$(sqlite3 "$h" "SELECT * FROM \"$t\" ORDER BY rowid" | sha256sum)
    b=$(sqlite3 "$M" "SELECT * FROM \"$t\" ORDER BY rowid" | sha256sum)
    [ "$a" == "$b" ] || { diffs=$((diffs + 1)); echo "differs: $t"; }
  done
done
expect_eq "all $ntables tables: the same rows, guid column included" 0 "$diffs"
expect_eq "rows keep their own guid (one guid per uuid's region table)" \
  "$(for h in "${HUBS[@]}"; do q "$h" "SELECT value FROM rocpd_metadata WHERE tag='guid'"; done | sort)" \
  "$(for t in $(q "$M" "SELECT name FROM sqlite_master WHERE name GLOB 'rocpd_string_*' AND type='table'"); do q "$M" "SELECT DISTINCT guid FROM \"$t\""; done | sort)"
expect_eq "the inputs' indexes come along (our importer's reader indexes)" \
  "$(q "$TMP/saxpy.db" "SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL ORDER BY name")" \
  "$(q "$M" "SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL ORDER BY name")"
expect_eq "no trigger copied" 0 "$(q "$M" "SELECT count(*) FROM sqlite_master WHERE type='trigger'")"
expect_eq "views: only the rocpd_<name> views dbmerge builds, one per base table" \
  "$(q "$TMP/h100.db" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_*'" | sed 's/_00001000_aaaa_4bbb_8ccc_dddddddddddd$//' | sort)" \
  "$(q "$M" "SELECT name FROM sqlite_master WHERE type='view' ORDER BY name")"

# --- the rocpd_<name> views list every row; rocpd's own views do too ----------
sum_of() { local s=0; for h in "${HUBS[@]}"; do s=$((s + $(q "$h" "SELECT count(*) FROM \"$1$(q "$h" "SELECT substr(name, 12) FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_event_*'")\""))); done; echo $s; }
for base in rocpd_region rocpd_kernel_dispatch rocpd_memory_copy rocpd_memory_allocate rocpd_event rocpd_string rocpd_info_process; do
  expect_eq "view $base lists every input's rows" "$(sum_of $base)" "$(q "$M" "SELECT count(*) FROM $base")"
done
expect_eq "rocpd_metadata lists every uuid" 4 "$(q "$M" "SELECT count(*) FROM rocpd_metadata WHERE tag='uuid'")"
rocpd_counts="SELECT (SELECT count(*) FROM regions), (SELECT count(*) FROM kernels), (SELECT count(*) FROM memory_copies), (SELECT count(*) FROM memory_allocations)"
expect_eq "rocpd's data views over the merged file list what they list over the inputs" \
  "$($PY "$ROOT/tests/checkers/rocpd_query.py" "$rocpd_counts" "${HUBS[@]}")" \
  "$($PY "$ROOT/tests/checkers/rocpd_query.py" "$rocpd_counts" "$M")"
expect_eq "rocpd's kernels view lists every kernel dispatch of the rocprofv3-shaped inputs" \
  "$(( $(sum_of rocpd_kernel_dispatch) - $(q "$TMP/saxpy.db" "SELECT count(*) FROM rocpd_kernel_dispatch") ))" \
  "$($PY "$ROOT/tests/checkers/rocpd_query.py" "SELECT count(*) FROM kernels WHERE pid != (SELECT pid FROM processes WHERE command NOT GLOB 'train*' LIMIT 1)" "$M")"
expect_eq "rocpd's top_kernels: the same over the merged file as over the inputs" \
  "$($PY "$ROOT/tests/checkers/rocpd_query.py" "SELECT * FROM top_kernels" "${HUBS[@]}")" \
  "$($PY "$ROOT/tests/checkers/rocpd_query.py" "SELECT * FROM top_kernels" "$M")"

# --- rollback-journal mode, no side files ---------------------------------------
expect_eq "file format bytes 18-19: rollback journal (1 1), not WAL (2 2)" "1 1" \
  "$(od -An -tu1 -j18 -N2 "$M" | xargs)"
expect_eq "no -wal, -shm or -journal file beside the output" "merged.db" \
  "$(ls "$TMP" | grep '^merged')"
expect_eq "integrity check" ok "$(q "$M" "PRAGMA integrity_check")"

# --- every exporter: the same output from the merged hub as from the inputs ----
for tool in db2json db2perfetto db2summary; do
  $tool -q "${HUBS[@]}" -o "$TMP/in.$tool" && $tool -q "$M" -o "$TMP/merged.$tool"
  expect_eq "$tool: the merged hub gives byte-identical output to its inputs" \
    "$(sha256sum <"$TMP/in.$tool")" "$(sha256sum <"$TMP/merged.$tool")"
done
db2json -q --split process "$M" -o "$TMP/sp.json"
expect_eq "split by process on the merged hub: one part per input process" \
  "$(for h in "${HUBS[@]}"; do q "$h" "SELECT pid FROM rocpd_info_process"; done | sort -n | tr '\n' ' ')" \
  "$(ls "$TMP" | sed -n 's/^sp\.p\([0-9]*\)\.json$/\1/p' | sort -n | tr '\n' ' ')"
# (a CPU sample's frames are regions too, as rocprof-sys writes them, but
# they are exported as samples: saxpy's 12326 frames, SAMPLING_CALLCHAINS' rows)
frames=$(q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" "SELECT count(*) FROM SAMPLING_CALLCHAINS")
expect_eq "db2json: as many complete events from the merged hub as rows in the inputs, less sample frames" \
  "$(( $(sum_of rocpd_region) - frames + $(sum_of rocpd_kernel_dispatch) + $(sum_of rocpd_memory_copy) + $(sum_of rocpd_memory_allocate) ))" \
  "$($PY -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X'))" "$TMP/merged.db2json")"

# --- a merged file merges again (several uuids in one input) --------------------
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/h900.db" "fff00900-aaaa-4bbb-8ccc-dddddddddddd" 900 900 10
expect_ok "a merged file and one more hub merge" dbmerge -q "$M" "$TMP/h900.db" -o "$TMP/again.db"
expect_eq "five uuids, every region" "5 $(( $(sum_of rocpd_region) + $(q "$TMP/h900.db" "SELECT count(*) FROM rocpd_region") ))" \
  "$(q "$TMP/again.db" "SELECT (SELECT count(*) FROM rocpd_metadata WHERE tag='uuid') || ' ' || (SELECT count(*) FROM rocpd_region)")"

# --- refusals: a message, a non-zero exit, nothing left --------------------------
left() { ls "$TMP" | grep -c -e '^bad' -e '\.tmp' -e 'tt-' ; }
expect_fail "the same uuid twice" "h100.db: uuid 00001000_aaaa_4bbb_8ccc_dddddddddddd is already merged from .*h100.db" \
  dbmerge "$TMP/h100.db" "$TMP/h100.db" -o "$TMP/bad1.db"
cp "$TMP/h300.db" "$TMP/copy300.db"
expect_fail "the same uuid in two files (a copy)" "copy300.db: uuid 00003000_aaaa_4bbb_8ccc_dddddddddddd is already merged" \
  dbmerge "$TMP/h300.db" "$TMP/copy300.db" -o "$TMP/bad2.db"
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/v31.db" "22220000-aaaa-4bbb-8ccc-dddddddddddd" 22 22 5
V22=rocpd_metadata_22220000_aaaa_4bbb_8ccc_dddddddddddd
sqlite3 "$TMP/v31.db" "UPDATE $V22 SET value = '3.1' WHERE tag = 'schema_version'"
expect_fail "mixed schema versions" "v31.db: rocpd schema version 3.1, but .*h100.db has version 3: mixed schema versions" \
  dbmerge "$TMP/h100.db" "$TMP/v31.db" -o "$TMP/bad3.db"
expect_ok "... one 3.x version throughout is merged" dbmerge -q "$TMP/v31.db" -o "$TMP/v31m.db"
# The exporters' rule (common/hub/hub_catalog.h): what they refuse, dbmerge
# refuses too, instead of merging it into a file no exporter reads.
cp "$TMP/v31.db" "$TMP/v4.db"
sqlite3 "$TMP/v4.db" "UPDATE $V22 SET value = '4' WHERE tag = 'schema_version'"
expect_fail "schema version 4 alone is refused, as db2json refuses it" \
  "v4.db: rocpd schema_version '4' in $V22: these tools read version 3.x only" \
  dbmerge "$TMP/v4.db" -o "$TMP/bad3b.db"
expect_fail "... the same message from db2json" \
  "v4.db: rocpd schema_version '4' in $V22: these tools read version 3.x only" \
  db2json -q "$TMP/v4.db" -o "$TMP/bad3b.json"
cp "$TMP/v31.db" "$TMP/lz4.db"
sqlite3 "$TMP/lz4.db" "INSERT INTO $V22(tag, value) VALUES ('extdata_compression', 'lz4')"
expect_fail "compressed rocpd data is refused" \
  "lz4.db: extdata_compression = 'lz4' in $V22: compressed rocpd data is not supported" \
  dbmerge "$TMP/h100.db" "$TMP/lz4.db" -o "$TMP/bad3c.db"
cp "$TMP/v31.db" "$TMP/nometa.db"
sqlite3 "$TMP/nometa.db" "DROP VIEW IF EXISTS rocpd_metadata; DROP TABLE $V22"
expect_fail "a hub without rocpd_metadata is refused" "nometa.db: no $V22 table: schema version unknown" \
  dbmerge "$TMP/nometa.db" -o "$TMP/bad3d.db"
sum100=$(sha256sum <"$TMP/h100.db")
expect_fail "the output may not be one of the inputs" "h100.db: output would overwrite the input" \
  dbmerge "$TMP/h100.db" "$TMP/h200.db" -o "$TMP/h100.db"
ln -s "$TMP/h200.db" "$TMP/link200.db"
expect_fail "... not even through another name" "link200.db: output would overwrite the input .*h200.db" \
  dbmerge "$TMP/h100.db" "$TMP/h200.db" -o "$TMP/link200.db"
expect_eq "the input named as output is untouched" "$sum100" "$(sha256sum <"$TMP/h100.db")"
printf 'not a database' >"$TMP/junk.db"
expect_fail "a non-SQLite input" "junk.db: not a SQLite database" dbmerge "$TMP/h100.db" "$TMP/junk.db" -o "$TMP/bad4.db"
head -c 4096 "$TMP/h200.db" >"$TMP/cut.db"
expect_fail "a truncated input" "cut.db" dbmerge "$TMP/h100.db" "$TMP/cut.db" -o "$TMP/bad5.db"
sqlite3 "$TMP/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
expect_fail "a SQLite file that is not a hub" "other.db: not a rocpd hub database" \
  dbmerge "$TMP/other.db" -o "$TMP/bad6.db"
sed -e 's/{{uuid}}//g' -e 's/{{guid}}/x/g' "$ROOT/schema/rocpd_v3.sql" | sqlite3 "$TMP/plain.db" 2>/dev/null
expect_fail "tables without a uuid suffix" "plain.db: its rocpd tables have no uuid suffix" \
  dbmerge "$TMP/plain.db" -o "$TMP/bad7.db"
sqlite3 "$TMP/plain.db" "INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3')"
expect_ok "... which the exporters read (the same hub, its tables plainly named)" \
  db2json -q "$TMP/plain.db" -o "$TMP/plain.json"
expect_fail "no output to stdout" "cannot be written to stdout" dbmerge "$TMP/h100.db" -o -
expect_fail "-o is required" "missing -o" dbmerge "$TMP/h100.db"
expect_eq "nothing left by any refused merge" 0 "$(left)"
cp "$TMP/again.db" "$TMP/keep.db"; keep=$(sha256sum <"$TMP/keep.db")
expect_fail "a failed merge leaves an existing output as it was" "junk.db" \
  dbmerge "$TMP/h100.db" "$TMP/junk.db" -o "$TMP/keep.db"
expect_eq "... unchanged" "$keep" "$(sha256sum <"$TMP/keep.db")"
expect_fail "an output directory that does not exist: the output is named" "nodir/x.db: cannot create" \
  dbmerge "$TMP/h100.db" -o "$TMP/nodir/x.db"
