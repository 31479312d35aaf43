#!/usr/bin/env bash
# nvvp2db and nsys2db on the real nvprof / Nsight Systems fixtures: every
# expected number is computed here from the source database with sqlite3.
source "$(dirname "$0")/lib.sh"

NVP="$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp"
RAS="$FIX/nvprof/rasolca_output_file.nvprof"
NSYS="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
CBID_RT="$ROOT/schema/cupti/cupti_runtime_cbid.tsv"
K=CUPTI_ACTIVITY_KIND_

sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---------------------------------------------------------------- nvprof
before=$(sha "$NVP")
OUT="$TMP/nvp.db"
expect_ok "nvvp2db imports the onnxcustom nvprof fixture" nvvp2db -q "$NVP" -o "$OUT"
expect_eq "nvprof input unchanged" "$before" "$(sha "$NVP")"

expect_eq "kernels = CONCURRENT_KERNEL + KERNEL rows" \
  "$(q "$NVP" "SELECT (SELECT count(*) FROM ${K}CONCURRENT_KERNEL) + (SELECT count(*) FROM ${K}KERNEL)")" \
  "$(cat_count "$OUT" KERNEL_DISPATCH kernel_dispatch)"
expect_eq "CUDA_RUNTIME_API regions = RUNTIME rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}RUNTIME")" "$(cat_count "$OUT" CUDA_RUNTIME_API region)"
expect_eq "CUDA_DRIVER_API regions = DRIVER rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}DRIVER")" "$(cat_count "$OUT" CUDA_DRIVER_API region)"
expect_eq "memory copies = MEMCPY + MEMCPY2 rows" \
  "$(q "$NVP" "SELECT (SELECT count(*) FROM ${K}MEMCPY) + (SELECT count(*) FROM ${K}MEMCPY2)")" \
  "$(cat_count "$OUT" MEMORY_COPY memory_copy)"
expect_eq "memsets as CUDA_MEMSET dispatches = MEMSET rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}MEMSET")" "$(cat_count "$OUT" CUDA_MEMSET kernel_dispatch)"
expect_eq "CUDA_SYNC regions = SYNCHRONIZATION rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}SYNCHRONIZATION")" "$(cat_count "$OUT" CUDA_SYNC region)"
expect_eq "CUDA_EVENT samples = CUDA_EVENT rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}CUDA_EVENT")" "$(cat_count "$OUT" CUDA_EVENT sample)"
expect_eq "overhead regions = OVERHEAD rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}OVERHEAD")" "$(cat_count "$OUT" PROFILER_OVERHEAD region)"
expect_eq "NVTX ranges = distinct MARKER ids with flag 2" \
  "$(q "$NVP" "SELECT count(DISTINCT id) FROM ${K}MARKER WHERE flags = 2")" \
  "$(cat_count "$OUT" NVTX region)"
expect_eq "GPU agents = DEVICE rows" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}DEVICE")" "$(q "$OUT" "SELECT count(*) FROM rocpd_info_agent WHERE type = 'GPU'")"

# The most frequent runtime call: name from the cbid TSV, count from the source.
top_cbid=$(q "$NVP" "SELECT cbid FROM ${K}RUNTIME GROUP BY cbid ORDER BY count(*) DESC LIMIT 1")
top_n=$(q "$NVP" "SELECT count(*) FROM ${K}RUNTIME WHERE cbid = $top_cbid")
top_name=$(awk -F'\t' -v c="$top_cbid" '$1 == c { print $3 }' "$CBID_RT")
expect_eq "most frequent runtime call: name and count" "$top_name|$top_n" \
  "$(q "$OUT" "SELECT s.string || '|' || count(*) FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
       JOIN rocpd_string c ON c.id = e.category_id JOIN rocpd_string s ON s.id = r.name_id
       WHERE c.string = 'CUDA_RUNTIME_API' GROUP BY s.string ORDER BY count(*) DESC LIMIT 1")"
expect_eq "runtime call names carry no _vNNNN tag" "0" \
  "$(q "$OUT" "SELECT count(*) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id
       WHERE s.string GLOB '*_v[0-9][0-9][0-9][0-9]*'")"

# Every kernel, copy and memset links to its launching call by correlation.
for t in kernel_dispatch memory_copy; do
  expect_eq "every $t has its launching API region" "0" \
    "$(q "$OUT" "SELECT count(*) FROM rocpd_$t k JOIN rocpd_event e ON e.id = k.event_id
         WHERE NOT EXISTS (SELECT 1 FROM rocpd_region r JOIN rocpd_event re ON re.id = r.event_id
           JOIN rocpd_string c ON c.id = re.category_id
           WHERE re.correlation_id = e.correlation_id AND c.string LIKE 'CUDA_%_API')")"
done
expect_eq "kernels run on the launching call's thread" "0" \
  "$(q "$OUT" "SELECT count(*) FROM rocpd_kernel_dispatch WHERE tid IS NULL")"

# NVTX: names, times and nesting as in the source.
expect_eq "NVTX range times and names match the MARKER pairs" \
  "$(q "$NVP" "SELECT sum(e.timestamp - s.timestamp) || '|' || count(*) FROM ${K}MARKER s
       JOIN ${K}MARKER e ON e.id = s.id AND e.flags = 4 WHERE s.flags = 2")" \
  "$(q "$OUT" "SELECT sum(r.end - r.start) || '|' || count(*) FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'NVTX'")"
nest_src=$(q "$NVP" "WITH r AS (SELECT s.timestamp b, e.timestamp f FROM ${K}MARKER s
       JOIN ${K}MARKER e ON e.id = s.id AND e.flags = 4 WHERE s.flags = 2)
     SELECT count(*) FROM r a WHERE EXISTS (SELECT 1 FROM r p WHERE p.b <= a.b AND a.f <= p.f
       AND (p.b, p.f) != (a.b, a.f))")
NVTX_R="SELECT r.start b, r.end f, r.tid t FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'NVTX'"
expect_eq "NVTX ranges nested in another range" "$nest_src" \
  "$(q "$OUT" "WITH r AS ($NVTX_R) SELECT count(*) FROM r a WHERE EXISTS (SELECT 1 FROM r p
       WHERE p.t = a.t AND p.b <= a.b AND a.f <= p.f AND (p.b, p.f) != (a.b, a.f))")"
expect_eq "no NVTX ranges overlap without nesting" "0" \
  "$(q "$OUT" "WITH r AS ($NVTX_R) SELECT count(*) FROM r a JOIN r p ON p.t = a.t
       AND p.b < a.b AND a.b < p.f AND p.f < a.f")"
expect_eq "NVTX color kept as an arg" \
  "$(q "$NVP" "SELECT count(*) FROM ${K}MARKER_DATA")" \
  "$(q "$OUT" "SELECT count(*) FROM rocpd_arg WHERE name = 'color'")"
expect_eq "process named from NAME" "python plot_orttraining_linear_regression_gpu.py" \
  "$(q "$OUT" "SELECT command FROM rocpd_info_process")"
expect_eq "threadId read as unsigned 32-bit" \
  "$(q "$NVP" "SELECT DISTINCT threadId & 4294967295 FROM ${K}RUNTIME")" \
  "$(q "$OUT" "SELECT DISTINCT tid FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'CUDA_RUNTIME_API'")"
expect_eq "kernel display names demangled (or mangled when no demangler)" "0" \
  "$(q "$OUT" "SELECT count(*) FROM rocpd_info_kernel_symbol WHERE kernel_name LIKE '_Z%'
       AND display_name = kernel_name AND (SELECT count(*) FROM rocpd_info_kernel_symbol
       WHERE display_name != kernel_name) > 0")"

# The markers-only synthetic file.
OUT2="$TMP/ras.db"
expect_ok "nvvp2db imports the markers-only rasolca fixture" nvvp2db -q "$RAS" -o "$OUT2"
expect_eq "rasolca: NVTX ranges = distinct start ids" \
  "$(q "$RAS" "SELECT count(DISTINCT id) FROM ${K}MARKER WHERE flags = 2")" \
  "$(cat_count "$OUT2" NVTX region)"
expect_eq "rasolca: threads from the objectId blob (tid at bytes 4..7)" \
  "$(q "$RAS" "SELECT count(DISTINCT hex(substr(objectId, 5, 4))) FROM ${K}MARKER")" \
  "$(q "$OUT2" "SELECT count(DISTINCT tid) FROM rocpd_region")"
expect_eq "rasolca: domain names kept as args" \
  "$(q "$RAS" "SELECT count(*) FROM ${K}MARKER WHERE flags = 2 AND domain != 0")" \
  "$(q "$OUT2" "SELECT count(*) FROM rocpd_arg WHERE name = 'domain'")"

# An unclosed range is kept and reported; an unknown cbid keeps its number.
cp "$NVP" "$TMP/edit.nvvp"
sqlite3 "$TMP/edit.nvvp" "DELETE FROM ${K}MARKER WHERE id = 1 AND flags = 4;
  UPDATE ${K}RUNTIME SET cbid = 99999 WHERE _id_ = 1;"
expect_fail "unclosed NVTX range reported" "1 NVTX ranges have no end" \
  bash -c "nvvp2db '$TMP/edit.nvvp' -o '$TMP/edit.db' && false"
nvvp2db -q "$TMP/edit.nvvp" -o "$TMP/edit.db" 2>/dev/null
expect_eq "unclosed range kept" "$(q "$NVP" "SELECT count(DISTINCT id) FROM ${K}MARKER WHERE flags = 2")" \
  "$(cat_count "$TMP/edit.db" NVTX region)"
expect_eq "unknown cbid kept as 'cbid N'" "1" \
  "$(q "$TMP/edit.db" "SELECT count(*) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string = 'cbid 99999'")"

# ------------------------------------------------------------------ nsys
before=$(sha "$NSYS")
OUT3="$TMP/nsys.db"
expect_ok "nsys2db imports the pipit fixture" nsys2db -q "$NSYS" -o "$OUT3"
expect_eq "nsys input unchanged" "$before" "$(sha "$NSYS")"
expect_eq "nsys: kernels = KERNEL rows" "$(q "$NSYS" "SELECT count(*) FROM ${K}KERNEL")" \
  "$(cat_count "$OUT3" KERNEL_DISPATCH kernel_dispatch)"
expect_eq "nsys: CUDA_RUNTIME_API regions = RUNTIME rows of eventClass 0" \
  "$(q "$NSYS" "SELECT count(*) FROM ${K}RUNTIME WHERE eventClass = 0")" \
  "$(cat_count "$OUT3" CUDA_RUNTIME_API region)"
expect_eq "nsys: CUDA_DRIVER_API regions = RUNTIME rows of eventClass 1" \
  "$(q "$NSYS" "SELECT count(*) FROM ${K}RUNTIME WHERE eventClass = 1")" \
  "$(cat_count "$OUT3" CUDA_DRIVER_API region)"
expect_eq "nsys: backtrace rows (eventClass 67) folded into their calls" \
  "$(q "$NSYS" "SELECT count(*) FROM ${K}RUNTIME WHERE eventClass = 67")" \
  "$(q "$OUT3" "SELECT count(*) FROM rocpd_region WHERE json_extract(extdata, '$.backtraceCallchainId') IS NOT NULL")"
expect_eq "nsys: memory copies = MEMCPY rows" "$(q "$NSYS" "SELECT count(*) FROM ${K}MEMCPY")" \
  "$(cat_count "$OUT3" MEMORY_COPY memory_copy)"
expect_eq "nsys: NVTX ranges = NVTX_EVENTS push/pop and start/end rows" \
  "$(q "$NSYS" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)")" \
  "$(cat_count "$OUT3" NVTX region)"
expect_eq "nsys: overhead regions = PROFILER_OVERHEAD rows" \
  "$(q "$NSYS" "SELECT count(*) FROM PROFILER_OVERHEAD")" "$(cat_count "$OUT3" PROFILER_OVERHEAD region)"
expect_eq "nsys: launch name normalised as nvprof names it" "5" \
  "$(q "$OUT3" "SELECT count(*) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string = 'cudaLaunchKernel'")"
expect_eq "nsys: every kernel has its launching call" "0" \
  "$(q "$OUT3" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
       WHERE NOT EXISTS (SELECT 1 FROM rocpd_region r JOIN rocpd_event re ON re.id = r.event_id
         WHERE re.correlation_id = e.correlation_id AND r.tid = k.tid)")"
expect_eq "nsys: globalTid decoded (pid, tid)" \
  "$(q "$NSYS" "SELECT DISTINCT ((globalTid >> 24) & 16777215) || '|' || (globalTid & 16777215) FROM ${K}RUNTIME")" \
  "$(q "$OUT3" "SELECT DISTINCT r.pid || '|' || r.tid FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id
       JOIN rocpd_string c ON c.id = e.category_id WHERE c.string = 'CUDA_RUNTIME_API'")"
expect_eq "nsys: times absolute (session start added)" \
  "$(q "$NSYS" "SELECT min(start) + (SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME) FROM ${K}KERNEL")" \
  "$(q "$OUT3" "SELECT min(start) FROM rocpd_kernel_dispatch")"
expect_eq "nsys: kernel names (mangled, demangled)" \
  "$(q "$NSYS" "SELECT DISTINCT m.value || '|' || d.value FROM ${K}KERNEL k JOIN StringIds m ON m.id = k.mangledName
       JOIN StringIds d ON d.id = k.demangledName")" \
  "$(q "$OUT3" "SELECT kernel_name || '|' || display_name FROM rocpd_info_kernel_symbol")"
expect_eq "nsys: NVTX domain name as arg" \
  "$(q "$NSYS" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND domainId = 1")" \
  "$(q "$OUT3" "SELECT count(*) FROM rocpd_arg WHERE name = 'domain' AND value = 'MPI'")"
expect_eq "nsys: process named from PROCESSES" "./saxpy-mpi-cuda" \
  "$(q "$OUT3" "SELECT command FROM rocpd_info_process")"
expect_eq "nsys: GPU agent from TARGET_INFO_GPU" "NVIDIA A100-SXM4-40GB" \
  "$(q "$OUT3" "SELECT name FROM rocpd_info_agent WHERE type = 'GPU'")"

# ------------------------------------------------------------ bad input
printf 'this is not a database\n' > "$TMP/junk.nvvp"
expect_fail "nvvp2db: non-SQLite file" "junk.nvvp: not a SQLite database" nvvp2db "$TMP/junk.nvvp" -o "$TMP/bad1.db"
expect_fail "nsys2db: non-SQLite file" "junk.nvvp: not a SQLite database" nsys2db "$TMP/junk.nvvp" -o "$TMP/bad2.db"
sqlite3 "$TMP/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
expect_fail "nvvp2db: SQLite file of another format" "other.db: not an nvprof database: missing table StringTable" \
  nvvp2db "$TMP/other.db" -o "$TMP/bad3.db"
expect_fail "nsys2db: SQLite file of another format" "other.db: not an Nsight Systems SQLite export: missing table StringIds" \
  nsys2db "$TMP/other.db" -o "$TMP/bad4.db"
expect_fail "nvvp2db refuses an nsys export" "use nsys2db" nvvp2db "$NSYS" -o "$TMP/bad5.db"
expect_fail "nsys2db refuses an nvprof file" "use nvvp2db" nsys2db "$NVP" -o "$TMP/bad6.db"
cp "$NVP" "$TMP/nostr.nvvp"; sqlite3 "$TMP/nostr.nvvp" "DROP TABLE StringTable"
expect_fail "nvvp2db: missing table named" "missing table StringTable" nvvp2db "$TMP/nostr.nvvp" -o "$TMP/bad7.db"
cp "$NVP" "$TMP/nocol.nvvp"; sqlite3 "$TMP/nocol.nvvp" "ALTER TABLE ${K}RUNTIME DROP COLUMN cbid"
expect_fail "nvvp2db: missing column named" "table ${K}RUNTIME has no column cbid" nvvp2db "$TMP/nocol.nvvp" -o "$TMP/bad8.db"
cp "$NVP" "$TMP/dangle.nvvp"; sqlite3 "$TMP/dangle.nvvp" "UPDATE ${K}CONCURRENT_KERNEL SET name = 4242 WHERE _id_ = 7"
expect_fail "nvvp2db: dangling string id named with table and row" \
  "table ${K}CONCURRENT_KERNEL row _id_ 7: string id 4242 is not in StringTable" \
  nvvp2db "$TMP/dangle.nvvp" -o "$TMP/bad9.db"
cp "$NSYS" "$TMP/dangle.sqlite"; sqlite3 "$TMP/dangle.sqlite" "UPDATE ${K}KERNEL SET demangledName = 99999 WHERE rowid = 2"
expect_fail "nsys2db: dangling string id named with table and row" \
  "table ${K}KERNEL row 2: string id 99999 is not in StringIds" nsys2db "$TMP/dangle.sqlite" -o "$TMP/bad10.db"
cp "$NSYS" "$TMP/nokcol.sqlite"; sqlite3 "$TMP/nokcol.sqlite" "ALTER TABLE ${K}KERNEL DROP COLUMN shortName"
expect_fail "nsys2db: missing column named" "table ${K}KERNEL has no column shortName" nsys2db "$TMP/nokcol.sqlite" -o "$TMP/bad11.db"
left=$(ls "$TMP"/bad*.db* 2>/dev/null | wc -l)
expect_eq "failed imports leave no output file" "0" "$left"
before=$(sha "$TMP/dangle.nvvp"); nvvp2db -q "$TMP/dangle.nvvp" -o "$TMP/bad12.db" 2>/dev/null
expect_eq "a failed import leaves its input unchanged" "$before" "$(sha "$TMP/dangle.nvvp")"

# ------------------------------------------------------- end to end
if [ -x "$BIN/db2json" ]; then
  expect_ok "db2json exports the nvprof hub" db2json -q "$OUT" -o "$TMP/nvp.json"
  validate "nvprof hub as Chrome JSON" chrome-json-check "$TMP/nvp.json"
  expect_ok "db2json exports the nsys hub" db2json -q "$OUT3" -o "$TMP/nsys.json"
  validate "nsys hub as Chrome JSON" chrome-json-check "$TMP/nsys.json"
else
  fail "db2json end-to-end (no $BIN/db2json)"
fi
