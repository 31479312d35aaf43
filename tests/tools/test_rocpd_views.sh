#!/usr/bin/env bash
# rocpd's own tools read our hubs in full: every hub an importer writes from
# a fixture, and every hub `make demo` writes, loaded as rocpd loads a
# database (ATTACH, one TEMP view per base table, then rocprofiler-sdk's
# four SQL files from tests/data/rocpd/), lists every physical row in its
# kernels, memory_copies, memory_allocations, regions and samples views.
# Kineto's GPU annotations are regions on their GPU stream, not kernels,
# and db2json/db2perfetto draw them on that stream's lane.
source "$(dirname "$0")/lib.sh"
VIEWS="$ROOT/tests/checkers/rocpd_views.py"

# views_complete DESC DB...: rocpd_views.py finds no lost row; and the
# counts it prints equal the physical tables' counts (sqlite3, here).
views_complete() {
  local desc=$1; shift
  local out rc
  out=$($PY "$VIEWS" "$@" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then pass "$desc: $(echo "$out" | tr '\n' ' ')"
  else fail "$desc: $(echo "$out" | tr '\n' ' ')"; fi
  local t v want=0
  for v in kernels:rocpd_kernel_dispatch regions:rocpd_region samples:rocpd_sample \
           memory_copies:rocpd_memory_copy memory_allocations:rocpd_memory_allocate; do
    want=0
    for db in "$@"; do
      t=$(q "$db" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB '${v#*:}_*'")
      want=$((want + $(q "$db" "SELECT count(*) FROM \"$t\"")))
    done
    expect_eq "$desc: rocpd view ${v%%:*} lists all $want rows of ${v#*:}" \
      "${v%%:*} $want/$want" "$(echo "$out" | grep "^${v%%:*} ")"
  done
}

# Every fixture, through its importer (fixtures/<kind>/ -> tool; a new
# kind of fixture needs its line here, or the count below fails).
importer_of() {
  case "$1" in
    kineto) echo kineto2db ;; nvprof) echo nvvp2db ;; nsys) echo nsys2db ;;
    rocm|rpd) echo rpd2db ;; executorch) echo etprof2db ;; *) echo "" ;;
  esac
}
n=0 all=0
for dir in "$FIX"/*/; do
  kind=$(basename "$dir")
  all=$((all + $(find "$dir" -maxdepth 1 -type f | wc -l)))
  tool=$(importer_of "$kind")
  if [ -z "$tool" ]; then fail "fixtures/$kind: no importer known to this test"; continue; fi
  for f in "$dir"*; do
    [ -f "$f" ] || continue # kineto/pairs/: db2diff's pairs (test_diff.sh)
    db="$TMP/fix$n.db"; n=$((n + 1))
    if ! "$BIN/$tool" -q "$f" -o "$db" 2>"$TMP/err"; then
      fail "$tool $(basename "$f"): import failed: $(head -c 300 "$TMP/err")"; continue
    fi
    views_complete "$(basename "$f")" "$db"
  done
done
expect_eq "every fixture imported and checked" "$all" "$n"

# The hubs `make demo` writes (scripts/demo.sh), read together as well.
if demo_run "$TMP/demo" "$TMP/demo.log"; then
  pass "scripts/demo.sh runs"
else
  fail "scripts/demo.sh: $(tail -n 5 "$TMP/demo.log")"
fi
for db in "$TMP"/demo/*.db; do views_complete "demo $(basename "$db")" "$db"; done
views_complete "all demo hubs at once" "$TMP"/demo/*.db
expect_eq "the demo resnet50 hub: rocpd's kernels view lists its Kernel and Memset events" \
  "$(zcat "$FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz" | $PY -c '
import json, sys; print(sum(1 for e in json.load(sys.stdin)["traceEvents"] if e.get("ph") == "X" and e.get("cat") in ("Kernel", "Memset")))')" \
  "$($PY -c '
import sys; sys.path.insert(0, sys.argv[1]); import rocpd_views as r
con, _ = r.load([sys.argv[2]]); print(con.execute("SELECT count(*) FROM kernels").fetchone()[0])' "$ROOT/tests/checkers" "$TMP/demo/resnet50.db")"

# GPU annotations: regions on the stream, absent from rocpd's top_kernels,
# drawn on the stream's lane by both exporters.
MI="$FIX/kineto/hta_mi250_rocm6_2_kineto.json.gz"
kineto2db -q "$MI" -o "$TMP/mi.db"
ann=$(zcat "$MI" | $PY -c '
import json, sys; print(sorted(e["name"] for e in json.load(sys.stdin)["traceEvents"] if e.get("cat") == "gpu_user_annotation"))')
expect_eq "mi250: the GPU annotations are rocpd regions" "$ann" "$($PY -c '
import sys; sys.path.insert(0, sys.argv[1]); import rocpd_views as r
con, _ = r.load([sys.argv[2]])
print(sorted(n for (n,) in con.execute("SELECT name FROM regions WHERE category = '"'gpu_user_annotation'"'")))' "$ROOT/tests/checkers" "$TMP/mi.db")"
expect_eq "mi250: no GPU annotation among rocpd's kernels or top_kernels" "0 0" "$($PY -c '
import sys; sys.path.insert(0, sys.argv[1]); import rocpd_views as r
con, _ = r.load([sys.argv[2]])
a = con.execute("SELECT count(*) FROM kernels WHERE category = '"'gpu_user_annotation'"'").fetchone()[0]
b = con.execute("SELECT count(*) FROM top_kernels WHERE name LIKE '"'ProfilerStep%'"' OR name LIKE '"'Optimizer.step%'"'").fetchone()[0]
print(a, b)' "$ROOT/tests/checkers" "$TMP/mi.db")"
db2json -q "$TMP/mi.db" -o "$TMP/mi.json"
db2perfetto -q "$TMP/mi.db" -o "$TMP/mi.pftrace"
protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" <"$TMP/mi.pftrace" >"$TMP/mi.txt"
$PY "$ROOT/tests/checkers/annotation_lanes.py" "$MI" "$TMP/mi.json" "$TMP/mi.txt"

# The check itself can fail: a hub whose kernels lack their thread loses them.
cp "$TMP/mi.db" "$TMP/broken.db"
t=$(q "$TMP/broken.db" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_kernel_dispatch_*'")
q "$TMP/broken.db" "UPDATE \"$t\" SET tid = NULL WHERE id = 1"
out=$($PY "$VIEWS" "$TMP/broken.db"); rc=$?
expect_eq "a kernel without its thread is reported lost, and why" "1 kernels 13/14 kernels: 1 rows of rocpd_kernel_dispatch have no thread" \
  "$rc $(echo "$out" | grep kernels | sed 's/^ *//' | tr '\n' ' ' | sed 's/ $//')"

# The threads the writer made for rocpd's joins name no OS thread in db2json.
syn=$(q "$TMP/mi.db" "SELECT group_concat(tid) FROM rocpd_info_thread WHERE json_extract(extdata,'$.kind') IN ('gpu_lane','process_tracks')")
expect_eq "mi250: the hub has a thread for its GPU stream" 1 "$(echo "$syn" | tr ',' '\n' | grep -c .)"
expect_eq "mi250: db2json names no such thread" 0 "$($PY -c '
import json, sys
syn = {int(t) for t in sys.argv[2].split(",")}
print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"]
          if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("tid") in syn))' "$TMP/mi.json" "$syn")"
