#!/usr/bin/env bash
# The exporters read rocpd v3 databases that these importers did not write
# (rocprofv3's): tables found by their physical names whatever the uuid,
# no reader indexes, several uuids in one file (rocpd's merged output), and
# views or triggers in the input are never trusted.
source "$(dirname "$0")/lib.sh"
stats() { $PY "$ROOT/tests/checkers/json_stats.py" "$1"; }
field() { $PY "$ROOT/tests/checkers/json_field.py" - "$1"; }

# make_hub DB UUID PID: the schema as rocprofv3 writes it (no indexes), a
# process with 3 HIP API calls and the 3 kernels they launched.
make_hub() {
  local db=$1 uuid=$2 pid=$3 sfx="_${2//-/_}"
  sed -e "s/{{uuid}}/$sfx/g" -e "s/{{guid}}/$uuid/g" "$ROOT/schema/rocpd_v3.sql" | sqlite3 "$db"
  sqlite3 "$db" <<SQL
INSERT INTO rocpd_metadata$sfx(tag, value) VALUES ('schema_version', '3'), ('uuid', '$sfx'), ('guid', '$uuid');
INSERT INTO rocpd_string$sfx(id, guid, string) VALUES (1, '$uuid', 'hipLaunchKernel'), (2, '$uuid', 'HIP_RUNTIME_API'), (3, '$uuid', 'KERNEL_DISPATCH');
INSERT INTO rocpd_info_node$sfx(id, guid, hash, machine_id, hostname) VALUES (1, '$uuid', 7, 'm-$pid', 'node$pid');
INSERT INTO rocpd_info_process$sfx(id, guid, nid, pid, command) VALUES ($pid, '$uuid', 1, $pid, 'app$pid');
INSERT INTO rocpd_info_thread$sfx(id, guid, nid, pid, tid, name) VALUES ($pid, '$uuid', 1, $pid, $pid, 'main');
INSERT INTO rocpd_info_agent$sfx(id, guid, nid, pid, type, absolute_index, logical_index, type_index, name, product_name)
  VALUES (1, '$uuid', 1, $pid, 'GPU', 2, 0, 0, 'gfx90a', 'AMD Instinct MI210');
INSERT INTO rocpd_info_queue$sfx(id, guid, nid, pid, name) VALUES (1, '$uuid', 1, $pid, 'queue 1');
INSERT INTO rocpd_info_kernel_symbol$sfx(id, guid, nid, pid, kernel_name, display_name) VALUES (1, '$uuid', 1, $pid, 'matmul_kernel', 'matmul_kernel');
INSERT INTO rocpd_event$sfx(id, guid, category_id, correlation_id) VALUES
  (1, '$uuid', 2, 1), (2, '$uuid', 2, 2), (3, '$uuid', 2, 3), (4, '$uuid', 3, 1), (5, '$uuid', 3, 2), (6, '$uuid', 3, 3);
INSERT INTO rocpd_region$sfx(guid, nid, pid, tid, start, end, name_id, event_id) VALUES
  ('$uuid', 1, $pid, $pid, 1000, 1100, 1, 1), ('$uuid', 1, $pid, $pid, 2000, 2100, 1, 2), ('$uuid', 1, $pid, $pid, 3000, 3100, 1, 3);
INSERT INTO rocpd_kernel_dispatch$sfx(guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, start, end, event_id) VALUES
  ('$uuid', 1, $pid, $pid, 1, 1, 1, 1, 1500, 1900, 4), ('$uuid', 1, $pid, $pid, 1, 1, 2, 1, 2500, 2900, 5), ('$uuid', 1, $pid, $pid, 1, 1, 3, 1, 3500, 3900, 6);
SQL
}

make_hub "$TMP/rocprof.db" "0c3a9e1d-5b7f-4e2a-9c1d-123456789abc" 500
expect_ok "a rocprofv3-style database (no reader indexes) exports" db2json -q "$TMP/rocprof.db" -o "$TMP/r.json"
expect_eq "its 3 API calls and 3 kernels" '{"X/HIP_RUNTIME_API": 3, "X/KERNEL_DISPATCH": 3}' \
  "$(stats "$TMP/r.json" | field "__import__('json').dumps(d['cat'])")"
expect_eq "kernels land on GPU 0's lane 'queue 1'" "100000000 1" \
  "$($PY -c "import json,sys; d=json.load(open(sys.argv[1]))['traceEvents']; k=[e for e in d if e.get('cat')=='KERNEL_DISPATCH']; print(k[0]['pid'], k[0]['tid'])" "$TMP/r.json")"
expect_eq "launch->kernel arrows drawn without our indexes (TEMP link tables)" 3 \
  "$(stats "$TMP/r.json" | field "d['flows_paired']")"

# Hostile views and triggers: the reader reads the physical tables.
sqlite3 "$TMP/rocprof.db" "DROP VIEW rocpd_region; CREATE VIEW rocpd_region AS SELECT * FROM nonexistent_table;
  DROP VIEW rocpd_string; CREATE VIEW rocpd_string AS SELECT 1 AS id, 'EVIL' AS string;"
sum=$(sha256sum "$TMP/rocprof.db")
expect_ok "planted views are ignored" db2json -q "$TMP/rocprof.db" -o "$TMP/r2.json"
expect_eq "same events through the physical tables" "$(stats "$TMP/r.json")" "$(stats "$TMP/r2.json")"
expect_eq "the input is not modified" "$sum" "$(sha256sum "$TMP/rocprof.db")"

# Two uuids in one file, as rocpd's merge writes them: both are read. (The
# second schema's views fail to be created: the names are taken. Tables
# and rows go in.)
make_hub "$TMP/two.db" "11111111-2222-4333-8444-555555555555" 600
make_hub "$TMP/two.db" "66666666-7777-4888-9999-aaaaaaaaaaaa" 700 2>/dev/null
expect_eq "the merged file holds two region tables" 2 \
  "$(q "$TMP/two.db" "SELECT count(*) FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_region_*'")"
expect_ok "a file with two uuids exports" db2json -q "$TMP/two.db" -o "$TMP/two.json"
expect_eq "both uuids' events, both processes" "12 [600, 700]" \
  "$($PY -c "import json,sys; d=json.load(open(sys.argv[1]))['traceEvents']; x=[e for e in d if e['ph']=='X']; print(len(x), sorted({e['pid'] for e in x if e['pid'] < 100000000}))" "$TMP/two.json")"
