#!/usr/bin/env bash
# --gpu keeps the GPU side of a trace, whatever the importer named its
# categories: every kernel dispatch (RPD's FillBuffer and Task ops, MTIA's
# mtia_ccp_events), copy, memset and GPU annotation (a range on a GPU
# stream), chosen by the reader's one classifier from the hub's tables.
# Expected counts come from the sources (RPD) or the hubs' tables, with
# sqlite3, for db2json, db2perfetto, db2otf2 and db2summary.
source "$(dirname "$0")/lib.sh"

H="$TMP/h"
mkdir "$H"
rpd2db -q "$FIX/rocm/rpd_matmul_result.rpd" -o "$H/rpd.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$H/nsys.db"
kineto2db -q "$FIX/kineto/hta_mi250_rocm6_2_kineto.json.gz" -o "$H/mi250.db"
nvvp2db -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$H/nvvp.db"
# An MTIA Kineto trace (its GPU work is category mtia_ccp_events), made
# here in the shape PyTorch writes for MTIA.
cat >"$TMP/mtia.json" <<'EOF'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 1000, "dur": 90},
 {"ph": "X", "cat": "mtia_runtime", "name": "mtiaLaunchKernel", "pid": 100, "tid": 100, "ts": 1010, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "mtia_runtime", "name": "mtiaMemcpyAsync", "pid": 100, "tid": 100, "ts": 1030, "dur": 5, "args": {"correlation": 8}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "mm_kernel", "pid": 0, "tid": 3, "ts": 1040, "dur": 20, "args": {"correlation": 7, "device": 0, "stream": 3}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_copy", "pid": 0, "tid": 3, "ts": 1070, "dur": 10, "args": {"correlation": 8, "device": 0, "stream": 3}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "add_kernel", "pid": 0, "tid": 4, "ts": 1075, "dur": 10, "args": {"device": 0, "stream": 4}}
]}
EOF
kineto2db -q "$TMP/mtia.json" -o "$H/mtia.db"

# GPU records of a hub, from its tables: dispatches, copies, regions on a
# GPU lane's thread, allocate rows of a memset kind.
gpu_rows() {
  q "$1" "SELECT (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)
          + (SELECT count(*) FROM rocpd_region WHERE tid IN (SELECT tid FROM rocpd_info_thread
               WHERE json_extract(extdata, '\$.kind') = 'gpu_lane'))
          + (SELECT count(*) FROM rocpd_memory_allocate WHERE lower(type) GLOB '*memset*')"
}
expect_eq "RPD: every rocpd_op is GPU work in the hub" \
  "$(q "$FIX/rocm/rpd_matmul_result.rpd" "SELECT count(*) FROM rocpd_op")" "$(gpu_rows "$H/rpd.db")"
expect_eq "MTIA: the three mtia_ccp_events are GPU work in the hub" 3 "$(gpu_rows "$H/mtia.db")"
expect_eq "mi250 (Kineto, ROCm): it has GPU annotations (gpu_user_annotation on a stream)" \
  "$($PY -c '
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
print(sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") == "gpu_user_annotation"))' \
    "$FIX/kineto/hta_mi250_rocm6_2_kineto.json.gz")" \
  "$(q "$H/mi250.db" "SELECT count(*) FROM rocpd_region WHERE tid IN (SELECT tid FROM rocpd_info_thread
                      WHERE json_extract(extdata, '\$.kind') = 'gpu_lane')")"

xcount() { $PY -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X'))" "$1"; }
for h in rpd nsys mi250 nvvp mtia; do
  db="$H/$h.db" n=$(gpu_rows "$H/$h.db")
  expect_ok "$h: db2json --gpu" db2json -q --gpu "$db" -o "$TMP/$h.json"
  expect_eq "$h: db2json --gpu writes the $n GPU records, nothing else" "$n" "$(xcount "$TMP/$h.json")"
  validate "$h: db2json --gpu output: chrome-json-check (no lone arrow end)" chrome-json-check "$TMP/$h.json"
  expect_ok "$h: db2perfetto --gpu" db2perfetto -q --gpu "$db" -o "$TMP/$h.pftrace"
  expect_eq "$h: db2perfetto --gpu: $n slices, no flow" "$n|0" \
    "$(check_trace pftrace-check "$TMP/$h.pftrace" | $PY -c 'import json,sys; d=json.load(sys.stdin); print("%d|%d" % (d["slices"], d["flows"] + d["dangling_flows"]))')"
  expect_ok "$h: db2otf2 --gpu" db2otf2 -q --gpu "$db" -o "$TMP/$h.otf2"
  expect_eq "$h: db2otf2 --gpu: $n enters" "$n" \
    "$(check_trace otf2-check "$TMP/$h.otf2/traces.otf2" | $PY -c 'import json,sys; print(json.load(sys.stdin)["enter"])')"
  # db2summary: the GPU tables' calls add up to the dispatches and copies.
  expect_eq "$h: db2summary --gpu: kernels + copies calls; no table but GPU annotations'" \
    "$(q "$db" "SELECT (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)")|0" \
    "$(rm -f "$TMP"/gf*.csv; db2summary -q --gpu --format csv --top 0 "$db" -o "$TMP/gf.csv"
       s=$(cat "$TMP"/gf.kernels.csv "$TMP"/gf.copies.csv "$TMP"/gf.memsets.csv 2>/dev/null | awk -F, '$1 ~ /^[0-9]+$/ {s += $1} END {print s + 0}')
       o=$(awk -F, 'NR > 1 && $1 !~ /^(kernels|copies|memsets|gpu_busy|launch_latency|region:gpu_user_annotation)$/ {o++} END {print o + 0}' "$TMP/gf.csv")
       echo "$s|$o")"
done
expect_eq "RPD: the glob example of old ('kernel*', '*mem*') misses its FillBuffer op; --gpu does not" \
  "$(($(gpu_rows "$H/rpd.db") - 1))" \
  "$(db2json -q --category 'kernel*' --category '*mem*' "$H/rpd.db" -o "$TMP/glob.json"; xcount "$TMP/glob.json")"
expect_fail "MTIA: the glob example of old matches nothing" "no event matched" \
  db2json -q --category 'kernel*' --category '*mem*' "$H/mtia.db" -o "$TMP/glob.json"
expect_fail "a hub without GPU work: --gpu matches nothing, exit 1" "no event matched.*--gpu" \
  db2json -q --gpu "$H/rpd.db" --name 'no such name' -o "$TMP/none.json"
expect_eq "--gpu and a glob: the finer cut" \
  "$(q "$H/rpd.db" "SELECT count(*) FROM rocpd_memory_copy")" \
  "$(db2json -q --gpu --category '*copy*' "$H/rpd.db" -o "$TMP/fine.json"; xcount "$TMP/fine.json")"

# In passes (ulimit -n 24: room for 5 open inputs), the same bytes.
mkdir "$TMP/passtmp"
ALL=("$H"/*.db)
db2json -q --gpu "${ALL[@]}" -o "$TMP/direct.json"
(ulimit -n 20; TMPDIR="$TMP/passtmp" db2json -q --gpu "${ALL[@]}" -o "$TMP/passes.json")
expect_eq "db2json --gpu over ${#ALL[@]} hubs in passes = directly" \
  "$(sha256sum <"$TMP/direct.json")" "$(sha256sum <"$TMP/passes.json")"
expect_eq "... every GPU record of every hub" \
  "$(for h in "${ALL[@]}"; do gpu_rows "$h"; done | paste -sd+ | bc)" "$(xcount "$TMP/direct.json")"
