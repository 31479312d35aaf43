#!/usr/bin/env bash
# The shared exporter machinery through db2json: splitting by window and by
# process, --part, time range and category filters, several databases read
# as one. Expected counts come from sqlite3 queries on the hub, not from the
# code under test.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
stats() { $PY "$ROOT/tests/checkers/json_stats.py" "$1"; }
field() { $PY "$ROOT/tests/checkers/json_field.py" - "$1"; }
nx() { stats "$1" | field "d['ph'].get('X', 0)"; }

# Rows of a hub that overlap [a, b): the reader's rule, in plain SQL.
overlap() { # DB A B
  q "$1" "SELECT (SELECT count(*) FROM rocpd_region WHERE start < $3 AND (\"end\" > $2 OR start >= $2))
          + (SELECT count(*) FROM rocpd_kernel_dispatch WHERE start < $3 AND (\"end\" > $2 OR start >= $2))
          + (SELECT count(*) FROM rocpd_memory_copy WHERE start < $3 AND (\"end\" > $2 OR start >= $2))"
}

# --- synthetic hubs: three processes, interleaved in time -------------
for i in 0 1 2; do "$GEN" "$TMP/g$i.db" 2000 2 || fail "gen_hub $i"; done
# give each database its own pid and shift its times so they interleave
# (the views are read-only: update the physical tables)
for i in 0 1 2; do
  sfx=$(q "$TMP/g$i.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
  q "$TMP/g$i.db" "UPDATE rocpd_region$sfx SET pid=pid+$i, start=start+$((i*333)), \"end\"=\"end\"+$((i*333));
    UPDATE rocpd_kernel_dispatch$sfx SET pid=pid+$i, start=start+$((i*333)), \"end\"=\"end\"+$((i*333));
    UPDATE rocpd_info_process$sfx SET id=id+$i, pid=pid+$i;"
done

expect_ok "db2json reads three databases as one" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" -o "$TMP/all.json"
expect_eq "three databases: X events add up" 12000 "$(nx "$TMP/all.json")"
order=$($PY - "$TMP/all.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'X']
ts = [float(e['ts']) for e in ev]
pids = [e['pid'] for e in ev if e['cat'] == 'cuda_runtime'][:3]
print(int(ts == sorted(ts)), len(set(pids)))
PY
)
expect_eq "global time order across databases (and they interleave)" "1 3" "$(echo $order | cut -d' ' -f1,2)"
expect_eq "every launch->kernel flow paired" 6000 "$(stats "$TMP/all.json" | field "d['flows_paired']")"
validate "three-database output is valid Chrome JSON" chrome-json-check "$TMP/all.json"

# --- windows on the synthetic hubs ------------------------------------
lo=$(for i in 0 1 2; do q "$TMP/g$i.db" "SELECT min(start) FROM rocpd_region"; done | sort -n | head -1)
hi=$(for i in 0 1 2; do q "$TMP/g$i.db" "SELECT max(\"end\") FROM rocpd_kernel_dispatch"; done | sort -n | tail -1)
hi=$((hi + 1)); n=4; size=$(( (hi - lo + n - 1) / n ))
expect_ok "split into 4 windows" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" --split window --windows 4 -o "$TMP/w.json"
total=0 each=()
for k in 0 1 2 3; do
  a=$((lo + k*size)); b=$((a + size)); want=0
  for i in 0 1 2; do want=$((want + $(overlap "$TMP/g$i.db" $a $b))); done
  got=$(nx "$TMP/w.w00$k.json"); total=$((total + got))
  expect_eq "window $k holds every event overlapping it" "$want" "$got"
  each+=("window $k valid alone" "$TMP/w.w00$k.json")
done
validate_each chrome-json-check "${each[@]}" # one checker run for the parts
expect_ok "--part 2 alone" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" --split window --windows 4 --part 2 -o "$TMP/p.json"
expect_eq "--part 2 equals window 2 of the full split" "$(stats "$TMP/w.w002.json")" "$(stats "$TMP/p.w002.json")"
expect_eq "--part writes only its part" "" "$(ls "$TMP"/p.w00[013].json 2>/dev/null)"

# An event that starts first and ends last (a whole-run range): the windows
# still cover [min start, max end + 1), and its last piece ends where it does.
cp "$TMP/g0.db" "$TMP/long.db"
sfx=$(q "$TMP/long.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/long.db" "UPDATE rocpd_region$sfx SET \"end\" = (SELECT max(\"end\") FROM rocpd_kernel_dispatch$sfx) + 5000000
  WHERE id = (SELECT id FROM rocpd_region$sfx ORDER BY start, id LIMIT 1)"
# the same without the reader's indexes (rocprofv3's shape: the span is one scan)
cp "$TMP/long.db" "$TMP/long_noidx.db"
q "$TMP/long_noidx.db" "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL" >"$TMP/drop.sql"
q "$TMP/long_noidx.db" ".read $TMP/drop.sql"
lo=$(q "$TMP/long.db" "SELECT min(start) FROM rocpd_region")
last=$(q "$TMP/long.db" "SELECT max(\"end\") FROM rocpd_region")
n=4; size=$(( (last + 1 - lo + n - 1) / n ))
latest_end() { $PY -c "import json, sys; d = json.load(open(sys.argv[1])); print(d['baseTimeNanoseconds'] + max(round(float(e['ts']) * 1000) + round(float(e['dur']) * 1000)
  for e in d['traceEvents'] if e['ph'] == 'X'))" "$1"; }
for h in long long_noidx; do
  expect_ok "$h: an event ending last: 4 windows" db2json -q "$TMP/$h.db" --split window --windows $n -o "$TMP/lw.json"
  for k in 0 1 2 3; do
    a=$((lo + k*size)); b=$((a + size))
    expect_eq "$h: an event ending last: window $k holds every event overlapping it" "$(overlap "$TMP/$h.db" $a $b)" "$(nx "$TMP/lw.w00$k.json")"
  done
  expect_eq "$h: an event ending last: the last window ends with it" "$last" "$(latest_end "$TMP/lw.w003.json")"
  expect_ok "$h: an event ending last: --start 0% --end 100%" db2json -q "$TMP/$h.db" --start 0% --end 100% -o "$TMP/lr.json"
  expect_eq "$h: an event ending last: 100% is its end" "$last" "$(latest_end "$TMP/lr.json")"
  pid=$(q "$TMP/$h.db" "SELECT pid FROM rocpd_region LIMIT 1")
  expect_ok "$h: an event ending last: its process, --end 100%" db2json -q "$TMP/$h.db" --split process --end 100% -o "$TMP/lp.json"
  expect_eq "$h: an event ending last: its process's 100% is its end" "$last" "$(latest_end "$TMP/lp.p$pid.json")"
done

# --- split by process ---------------------------------------------------
expect_ok "split by process" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" --split process -o "$TMP/proc.json"
for i in 0 1 2; do
  pid=$((4242 + i))
  want=$(q "$TMP/g$i.db" "SELECT (SELECT count(*) FROM rocpd_region WHERE pid=$pid)+(SELECT count(*) FROM rocpd_kernel_dispatch WHERE pid=$pid)")
  expect_eq "process $pid part holds its $want events" "$want" "$(nx "$TMP/proc.p$pid.json")"
done

# --- time range and category filters ------------------------------------
a=$((lo + 1000000)); b=$((lo + 1500000))
want=0; for i in 0 1 2; do want=$((want + $(overlap "$TMP/g$i.db" $a $b))); done
expect_ok "--start/--end in absolute ns" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" --start $a --end $b -o "$TMP/r.json"
expect_eq "time range keeps the overlapping events" "$want" "$(nx "$TMP/r.json")"
expect_ok "--start as a duration from the trace start" db2json -q "$TMP/g0.db" "$TMP/g1.db" "$TMP/g2.db" --start 1ms --end 1500us -o "$TMP/r2.json"
expect_eq "duration range equals the absolute one" "$want" "$(nx "$TMP/r2.json")"
expect_ok "--category kern*" db2json -q "$TMP/g0.db" --category 'kern*' -o "$TMP/c.json"
expect_eq "category filter keeps only kernels" '{"X/kernel": 2000}' "$(stats "$TMP/c.json" | field "__import__('json').dumps(d['cat'])")"
expect_ok "--exclude-category kernel --name cuda*" db2json -q "$TMP/g0.db" --exclude-category kernel --name 'cuda*' -o "$TMP/c2.json"
expect_eq "exclude + name filters" '{"X/cuda_runtime": 2000}' "$(stats "$TMP/c2.json" | field "__import__('json').dumps(d['cat'])")"
expect_eq "no dangling flow after filtering" 0 "$(stats "$TMP/c2.json" | field "d['flows_dangling']")"

# --- bad input: clear message, non-zero exit, no output left behind -------
printf 'not a database' > "$TMP/text.db"
expect_fail "a text file is refused" "text.db: not a SQLite database" db2json "$TMP/text.db" -o "$TMP/bad.json"
sqlite3 "$TMP/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
expect_fail "a SQLite file that is not a hub is refused" "other.db: not a rocpd hub" db2json "$TMP/other.db" -o "$TMP/bad.json"
head -c 300000 "$TMP/g1.db" > "$TMP/trunc.db"
expect_fail "a truncated hub is refused" "trunc.db: .*(malformed|truncated)" db2json "$TMP/trunc.db" -o "$TMP/bad.json"
cp "$TMP/g2.db" "$TMP/corrupt.db"
dd if=/dev/zero of="$TMP/corrupt.db" bs=4096 seek=30 count=40 conv=notrunc 2>/dev/null
expect_fail "a hub with zeroed pages is refused" "corrupt.db: .*malformed" db2json "$TMP/corrupt.db" -o "$TMP/bad.json"
expect_fail "a missing file is refused" "nope.db: cannot open" db2json "$TMP/nope.db" -o "$TMP/bad.json"
expect_eq "no output file left behind" "" "$(ls "$TMP"/bad.json* 2>/dev/null)"
# A start that is not a time: said by the window split as by one file (the
# split's time range once dropped the row in SQL, unsaid).
cp "$TMP/g0.db" "$TMP/badtime.db"
sfx=$(q "$TMP/badtime.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/badtime.db" "UPDATE rocpd_region$sfx SET start = 'abc' WHERE id = 5"
expect_fail "a text start is refused" "row id 5: start 'abc' is not an integer time" \
  db2json "$TMP/badtime.db" -o "$TMP/bad.json"
expect_fail "a text start is refused by the window split too" "row id 5: start 'abc' is not an integer time" \
  db2json "$TMP/badtime.db" --split window --windows 3 -o "$TMP/bad.json"
rm -f "$TMP"/bad.w*.json
expect_fail "--split window needs a count" "needs --windows" db2json "$TMP/g0.db" --split window -o "$TMP/bad.json"
expect_fail "--part beyond the split" "has 4 windows" db2json "$TMP/g0.db" --split window --windows 4 --part 9 -o "$TMP/bad.json"
expect_fail "a bad duration" "not a positive duration" db2json "$TMP/g0.db" --split window --window-size 5parsecs -o "$TMP/bad.json"
expect_ok "-o /dev/null writes in place" db2json -q "$TMP/g0.db" -o /dev/null
expect_eq "/dev/null is still a device" "character special file" "$(stat -c %F /dev/null)"
sum0=$(sha256sum "$TMP/g0.db")
db2json -q "$TMP/g0.db" -o "$TMP/x.json"
expect_eq "the input is not modified" "$sum0" "$(sha256sum "$TMP/g0.db")"

# --- the same on real profiles -------------------------------------------
if command -v kineto2db >/dev/null; then
  for f in hta_alexnet_trace hta_mi250_rocm6_2_kineto hta_sampled_rank-0; do
    kineto2db -q "$FIX/kineto/$f.json.gz" -o "$TMP/$f.db" || fail "import $f"
  done
  R=("$TMP/hta_alexnet_trace.db" "$TMP/hta_mi250_rocm6_2_kineto.db" "$TMP/hta_sampled_rank-0.db")
  # The hub's time-order indexes hold the reader's whole order (start, end
  # descending, id): SQLite reads each table in it with no sort, not even
  # of a run of equal starts (sqlite3's own plan, on a hub the importer
  # wrote and on a gen_hub one).
  for db in "${R[0]}" "$TMP/g0.db"; do
    sfx=$(q "$db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
    for t in region kernel_dispatch memory_copy memory_allocate; do
      plan=$(q "$db" "EXPLAIN QUERY PLAN SELECT id FROM \"rocpd_$t$sfx\" ORDER BY start, \"end\" DESC, id")
      [[ "$plan" == *" INDEX rocpd_${t}_start"* && "$plan" != *"TEMP B-TREE"* ]] &&
        pass "$(basename "$db"): rocpd_$t read in the reader's order by its index, no sort" ||
        fail "$(basename "$db"): rocpd_$t plan [$plan]"
    done
  done
  # each hub's own time span; windows cover [min start, max end + 1)
  span() { q "$1" "SELECT min(s), max(e) FROM (SELECT start s, \"end\" e FROM rocpd_region UNION ALL
      SELECT start, \"end\" FROM rocpd_kernel_dispatch UNION ALL SELECT start, \"end\" FROM rocpd_memory_copy
      UNION ALL SELECT timestamp, timestamp FROM rocpd_sample)"; }
  a=$(span "${R[0]}" | cut -d'|' -f1); b=$(( $(span "${R[0]}" | cut -d'|' -f2) + 1 ))
  n=5; size=$(( (b - a + n - 1) / n ))
  expect_ok "real: alexnet in 5 windows" db2json -q "${R[0]}" --split window --windows $n -o "$TMP/ax.json"
  each=()
  for k in 0 1 2 3 4; do
    ws=$((a + k*size)); we=$((ws + size))
    expect_eq "real: alexnet window $k holds the events overlapping it" "$(overlap "${R[0]}" $ws $we)" "$(nx "$TMP/ax.w00$k.json")"
    each+=("real: alexnet window $k valid alone" "$TMP/ax.w00$k.json")
  done
  validate_each chrome-json-check "${each[@]}"
  clipped=0; for k in 0 1 2 3 4; do clipped=$((clipped + $(stats "$TMP/ax.w00$k.json" | field "d['clipped']"))); done
  # every (event, window) piece of an event that sticks out of the window
  pieces=$(for k in 0 1 2 3 4; do ws=$((a + k*size)); we=$((ws + size));
    q "${R[0]}" "SELECT (SELECT count(*) FROM rocpd_region WHERE start < $we AND \"end\" > $ws AND (start < $ws OR \"end\" > $we))
      +(SELECT count(*) FROM rocpd_kernel_dispatch WHERE start < $we AND \"end\" > $ws AND (start < $ws OR \"end\" > $we))
      +(SELECT count(*) FROM rocpd_memory_copy WHERE start < $we AND \"end\" > $ws AND (start < $ws OR \"end\" > $we))"; done |
    $PY -c "import sys; print(sum(int(l) for l in sys.stdin))")
  expect_eq "real: every boundary-crossing piece is marked clipped" "$pieces" "$clipped"

  expect_ok "real: three profiles split by process" db2json -q "${R[@]}" --split process -o "$TMP/rp.json"
  # a pid present in several hubs (Kineto's synthetic "Spans" process)
  # gathers its events from all of them
  each=()
  for pid in $(for db in "${R[@]}"; do q "$db" "SELECT pid FROM rocpd_info_process"; done | sort -un); do
    want=0
    for db in "${R[@]}"; do
      want=$((want + $(q "$db" "SELECT (SELECT count(*) FROM rocpd_region WHERE pid=$pid)+(SELECT count(*) FROM rocpd_kernel_dispatch WHERE pid=$pid)+(SELECT count(*) FROM rocpd_memory_copy WHERE pid=$pid)")))
    done
    samples=0
    for db in "${R[@]}"; do
      samples=$((samples + $(q "$db" "SELECT count(*) FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id WHERE t.pid=$pid")))
    done
    if [ "$want" -eq 0 ] && [ "$samples" -eq 0 ]; then
      expect_eq "real: process $pid has no events, so no part" "" "$(ls "$TMP/rp.p$pid.json" 2>/dev/null)"
      continue
    fi
    [ -f "$TMP/rp.p$pid.json" ] || { fail "real: no part for pid $pid"; continue; }
    expect_eq "real: process $pid part holds its $want events" "$want" "$(nx "$TMP/rp.p$pid.json")"
    each+=("real: process $pid part valid (no dangling flow)" "$TMP/rp.p$pid.json")
  done
  [ ${#each[@]} -eq 0 ] || validate_each chrome-json-check "${each[@]}"
  lo=$(for db in "${R[@]}"; do span "$db" | cut -d'|' -f1; done | sort -n | head -1)
  hi=$(( $(for db in "${R[@]}"; do span "$db" | cut -d'|' -f2; done | sort -n | tail -1) + 1 ))
  s25=$(( lo + (hi - lo) / 4 )); s75=$(( lo + (hi - lo) * 3 / 4 ))
  want=0; for db in "${R[@]}"; do want=$((want + $(q "$db" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id JOIN rocpd_string s ON s.id = e.category_id WHERE s.string = 'kernel' AND k.start < $s75 AND (k.\"end\" > $s25 OR k.start >= $s25)"))); done
  if [ "$want" -eq 0 ]; then
    # The profiles lie years apart: their middle half holds no kernel, an
    # error like any range with nothing in it (no file written).
    expect_fail "real: --category kernel --start 25% --end 75% on three profiles: nothing there" \
      "no event matched the filters in the time range \[$s25, $s75\) ns: the inputs span \[$lo, $((hi - 1))\] ns" \
      db2json -q "${R[@]}" --category kernel --start 25% --end 75% -o "$TMP/rk.json"
    expect_eq "real: no file for the empty middle half" "" "$(ls "$TMP"/rk.json 2>/dev/null)"
  else
    expect_ok "real: --category kernel --start 25% --end 75% on three profiles" \
      db2json -q "${R[@]}" --category kernel --start 25% --end 75% -o "$TMP/rk.json"
    expect_eq "real: kernels of the middle half of the combined trace" "$want" "$(nx "$TMP/rk.json")"
    validate "real: filtered output valid" chrome-json-check "$TMP/rk.json"
  fi
else
  fail "real-profile splits: no kineto2db"
fi
