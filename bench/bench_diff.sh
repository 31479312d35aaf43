#!/usr/bin/env bash
# db2diff (issue 48) on a long pair: the ResNet-50 traces of two data-loader
# settings (fixtures/kineto, PROVENANCE-kineto.md) each repeated along its
# time axis by bench/kineto_gen.py (every copy a run's steps again, ids
# offset), 2x and 20x their length. Rows: db2diff on the 20x pair against
# db2summary on both sides (one after the other), target 1.5x; and its peak
# RSS on the 20x pair within 10% of that on the 2x pair (memory bounded by
# what a step holds, not by the run's length). With BENCH_EVENTS under
# 100000 (make check's tiny run) the bert-small H100/MI300X pair stands in.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
events=${BENCH_EVENTS:-1000000}
K="$ROOT/fixtures/kineto"
if [ "$events" -ge 100000 ]; then
  base_src="$K/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
  cand_src="$K/pairs/kineto_tbplugin_resnet50_workers4_worker0.1623212756351.pt.trace.json.gz"
  what="resnet50 loaders"
else
  base_src="$K/tracelens_h100_bert-small-uncased.json.gz"
  cand_src="$K/tracelens_mi300_bert-small-uncased.json.gz"
  what="bert h100/mi300"
fi
# hub_x SRC TIMES -> a hub of SRC's events repeated TIMES times (whole copies)
hub_x() {
  local src=$1 k=$2 tag
  tag=$(basename "$src" | cut -d. -f1)
  local db="$WORK/diff_${tag}_x$k.db"
  if [ ! -s "$db" ]; then
    local n
    n=$($PY -c 'import gzip, json, sys
e = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
m = sum(1 for x in e if x.get("ph") == "M")
print(m + int(sys.argv[2]) * (len(e) - m))' "$src" "$k")
    $PY "$ROOT/bench/kineto_gen.py" "$src" "$n" "$WORK/diff.json"
    "$BIN/kineto2db" -q "$WORK/diff.json" -o "$db.tmp" && mv "$db.tmp" "$db"
    rm -f "$WORK/diff.json"
  fi
  echo "$db"
}
b2=$(hub_x "$base_src" 2) c2=$(hub_x "$cand_src" 2)
b20=$(hub_x "$base_src" 20) c20=$(hub_x "$cand_src" 20)
ev20=$(( $(sqlite3 "$b20" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)") \
       + $(sqlite3 "$c20" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)") ))
ev2=$((ev20 / 10))

alternate "$BIN/db2diff" -q "$b20" "$c20" -o /dev/null --- \
  sh -c '"$1" -q "$2" > /dev/null && "$1" -q "$3" > /dev/null' sh "$BIN/db2summary" "$b20" "$c20"
td=$A_S rd=$A_KIB
bench_row db2diff "$what x20 pair" "$ev20" "$td" 0 "$rd" "$(ratio "$td" "$B_S")" '<=' 1.5 "x db2summary on both sides"
read -r t2 r2 < <(measure "$BIN/db2diff" -q "$b2" "$c2" -o /dev/null)
scale_row db2diff "$what pair, x2 and x20" "$ev2" "$r2" "$ev20" "$rd" "$td"
echo "  db2diff x20: ${td}s, ${rd} KiB; db2summary both: ${B_S}s; db2diff x2: ${t2}s, ${r2} KiB"
