#!/usr/bin/env bash
# Issue #46 items 1-2: one arrow per launched op, in db2json and
# db2perfetto alike, whole and split, for Kineto's one-to-many launches:
# the real MTIA trace (one runtime call binds up to 9 ops, one ac2g id
# with many ends; 175 ends on another runtime call), a generated CUDA-graph
# trace (one "s" on cudaGraphLaunch, an "f" at each of its kernels) and a
# generated ROCm one (hipGraphLaunch's kernels carry its correlation with
# no ac2g at all). Generated: no public trace of those two shapes is small
# enough to bundle (tests/data/gen_kineto_graph.py says what they follow).
# Every expected number comes from python's json on the input
# (tests/checkers/kineto_arrows.py), or from sqlite3 on the hub
# (tests/checkers/launch_links.py), never from the tools.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

python3_gen() { $PY "$ROOT/tests/data/gen_kineto_graph.py" "$@"; }
python3_gen --shape cuda --graphs 3 --kernels 40 --launches 4 -o "$TMP/cuda.json"
python3_gen --shape hip --graphs 3 --kernels 40 --launches 4 -o "$TMP/hip.json"
cp "$FIX/kineto/hta_mtia_inference_rank_0.json.gz" "$TMP/mtia.json.gz"

# count FILE...: "ARROWS UNBOUND FAR_ENDS" per file, as a viewer binds
# them (tests/checkers/arrow_counts.py: one python for every file).
declare -A ARROWS
count() {
  local f a u d
  while IFS=$'\t' read -r f a u d; do ARROWS[$f]="$a $u $d"; done \
    < <($PY "$ROOT/tests/checkers/arrow_counts.py" "$ROOT/tests/data" "$@")
}
field() { local v=(${ARROWS[$1]:-- - -}); echo "${v[$2]}"; }
# sum_of GLOB FIELD: the field summed over the files the glob names.
sum_of() { local n=0 f; for f in $1; do n=$((n + $(field "$f" "$2"))); done; echo $n; }

for name in mtia cuda hip; do
  src=$(ls "$TMP/$name".json*)
  read -r links recorded calls first_min <<<"$($PY "$ROOT/tests/checkers/kineto_arrows.py" "$src")"
  all=$((links + recorded))
  hub="$TMP/$name.db"
  o="$TMP/$name"
  expect_ok "$name: kineto2db imports it" "$BIN/kineto2db" -q "$src" -o "$hub"
  expect_eq "$name: the hub's launch links (sqlite3) are the input's GPU work with its call's correlation" \
    "$links" "$($PY "$ROOT/tests/checkers/launch_links.py" "$hub")"
  expect_ok "$name: db2json" "$BIN/db2json" -q "$hub" -o "$o.out.json"
  expect_ok "$name: db2perfetto" "$BIN/db2perfetto" -q "$hub" -o "$o.pftrace"
  # Split: by process every arrow within one process stays (a launch and
  # its work are one process's; the MTIA trace's 113 recorded flows from
  # a host call to a device-side call cross processes); by window an
  # arrow is drawn where both ends are in one window; by size every part
  # is whole. (The MTIA trace is split by process only: its 14k slices
  # cost the checkers seconds a part.)
  "$BIN/db2json" -q "$hub" --split process -o "$o.p.json"
  "$BIN/db2perfetto" -q "$hub" --split process -o "$o.p.pftrace"
  lo=$(q "$hub" "SELECT min(s) FROM (SELECT min(start) s FROM rocpd_region UNION ALL SELECT min(start) FROM rocpd_kernel_dispatch)")
  hi=$(q "$hub" "SELECT max(e) + 1 FROM (SELECT max(\"end\") e FROM rocpd_region UNION ALL SELECT max(\"end\") FROM rocpd_kernel_dispatch)")
  if [ $name != mtia ]; then
    for tool in db2json db2perfetto; do
      ext=json; [ $tool = db2perfetto ] && ext=pftrace
      "$BIN/$tool" -q "$hub" --start "$lo" --end "$hi" --split window --windows 3 -o "$o.w.$ext"
    done
    # A quarter of each whole file: several parts.
    "$BIN/db2json" -q "$hub" --max-part-size $(($(stat -c %s "$o.out.json") / 4096))K -o "$o.s.json"
    "$BIN/db2perfetto" -q "$hub" --max-part-size $(($(stat -c %s "$o.pftrace") / 4096 + 1))K -o "$o.s.pftrace"
  fi
  count "$o".*json "$o".*pftrace

  expect_eq "$name: db2json draws one arrow per launch link and per recorded flow, every end on its slice" \
    "$all 0" "$(field "$o.out.json" 0) $(field "$o.out.json" 1)"
  expect_eq "$name: db2perfetto draws the same arrows" "$all" "$(field "$o.pftrace" 0)"
  # The far ends by name. (Where two slices start at the very time of a
  # recorded "s", the JSON's viewer binds it to the inner one and the
  # .pftrace to the outer: one arrow of the MTIA trace; docs/exporters.md.)
  expect_eq "$name: the arrows end on the same slices by name in both formats" \
    "$(field "$o.out.json" 2)" "$(field "$o.pftrace" 2)"
  if [ -x "$SHARED_TOOLS/perfetto/trace-check" ]; then
    # Perfetto's own trace_processor, where ../shared is (an extra).
    tc=$("$SHARED_TOOLS/perfetto/trace-check" "$o.out.json" "$o.pftrace" 2>&1)
    expect_eq "$name: trace_processor keeps $all arrows and finds no problem in either file" \
      "flows=$all problems=none|flows=$all problems=none" \
      "$(sed -E 's/.* (flows=[0-9]+) .* (problems=.*)/\1 \2/' <<<"$tc" | paste -sd'|')"
  fi

  crossing=$(q "$hub" "SELECT count(*) FROM rocpd_sample s1 JOIN rocpd_track t1 ON t1.id = s1.track_id
      JOIN rocpd_event e1 ON e1.id = s1.event_id JOIN rocpd_event e2 ON e2.correlation_id = e1.correlation_id
      AND e2.category_id = e1.category_id JOIN rocpd_sample s2 ON s2.event_id = e2.id
      JOIN rocpd_track t2 ON t2.id = s2.track_id
      WHERE json_extract(e1.extdata, '\$.ph') = 's' AND json_extract(e2.extdata, '\$.ph') = 'f' AND t1.pid != t2.pid")
  for ext in json pftrace; do
    expect_eq "$name: --split process ($ext): every arrow in its process's part ($crossing cross processes), none unbound" \
      "$((all - crossing)) 0" "$(sum_of "$o.p.*p*.$ext" 0) $(sum_of "$o.p.*p*.$ext" 1)"
  done

  # Item 2: launch latency once per launching call, by its first kernel.
  expect_eq "$name: db2summary's launch latency: one per launching call, min from its first kernel" \
    "$calls $first_min" \
    "$("$BIN/db2summary" -q --format csv --table launch_latency "$hub" -o - |
       awk -F, 'NR == 2 {print $2, $3}')"
  [ $name = mtia ] && continue

  # Arrows per window from the hub: a launch link's call and GPU work, or
  # a recorded flow's two ends, in one window of 3 from lo.
  per_win=$($PY - "$hub" "$lo" "$hi" 3 <<'EOF'
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
lo, hi, nw = map(int, sys.argv[2:5])
size = -(-(hi - lo) // nw)
pairs = con.execute("""
  WITH calls AS (SELECT r.pid, e.correlation_id AS corr, min(r.start) AS start FROM rocpd_region r
                 JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL
                 GROUP BY 1, 2)
  SELECT c.start, k.start FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
    JOIN calls c ON c.pid = k.pid AND c.corr = e.correlation_id
  UNION ALL
  SELECT s1.timestamp, s2.timestamp FROM rocpd_sample s1 JOIN rocpd_event e1 ON e1.id = s1.event_id
    JOIN rocpd_event e2 ON e2.correlation_id = e1.correlation_id AND e2.category_id = e1.category_id
    JOIN rocpd_sample s2 ON s2.event_id = e2.id
  WHERE json_extract(e1.extdata, '$.ph') = 's' AND json_extract(e2.extdata, '$.ph') = 'f'""").fetchall()
win = [0] * nw
for a, b in pairs:
    if (a - lo) // size == (b - lo) // size:
        win[(a - lo) // size] += 1
print(" ".join(map(str, win)))
EOF
)
  for ext in json pftrace; do
    got=""
    for w in 0 1 2; do got="$got $(field "$o.w.w00$w.$ext" 0)/$(field "$o.w.w00$w.$ext" 1)"; done
    expect_eq "$name: --split window ($ext): arrows with both ends in the window, none unbound" \
      "$(for n in $per_win; do printf ' %s/0' "$n"; done)" "$got"
  done
  expect_eq "$name: --max-part-size: parts written, every arrow end on its slice" "yes 0" \
    "$([ "$(ls "$o".s.*.json | wc -l)" -gt 1 ] && echo yes) $(sum_of "$o.s.*.json" 1)"
  expect_eq "$name: --max-part-size: no part draws more arrows than the whole" "yes" \
    "$([ "$(sum_of "$o.s.*.json" 0)" -le "$all" ] && [ "$(sum_of "$o.s.*.pftrace" 0)" -le "$all" ] && echo yes)"
done
