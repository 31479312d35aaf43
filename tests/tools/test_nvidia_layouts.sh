#!/usr/bin/env bash
# nvvp2db and nsys2db on the table layouts of other profiler versions than
# the fixtures' own (issue #35): an nvprof Version 8 database and an Nsight
# Systems export from before its version tables, both built from the real
# fixtures by the scripts in tests/data/nvidia; nsys' CUDA event records
# and NVTX stream names; the export's version in messages about its
# layout. Every expected number comes from the source with sqlite3.
source "$(dirname "$0")/lib.sh"

NVP="$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp"
NSYS="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
DATA="$ROOT/tests/data/nvidia"
K=CUPTI_ACTIVITY_KIND_

# writable copy of a fixture
copy() { cp "$1" "$2" && chmod u+w "$2"; }

# ------------------------------------------------- nvprof Version 8 layout
V8="$TMP/v8.nvvp"
sqlite3 "$V8" "ATTACH '$NVP' AS src" ".read $DATA/nvprof_v8.sql"
expect_eq "v8 database built: MARKER without domain, no rows" "0|0" \
  "$(q "$V8" "SELECT (SELECT count(*) FROM pragma_table_info('${K}MARKER') WHERE name = 'domain') || '|' ||
       (SELECT count(*) FROM ${K}MARKER)")"
expect_ok "nvvp2db imports an nvprof Version 8 database" nvvp2db -q "$V8" -o "$TMP/v8.db"
expect_eq "v8: kernels = CONCURRENT_KERNEL rows" "$(q "$V8" "SELECT count(*) FROM ${K}CONCURRENT_KERNEL")" \
  "$(cat_count "$TMP/v8.db" KERNEL_DISPATCH kernel_dispatch)"
expect_eq "v8: runtime calls = RUNTIME rows" "$(q "$V8" "SELECT count(*) FROM ${K}RUNTIME")" \
  "$(cat_count "$TMP/v8.db" CUDA_RUNTIME_API region)"
expect_eq "v8: driver calls = DRIVER rows" "$(q "$V8" "SELECT count(*) FROM ${K}DRIVER")" \
  "$(cat_count "$TMP/v8.db" CUDA_DRIVER_API region)"
expect_eq "v8: copies = MEMCPY rows" "$(q "$V8" "SELECT count(*) FROM ${K}MEMCPY")" \
  "$(cat_count "$TMP/v8.db" MEMORY_COPY memory_copy)"
expect_eq "v8: memsets (no memoryKind column) = MEMSET rows, all 'Memset (Device)'" \
  "$(q "$V8" "SELECT count(*) || '|Memset (Device)' FROM ${K}MEMSET")" \
  "$(q "$TMP/v8.db" "SELECT count(*) || '|' || group_concat(DISTINCT s.kernel_name) FROM rocpd_kernel_dispatch k
       JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id JOIN rocpd_event e ON e.id = k.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'CUDA_MEMSET'")"
expect_eq "v8: sync regions = SYNCHRONIZATION rows" "$(q "$V8" "SELECT count(*) FROM ${K}SYNCHRONIZATION")" \
  "$(cat_count "$TMP/v8.db" CUDA_SYNC region)"
expect_eq "v8: CUDA event samples = CUDA_EVENT rows" "$(q "$V8" "SELECT count(*) FROM ${K}CUDA_EVENT")" \
  "$(cat_count "$TMP/v8.db" CUDA_EVENT sample)"
expect_eq "v8: overhead regions = OVERHEAD rows" "$(q "$V8" "SELECT count(*) FROM ${K}OVERHEAD")" \
  "$(cat_count "$TMP/v8.db" PROFILER_OVERHEAD region)"
expect_eq "v8: no NVTX (MARKER has no rows)" "0" "$(cat_count "$TMP/v8.db" NVTX region)"
expect_eq "v8: version kept as metadata" "8" \
  "$(q "$TMP/v8.db" "SELECT value FROM rocpd_metadata WHERE tag = 'nvprof_version'")"

# Markers with rows but no domain column: ranges kept, no domain args.
copy "$V8" "$TMP/v8m.nvvp"
sqlite3 "$TMP/v8m.nvvp" "ATTACH '$NVP' AS src;
  INSERT INTO ${K}MARKER SELECT _id_, flags, timestamp, id, objectKind, objectId, name FROM src.${K}MARKER;
  INSERT INTO ${K}MARKER_DATA SELECT * FROM src.${K}MARKER_DATA;"
expect_ok "v8 markers without domain import" nvvp2db -q "$TMP/v8m.nvvp" -o "$TMP/v8m.db"
expect_eq "v8 markers: NVTX ranges = distinct start ids" \
  "$(q "$TMP/v8m.nvvp" "SELECT count(DISTINCT id) FROM ${K}MARKER WHERE flags = 2")" \
  "$(cat_count "$TMP/v8m.db" NVTX region)"
expect_eq "v8 markers: colors kept, no domain args" \
  "$(q "$TMP/v8m.nvvp" "SELECT count(*) FROM ${K}MARKER_DATA")|0" \
  "$(q "$TMP/v8m.db" "SELECT (SELECT count(*) FROM rocpd_arg WHERE name = 'color') || '|' ||
       (SELECT count(*) FROM rocpd_arg WHERE name = 'domain')")"

# An optional table (MARKER_DATA) lacking a column: named with the version
# in a warning, the markers imported without it.
copy "$TMP/v8m.nvvp" "$TMP/v8d.nvvp"
sqlite3 "$TMP/v8d.nvvp" "ALTER TABLE ${K}MARKER_DATA DROP COLUMN color"
err=$(nvvp2db "$TMP/v8d.nvvp" -o "$TMP/v8d.db" 2>&1); rc=$?
expect_eq "v8: MARKER_DATA without color imports" "0" "$rc"
[[ "$err" =~ "table ${K}MARKER_DATA has no column color (nvprof Version 8): its rows are not imported" ]] &&
  pass "v8: the optional table's missing column named with the version" ||
  fail "v8: optional table warning: [$err]"
expect_eq "v8: ranges still all there" "$(cat_count "$TMP/v8m.db" NVTX region)" \
  "$(cat_count "$TMP/v8d.db" NVTX region)"

# A column that matters, in a table with rows: refused, version named.
copy "$V8" "$TMP/v8c.nvvp"
sqlite3 "$TMP/v8c.nvvp" "ALTER TABLE ${K}CONCURRENT_KERNEL DROP COLUMN gridId; ALTER TABLE ${K}CONCURRENT_KERNEL DROP COLUMN blockZ"
expect_fail "v8: a kernel table without blockZ is refused, naming column and version" \
  "table ${K}CONCURRENT_KERNEL has no column blockZ \(nvprof Version 8\)" \
  nvvp2db "$TMP/v8c.nvvp" -o "$TMP/bad-v8c.db"
# The same table empty: nothing is lost, the import goes on.
sqlite3 "$TMP/v8c.nvvp" "DELETE FROM ${K}CONCURRENT_KERNEL"
expect_ok "v8: the same table without rows is passed over" nvvp2db -q "$TMP/v8c.nvvp" -o "$TMP/v8c.db"
expect_eq "v8: ... and the other tables imported" "$(q "$V8" "SELECT count(*) FROM ${K}RUNTIME")" \
  "$(cat_count "$TMP/v8c.db" CUDA_RUNTIME_API region)"

# ------------------------------- Nsight Systems before the version tables
OLD="$TMP/noversion.sqlite"
copy "$NSYS" "$OLD"
sqlite3 "$OLD" ".read $DATA/nsys_no_version_tables.sql"
err=$(nsys2db "$OLD" -o "$TMP/old.db" 2>&1); rc=$?
expect_eq "nsys2db imports an export without version tables" "0" "$rc"
[[ "$err" =~ "times stay relative to the session start" ]] && pass "warning: times relative to the session" ||
  fail "relative-times warning: [$err]"
[[ "$err" =~ "TARGET_INFO_CUDA_GPU" ]] && fail "TARGET_INFO_CUDA_GPU reported unread: [$err]" ||
  pass "TARGET_INFO_CUDA_GPU read"
expect_eq "old nsys: kernels = KERNEL rows" "$(q "$OLD" "SELECT count(*) FROM ${K}KERNEL")" \
  "$(cat_count "$TMP/old.db" KERNEL_DISPATCH kernel_dispatch)"
expect_eq "old nsys: runtime calls = RUNTIME rows of eventClass 0" \
  "$(q "$OLD" "SELECT count(*) FROM ${K}RUNTIME WHERE eventClass = 0")" \
  "$(cat_count "$TMP/old.db" CUDA_RUNTIME_API region)"
expect_eq "old nsys: copies = MEMCPY rows" "$(q "$OLD" "SELECT count(*) FROM ${K}MEMCPY")" \
  "$(cat_count "$TMP/old.db" MEMORY_COPY memory_copy)"
expect_eq "old nsys: NVTX ranges = push/pop and start/end rows" \
  "$(q "$OLD" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)")" \
  "$(cat_count "$TMP/old.db" NVTX region)"
expect_eq "old nsys: overhead regions = PROFILER_OVERHEAD rows" \
  "$(q "$OLD" "SELECT count(*) FROM PROFILER_OVERHEAD")" "$(cat_count "$TMP/old.db" PROFILER_OVERHEAD region)"
expect_eq "old nsys: kernel times as in the file (relative)" \
  "$(q "$OLD" "SELECT min(start) || '|' || max(end) FROM ${K}KERNEL")" \
  "$(q "$TMP/old.db" "SELECT min(start) || '|' || max(end) FROM rocpd_kernel_dispatch")"
expect_eq "old nsys: GPU agent from TARGET_INFO_GPU.deviceId" \
  "$(q "$OLD" "SELECT deviceId || '|' || name FROM TARGET_INFO_GPU")" \
  "$(q "$TMP/old.db" "SELECT type_index || '|' || name FROM rocpd_info_agent WHERE type = 'GPU'")"
expect_eq "old nsys: TARGET_INFO_CUDA_GPU rows kept as metadata" \
  "$(q "$OLD" "SELECT group_concat(cudaId) FROM TARGET_INFO_CUDA_GPU")" \
  "$(q "$TMP/old.db" "SELECT group_concat(json_extract(value, '$.cudaId')) FROM rocpd_metadata WHERE tag = 'nsys.cuda_gpu'")"

# --------------------------------- nsys: CUDA event records, stream names
EV="$TMP/events.sqlite"
copy "$NSYS" "$EV"
# One event record per cudaMemcpy call (as cudaEventRecord would be), on
# the call's process, and one whose call is not in the file.
sqlite3 "$EV" "INSERT INTO ${K}CUDA_EVENT (deviceId, contextId, streamId, correlationId, globalPid, eventId)
    SELECT 0, 1, 7, r.correlationId, r.globalTid & ~16777215, r.rowid FROM ${K}RUNTIME r
    JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaMemcpy%' AND r.eventClass = 0;
  INSERT INTO ${K}CUDA_EVENT VALUES (0, 1, 7, 987654321, (SELECT globalPid FROM ${K}KERNEL LIMIT 1), 1);
  INSERT INTO TARGET_INFO_NVTX_CUDA_STREAM SELECT 'copies', hwId, vmId, processId, 0, contextId, streamId
    FROM TARGET_INFO_CUDA_STREAM WHERE streamId = 9;
  INSERT INTO TARGET_INFO_NVTX_CUDA_STREAM SELECT 'side', hwId, vmId, processId, 0, contextId, 99
    FROM TARGET_INFO_CUDA_STREAM WHERE streamId = 9;"
err=$(nsys2db "$EV" -o "$TMP/ev.db" 2>&1); rc=$?
expect_eq "nsys2db imports CUDA event records" "0" "$rc"
expect_eq "nsys: CUDA event samples = records with a recording call" \
  "$(q "$EV" "SELECT count(*) FROM ${K}CUDA_EVENT e WHERE EXISTS (SELECT 1 FROM ${K}RUNTIME r
       WHERE r.correlationId = e.correlationId AND r.globalTid >> 24 = e.globalPid >> 24)")" \
  "$(cat_count "$TMP/ev.db" CUDA_EVENT sample)"
expect_eq "nsys: event samples at the recording call's start (absolute), on its thread" \
  "$(q "$EV" "SELECT group_concat(t, ' ') FROM (SELECT (r.start + (SELECT utcEpochNs FROM
       TARGET_INFO_SESSION_START_TIME)) || '@' || (r.globalTid & 16777215) AS t FROM ${K}CUDA_EVENT e
       JOIN ${K}RUNTIME r ON r.correlationId = e.correlationId AND r.eventClass = 0 ORDER BY 1)")" \
  "$(q "$TMP/ev.db" "SELECT group_concat(t, ' ') FROM (SELECT s.timestamp || '@' || k.tid AS t
       FROM rocpd_sample s JOIN rocpd_track k ON k.id = s.track_id JOIN rocpd_event e ON e.id = s.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'CUDA_EVENT' ORDER BY 1)")"
[[ "$err" =~ "1 ${K}CUDA_EVENT rows have no recording API call" ]] && pass "nsys: record without its call counted" ||
  fail "orphan event warning: [$err]"
[[ "$err" =~ "table ${K}CUDA_EVENT" ]] && fail "CUDA_EVENT reported unread: [$err]" || pass "nsys: CUDA_EVENT read"
expect_eq "nsys: NVTX stream name in the stream's extdata" "stream 9|stream 99" \
  "$(q "$TMP/ev.db" "SELECT group_concat(name, '|') FROM (SELECT name FROM rocpd_info_stream
       WHERE json_extract(extdata, '$.nvtxName') IN ('copies', 'side') ORDER BY name)")"
expect_eq "nsys: a named stream keeps its CUDA description" "2" \
  "$(q "$TMP/ev.db" "SELECT json_extract(extdata, '$.flag') FROM rocpd_info_stream WHERE name = 'stream 9'")"

# ------------------------------------------- the layout named in messages
VER=$(q "$NSYS" "SELECT group_concat(value, '|') FROM (SELECT value FROM EXPORT_META_DATA
        WHERE name IN ('EXPORT_PRODUCT_VERSION', 'EXPORT_SCHEMA_VERSION') ORDER BY name)")
PRODUCT=${VER%%|*} SCHEMA=${VER#*|}
copy "$NSYS" "$TMP/nocol.sqlite"
sqlite3 "$TMP/nocol.sqlite" "ALTER TABLE ${K}MEMCPY DROP COLUMN copyKind"
expect_fail "nsys: a missing column is named with the export's version" \
  "table ${K}MEMCPY has no column copyKind \(Nsight Systems $PRODUCT, export schema $SCHEMA\)" \
  nsys2db "$TMP/nocol.sqlite" -o "$TMP/bad-nocol.db"
copy "$OLD" "$TMP/old-nocol.sqlite"
sqlite3 "$TMP/old-nocol.sqlite" "ALTER TABLE ${K}MEMCPY DROP COLUMN copyKind"
expect_fail "nsys: ... or as an export without version tables" \
  "table ${K}MEMCPY has no column copyKind \(an Nsight Systems export without version tables\)" \
  nsys2db "$TMP/old-nocol.sqlite" -o "$TMP/bad-old-nocol.db"
# A table a later release renames is not read: named, with its version.
copy "$NSYS" "$TMP/renamed.sqlite"
sqlite3 "$TMP/renamed.sqlite" "ALTER TABLE NVTX_EVENTS RENAME TO NVTX_EVENTS_RENAMED;
  UPDATE EXPORT_META_DATA SET value = '9.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION'"
n=$(q "$NSYS" "SELECT count(*) FROM NVTX_EVENTS")
expect_fail "nsys: a renamed table named with its row count and the version" \
  "table NVTX_EVENTS_RENAMED \($n rows\) has no hub mapping \(Nsight Systems $PRODUCT, export schema 9\.0\.0\)" \
  bash -c "nsys2db --verbose '$TMP/renamed.sqlite' -o '$TMP/renamed.db' && false"
expect_fail "nsys: ... and without --verbose, in the one line with the version" \
  "other tables, in Nsight Systems $PRODUCT, export schema 9\.0\.0 \(NVTX_EVENTS_RENAMED\)" \
  bash -c "nsys2db '$TMP/renamed.sqlite' -o '$TMP/renamed.db' && false"
expect_eq "nsys: the schema version kept as metadata" "$SCHEMA" \
  "$(q "$TMP/ev.db" "SELECT value FROM rocpd_metadata WHERE tag = 'nsys.EXPORT_SCHEMA_VERSION'")"
left=$(ls "$TMP"/bad-*.db* 2>/dev/null | wc -l)
expect_eq "refused imports leave no output file" "0" "$left"
