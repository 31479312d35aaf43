#!/usr/bin/env bash
# A launch's arrows to its GPU work (common/hub/hub_reader_links.c): the
# reader merges launches, read in start order, with the GPU work grouped
# by (correlation, process) in key order; groups passed early wait in a
# bounded window, and past it a lookup goes to a TEMP copy. Here the
# correlation ids are renumbered so that start order and key order agree,
# run backwards, or are scrambled, and the window is shrunk to 2 groups so
# that the copy answers most lookups: every run draws each arrow the hub
# holds (counted with sqlite3) and the outputs are byte-identical whatever
# the window.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_rocprof"

# Arrows a hub holds, counted independently: per (correlation, process),
# the GPU work of a launch that starts no later than all of it.
arrows() {
  q "$1" "WITH gw AS (SELECT e.correlation_id AS c, k.pid AS p, k.start AS s
      FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id
      UNION ALL SELECT e.correlation_id, m.pid, m.start FROM rocpd_memory_copy m
      JOIN rocpd_event e ON e.id = m.event_id),
    grp AS (SELECT c, p, min(s) AS first, count(*) AS n FROM gw WHERE c IS NOT NULL GROUP BY c, p),
    la AS (SELECT e.correlation_id AS c, r.pid AS p, r.start AS s FROM rocpd_region r
      JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL)
    SELECT coalesce(sum(n), 0) FROM grp JOIN la USING (c, p) WHERE grp.first >= la.s"
}
# Launches that share a (correlation, process): the count above assumes none.
shared_keys() {
  q "$1" "SELECT count(*) FROM (SELECT e.correlation_id, r.pid FROM rocpd_region r
      JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL
      GROUP BY 1, 2 HAVING count(*) > 1)"
}
paired() {
  $PY "$ROOT/tests/checkers/json_stats.py" "$1" |
    $PY -c 'import json,sys; d=json.load(sys.stdin); print("%d|%d" % (d["flows_paired"], d["flows_dangling"]))'
}

"$GEN" "$TMP/gen.db" 20000 1 >/dev/null
rpd2db -q "$FIX/rocm/rpd_matmul_result.rpd" -o "$TMP/rpd.db"
for base in gen rpd; do
  # Launches with their key and their place in the reader's order; one
  # steps back when its key is smaller than the one read before it.
  ORDER="SELECT e.correlation_id AS c, r.start AS s, r.end AS e, r.id AS id FROM rocpd_region r
         JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL"
  for how in as-is backwards scrambled; do
    hub="$TMP/$base-$how.db"
    cp "$TMP/$base.db" "$hub"
    # rocpd_event is a view of the hub's physical table
    ev=$(q "$hub" "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'rocpd_event_*'")
    case $how in
      backwards) q "$hub" "UPDATE \"$ev\" SET correlation_id = 1000000000 - correlation_id
                           WHERE correlation_id IS NOT NULL" ;;
      # x -> 618034 x mod 1000003 (a prime above every id here): a bijection,
      # so no two keys merge
      scrambled) q "$hub" "UPDATE \"$ev\" SET correlation_id = (correlation_id * 618034) % 1000003
                           WHERE correlation_id IS NOT NULL" ;;
    esac
    n=$(arrows "$hub")
    launches=$(q "$hub" "SELECT count(*) FROM ($ORDER)")
    down=$(q "$hub" "SELECT count(*) FROM (SELECT c, lag(c) OVER (ORDER BY s, e DESC, id) AS prev FROM ($ORDER)) WHERE c < prev")
    case $how in
      as-is) shape=$([ "$down" -lt $((launches / 10)) ] && echo yes) ;;
      backwards) shape=$([ "$down" -gt $((launches * 9 / 10)) ] && echo yes) ;;
      scrambled) shape=$([ "$down" -gt $((launches / 3)) ] && [ "$down" -lt $((launches * 2 / 3)) ] && echo yes) ;;
    esac
    [ "$(q "$TMP/$base.db" "SELECT max(correlation_id) < 1000003 FROM rocpd_event")" = 1 ] || shape=no
    expect_eq "$base, correlation $how: $down of $launches launches step back in key; no two share a key; $n arrows" \
      "yes|0|yes" "$shape|$(shared_keys "$hub")|$([ "$n" -gt 0 ] && echo yes)"
    for w in default 64 2; do
      out="$TMP/$base-$how-$w.json"
      if [ $w = default ]; then
        db2json -q "$hub" -o "$out"
      else
        TT_LINK_WINDOW=$w db2json -q "$hub" -o "$out"
      fi
      expect_eq "$base, correlation $how, window $w: every arrow drawn, none dangling" "$n|0" "$(paired "$out")"
    done
    expect_ok "$base, correlation $how: the same output whatever the window" \
      cmp "$TMP/$base-$how-default.json" "$TMP/$base-$how-2.json"
    expect_ok "$base, correlation $how: the same output with a window of 64" \
      cmp "$TMP/$base-$how-default.json" "$TMP/$base-$how-64.json"
  done
  # The input is never changed: the copy is a TEMP table of a second connection.
  expect_eq "$base: the input has the same tables after reading it with the copy" \
    "$(q "$TMP/$base-backwards.db" "SELECT group_concat(name) FROM sqlite_master")" \
    "$(q "$TMP/$base.db" "SELECT group_concat(name) FROM sqlite_master")"
done
