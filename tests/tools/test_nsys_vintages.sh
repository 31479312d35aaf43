#!/usr/bin/env bash
# nsys2db on real Nsight Systems exports of three more vintages (issue 35;
# fixtures/PROVENANCE-nvidia.md): one from before the version tables
# (Extra-P's, 2021: TARGET_INFO_GPU(vmId, deviceId), TARGET_INFO_CUDA_GPU,
# no session start), 2024.5.1 (schema 3.13.2, META_DATA_EXPORT) and
# 2025.5.2 (schema 3.24.0: CUDA event records with their own timestamp
# column, CUPTI's overhead in CUPTI_ACTIVITY_KIND_OVERHEAD). Every count
# is taken from the source with sqlite3.
source "$(dirname "$0")/lib.sh"
K=CUPTI_ACTIVITY_KIND_
cat_count() {
  q "$1" "SELECT count(*) FROM (SELECT event_id FROM rocpd_region UNION ALL SELECT event_id FROM
    rocpd_kernel_dispatch UNION ALL SELECT event_id FROM rocpd_memory_copy UNION ALL SELECT event_id
    FROM rocpd_memory_allocate UNION ALL SELECT event_id FROM rocpd_sample) x JOIN rocpd_event e
    ON e.id = x.event_id JOIN rocpd_string s ON s.id = e.category_id WHERE s.string = '$2'"
}
# rows SRC TABLE [WHERE]: the source's rows (0 when the table is absent).
rows() {
  if [ "$(q "$1" "SELECT count(*) FROM sqlite_master WHERE name = '$2'")" = 1 ]; then
    q "$1" "SELECT count(*) FROM $2 ${3:-}"
  else echo 0; fi
}
for f in extrap_ex-gpu.s10 pipit_perlmutter-cloverleaf-cuda flameox_nsight-2025.5.2; do
  src="$FIX/nsys/$f.sqlite" db="$TMP/$f.db"
  err=$(nsys2db "$src" -o "$db" 2>&1); rc=$?
  expect_eq "$f: imports" 0 "$rc"
  expect_eq "$f: kernels = KERNEL rows" "$(rows "$src" ${K}KERNEL)" "$(cat_count "$db" KERNEL_DISPATCH)"
  expect_eq "$f: runtime calls = RUNTIME rows of eventClass 0" "$(rows "$src" ${K}RUNTIME "WHERE eventClass = 0")" \
    "$(cat_count "$db" CUDA_RUNTIME_API)"
  expect_eq "$f: driver calls = RUNTIME rows of eventClass 1" "$(rows "$src" ${K}RUNTIME "WHERE eventClass = 1")" \
    "$(cat_count "$db" CUDA_DRIVER_API)"
  expect_eq "$f: copies = MEMCPY rows" "$(rows "$src" ${K}MEMCPY)" "$(cat_count "$db" MEMORY_COPY)"
  expect_eq "$f: synchronizations = SYNCHRONIZATION rows" "$(rows "$src" ${K}SYNCHRONIZATION)" "$(cat_count "$db" CUDA_SYNC)"
  expect_eq "$f: OS runtime calls = OSRT_API rows" "$(rows "$src" OSRT_API)" "$(cat_count "$db" OSRT_API)"
  expect_eq "$f: overhead = PROFILER_OVERHEAD and CUPTI OVERHEAD rows" \
    "$(( $(rows "$src" PROFILER_OVERHEAD) + $(rows "$src" ${K}OVERHEAD) ))" "$(cat_count "$db" PROFILER_OVERHEAD)"
  expect_eq "$f: CUDA event samples = CUDA_EVENT rows" "$(rows "$src" ${K}CUDA_EVENT)" "$(cat_count "$db" CUDA_EVENT)"
  [[ "$err" =~ ${K}(KERNEL|RUNTIME|MEMCPY|SYNCHRONIZATION|CUDA_EVENT|OVERHEAD)\ \( ]] &&
    fail "$f: a CUDA table reported unread: $err" || pass "$f: every CUDA table read"
done
# the layout each export states, in the hub's metadata
expect_eq "2024.5.1: schema version from META_DATA_EXPORT" "3.13.2" \
  "$(q "$TMP/pipit_perlmutter-cloverleaf-cuda.db" "SELECT value FROM rocpd_metadata WHERE tag = 'nsys.EXPORT_SCHEMA_VERSION'")"
expect_eq "2025.5.2: schema version from META_DATA_EXPORT" "3.24.0" \
  "$(q "$TMP/flameox_nsight-2025.5.2.db" "SELECT value FROM rocpd_metadata WHERE tag = 'nsys.EXPORT_SCHEMA_VERSION'")"
OLD="$FIX/nsys/extrap_ex-gpu.s10.sqlite"
expect_eq "old layout: GPU agents from TARGET_INFO_GPU.deviceId" \
  "$(q "$OLD" "SELECT group_concat(deviceId || '|' || name, ' ') FROM (SELECT * FROM TARGET_INFO_GPU ORDER BY deviceId)")" \
  "$(q "$TMP/extrap_ex-gpu.s10.db" "SELECT group_concat(type_index || '|' || name, ' ') FROM (SELECT * FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY type_index)")"
expect_eq "old layout: kernel times as in the file (relative to the session)" \
  "$(q "$OLD" "SELECT min(start) || '|' || max(end) FROM ${K}KERNEL")" \
  "$(q "$TMP/extrap_ex-gpu.s10.db" "SELECT min(start) || '|' || max(end) FROM rocpd_kernel_dispatch")"
F="$FIX/nsys/flameox_nsight-2025.5.2.sqlite"
expect_eq "2025.5.2: CUPTI's overhead row kept with its name, type and correlation id" \
  "$(q "$F" "SELECT s.value || '|' || o.overheadType || '|' || o.correlationId FROM ${K}OVERHEAD o JOIN StringIds s ON s.id = o.nameId")" \
  "$(q "$TMP/flameox_nsight-2025.5.2.db" "SELECT n.string || '|' || json_extract(r.extdata, '$.overheadType') || '|' ||
     json_extract(r.extdata, '$.correlationId') FROM rocpd_region r JOIN rocpd_string n ON n.id = r.name_id
     WHERE json_extract(r.extdata, '$.correlationId') IS NOT NULL AND json_extract(r.extdata, '$.overheadType') IS NOT NULL")"
