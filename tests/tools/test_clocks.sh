#!/usr/bin/env bash
# Each hub knows its clock (docs/hub.md, "Clocks"): every importer states,
# per process, the clock its times are in (rocpd_info_process.extdata
# "clock", "to_wall_ns"), the reader falls back on what wrote the hub
# (rocprofv3: boot, rpd2db: monotonic, else unknown), dbmerge keeps each
# input's, and db2summary shows it. The clock expected of each fixture is
# derived here from the source itself (sqlite3, Python's json), never from
# the tools.
source "$(dirname "$0")/lib.sh"

sha() { sha256sum "$1" | cut -d' ' -f1; }
# clocks DB: "pid clock to_wall_ns" per process row, as stored
clocks() {
  q "$1" "SELECT group_concat(pid || ' ' || COALESCE(json_extract(extdata, '$.clock'), '-') || ' ' ||
            COALESCE(json_extract(extdata, '$.to_wall_ns'), '-'), ',')
          FROM (SELECT pid, extdata FROM rocpd_info_process ORDER BY pid)"
}
# header_clock DB...: the clock(s) db2summary's text header names
header_clock() { db2summary -q "$@" | head -2 | sed -n 's/.*, clock \(.*\)$/\1/p'; }
# 2000-01-01T00:00:00Z in ns: no clock counted from a boot runs that long.
Y2000=946684800000000000

# --- nsys: times count from the session start, utcEpochNs, so the hub's are
# Unix-epoch ns. Evidence in the file: every event time lies within
# [0, ANALYSIS_DETAILS.duration] while ANALYSIS_DETAILS.startTime is on
# another timebase, and utcTime is utcEpochNs as a date.
NS="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
utc=$(q "$NS" "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")
expect_eq "nsys: utcTime is utcEpochNs as a UTC date" \
  "$(q "$NS" "SELECT utcTime FROM TARGET_INFO_SESSION_START_TIME")" \
  "$(date -u -d "@$((utc / 1000000000))" +%Y-%m-%dT%H:%M:%S)"
expect_eq "nsys: event times within [0, the session's duration]" "1" \
  "$(q "$NS" "SELECT min(start) >= 0 AND max(end) <= (SELECT duration FROM ANALYSIS_DETAILS)
              FROM (SELECT start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL
                    SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL
                    SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY)")"
expect_ok "nsys2db imports it" nsys2db -q "$NS" -o "$TMP/nsys.db"
pid=$(q "$NS" "SELECT DISTINCT globalTid / 16777216 % 16777216 FROM CUPTI_ACTIVITY_KIND_RUNTIME")
expect_eq "nsys: its process is on the wall clock, anchor 0" "$pid wall 0" "$(clocks "$TMP/nsys.db")"
expect_eq "nsys: hub kernel times = the file's + utcEpochNs" \
  "$(q "$NS" "SELECT (min(start) + $utc) || ' ' || (max(end) + $utc) FROM CUPTI_ACTIVITY_KIND_KERNEL")" \
  "$(q "$TMP/nsys.db" "SELECT min(start) || ' ' || max(end) FROM rocpd_kernel_dispatch")"
expect_eq "nsys: db2summary says wall" "wall" "$(header_clock "$TMP/nsys.db")"
# An export from before the session start table: times on nsys's own base.
NS0="$FIX/nsys/extrap_ex-gpu.s10.sqlite"
expect_eq "nsys without a session start: the file has no TARGET_INFO_SESSION_START_TIME" "0" \
  "$(q "$NS0" "SELECT count(*) FROM sqlite_master WHERE name = 'TARGET_INFO_SESSION_START_TIME'")"
nsys2db -q "$NS0" -o "$TMP/nsys0.db" 2>/dev/null
expect_eq "nsys without a session start: every process's clock unknown, no anchor" \
  "$(q "$TMP/nsys0.db" "SELECT count(*) || ' unknown -' FROM rocpd_info_process")" \
  "$(q "$TMP/nsys0.db" "SELECT count(*) || ' ' || min(json_extract(extdata, '$.clock')) || ' ' ||
                          COALESCE(max(json_extract(extdata, '$.to_wall_ns')), '-') FROM rocpd_info_process
                        WHERE json_extract(extdata, '$.clock') = 'unknown'")"

# --- nvprof: CUPTI's timestamps as stored. The real profile's are epoch ns
# (its first call's date is in 2021); the synthetic one's are 20 h from
# some zero: not a wall clock, so unknown.
NV="$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp"
expect_eq "nvprof: the real profile's first call is a 2021 date" "2021-10-15" \
  "$(date -u -d "@$(($(q "$NV" "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME") / 1000000000))" +%F)"
expect_ok "nvvp2db imports it" nvvp2db -q "$NV" -o "$TMP/nvp.db"
expect_eq "nvprof: on the wall clock, anchor 0" \
  "$(q "$NV" "SELECT DISTINCT processId FROM CUPTI_ACTIVITY_KIND_RUNTIME") wall 0" "$(clocks "$TMP/nvp.db")"
NVS="$FIX/nvprof/rasolca_output_file.nvprof"
expect_eq "nvprof synthetic: its times are before 2000" "1" \
  "$(q "$NVS" "SELECT max(timestamp) < $Y2000 FROM CUPTI_ACTIVITY_KIND_MARKER")"
nvvp2db -q "$NVS" -o "$TMP/nvs.db"
expect_eq "nvprof synthetic: clock unknown" "unknown" "$(header_clock "$TMP/nvs.db")"

# --- Kineto: Unix time, ts + baseTimeNanoseconds ...
KB="$FIX/kineto/hta_triton_example.json.gz"
want=$($PY - "$KB" <<'EOF'
import gzip, json, sys
from decimal import Decimal
d = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)
k = [e for e in d["traceEvents"] if e.get("cat") == "kernel"]
base = int(d["baseTimeNanoseconds"])
print(min(int((e["ts"] * 1000).to_integral_value()) for e in k) + base)
EOF
)
expect_ok "kineto2db imports a trace with baseTimeNanoseconds" kineto2db -q "$KB" -o "$TMP/kb.db"
expect_eq "kineto: first kernel at ts + baseTimeNanoseconds" "$want" \
  "$(q "$TMP/kb.db" "SELECT min(start) FROM rocpd_kernel_dispatch")"
expect_eq "kineto: every process on the wall clock, anchor 0" \
  "$(q "$TMP/kb.db" "SELECT count(*) FROM rocpd_info_process") wall 0" \
  "$(q "$TMP/kb.db" "SELECT count(*) || ' ' || min(json_extract(extdata, '$.clock')) || ' ' ||
                       max(json_extract(extdata, '$.to_wall_ns')) FROM rocpd_info_process
                     WHERE json_extract(extdata, '$.clock') = 'wall'")"
# ... or, before that key, ts alone in epoch us: the tbplugin trace's file
# name holds the epoch ms it was written at, minutes after its first ts.
KO="$FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
expect_eq "kineto without baseTimeNanoseconds: first ts within an hour before the file name's epoch ms" "True" \
  "$($PY -c 'import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
t = min(e["ts"] for e in d["traceEvents"] if e.get("ph") == "X")
print("baseTimeNanoseconds" not in d and 0 < 1623143089861 * 1000 - t < 3600e6)' "$KO")"
kineto2db -q "$KO" -o "$TMP/ko.db"
expect_eq "kineto without baseTimeNanoseconds, epoch us: wall" "wall" "$(header_clock "$TMP/ko.db")"
# A Chrome trace counted from 0 (not Kineto's): no clock known.
printf '{"traceEvents":[{"ph":"X","name":"a","pid":7,"tid":1,"ts":10,"dur":5}]}' >"$TMP/rel.json"
kineto2db -q "$TMP/rel.json" -o "$TMP/rel.db"
expect_eq "a Chrome trace counted from 0: unknown" "7 unknown -" "$(clocks "$TMP/rel.db")"

# --- RPD: rpd_tracer stamps CLOCK_MONOTONIC and records no anchor.
RPD="$FIX/rocm/rpd_matmul_result.rpd"
before=$(sha "$RPD")
expect_ok "rpd2db imports it" rpd2db -q "$RPD" -o "$TMP/rpd.db"
expect_eq "rpd: every process monotonic, no anchor" \
  "$(q "$RPD" "SELECT group_concat(pid || ' monotonic -', ',') FROM (SELECT DISTINCT pid FROM rocpd_api ORDER BY pid)")" \
  "$(clocks "$TMP/rpd.db")"
expect_eq "rpd: input unchanged" "$before" "$(sha "$RPD")"

# --- ExecuTorch: ticks of the runtime's own clock (posix: steady_clock
# since the runtime's start), no anchor: unknown.
etprof2db -q "$FIX/executorch/et_tutorial_etdump.etdp" -o "$TMP/et.db"
expect_eq "etprof: clock unknown" "unknown" "$(header_clock "$TMP/et.db")"

# --- A hub rocprofv3 wrote (no tracetools_source, no clock keys): boot,
# read as it is.
$PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/rp.db" aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee 4242 1 20
expect_eq "rocprofv3 hub: no clock in its extdata, no tracetools_source" "4242 - -|0" \
  "$(clocks "$TMP/rp.db")|$(q "$TMP/rp.db" "SELECT count(*) FROM rocpd_metadata WHERE tag = 'tracetools_source'")"
before=$(sha "$TMP/rp.db")
expect_eq "rocprofv3 hub: read as boot" "boot" "$(header_clock "$TMP/rp.db")"
expect_eq "rocprofv3 hub: not modified" "$before" "$(sha "$TMP/rp.db")"
# Hubs an older tracetools wrote (no clock keys): rpd2db's monotonic, others unknown.
for h in rpd nsys; do
  cp "$TMP/$h.db" "$TMP/old_$h.db"
  t=$(q "$TMP/old_$h.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_process%'")
  q "$TMP/old_$h.db" "UPDATE $t SET extdata = json_remove(extdata, '$.clock', '$.to_wall_ns')"
done
expect_eq "older rpd2db hub without clock keys: monotonic" "monotonic" "$(header_clock "$TMP/old_rpd.db")"
expect_eq "older nsys2db hub without clock keys: unknown" "unknown" "$(header_clock "$TMP/old_nsys.db")"

# --- dbmerge keeps each input's clock; db2summary lists each process's.
expect_ok "dbmerge merges a boot, a monotonic and a wall hub" \
  dbmerge -q "$TMP/rp.db" "$TMP/rpd.db" "$TMP/nvp.db" -o "$TMP/m.db"
expect_eq "merged: the header names the three clocks" "boot, monotonic, wall" "$(header_clock "$TMP/m.db")"
db2summary -q --format json "$TMP/m.db" -o "$TMP/m.json"
expect_eq "merged: json's clock field and processes table" \
  "boot, monotonic, wall|4242:boot $(q "$RPD" "SELECT group_concat(pid || ':monotonic', ' ') FROM (SELECT DISTINCT pid FROM rocpd_api ORDER BY pid)") $(q "$NV" "SELECT DISTINCT processId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):wall" \
  "$($PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = next(t["rows"] for t in d["tables"] if t["table"] == "processes")
print(d["clock"] + "|" + " ".join("%s:%s" % (r["pid"], r["clock"]) for r in sorted(rows, key=lambda r: (r["clock"], r["pid"]))))' "$TMP/m.json")"
