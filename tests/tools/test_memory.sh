#!/usr/bin/env bash
# Streaming: an exporter's peak memory does not grow with the number of
# events. Two synthetic hubs, 10x apart in size; the peak RSS of db2json and
# db2perfetto on each must agree within 10% (+2 MiB of allocator noise).
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
# Under AddressSanitizer, freed memory sits in a quarantine (256 MB by
# default) that grows with every free, whatever the program keeps alive:
# measure the program, not the quarantine.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
# 10k and 100k launches: the reader's caches are full at both (peak RSS
# 10.4 MB either way), so a per-event leak of 35 bytes or more shows; make
# check-long runs 30k and 300k (MEM_SMALL, MEM_BIG) for smaller ones.
small=${MEM_SMALL:-10000}; big=${MEM_BIG:-100000}
# SQLite's caches fill up to the reader's 4 MB soft heap limit as a hub
# grows and stay there; ASan's allocator turns those 4 MB into up to 6 MB of
# RSS, so the sanitizer build gets that much more room. The plain build's
# bound is the strict one.
slack=2048
[ "${SANITIZE:-0}" = 1 ] && slack=6144
"$GEN" "$TMP/small.db" "$small" 4 && "$GEN" "$TMP/big.db" "$big" 4 || fail "gen_hub"
expect_eq "big hub has 10x the events" "$((2 * big))" \
  "$(q "$TMP/big.db" "SELECT (SELECT count(*) FROM rocpd_region)+(SELECT count(*) FROM rocpd_kernel_dispatch)")"
for tool in db2json db2perfetto; do
  [ -x "$BIN/$tool" ] || { fail "$tool: not built"; continue; }
  for mode in "" "--split window --windows 8"; do
    rs=$($PY "$ROOT/tests/checkers/peak_rss.py" $tool -q "$TMP/small.db" $mode -o "$TMP/s.out")
    rb=$($PY "$ROOT/tests/checkers/peak_rss.py" $tool -q "$TMP/big.db" $mode -o "$TMP/b.out")
    echo "$tool ${mode:-(one file)}: peak RSS ${rs} KiB at $((2*small)) events, ${rb} KiB at $((2*big)) events"
    if [ "$rb" -le $(( rs + rs / 10 + slack )) ]; then pass "$tool: flat memory ${mode:-one file}: $rs KiB vs $rb KiB"
    else fail "$tool: memory grows with events ${mode:-one file}: $rs KiB vs $rb KiB"; fi
    rm -f "$TMP"/s*.out "$TMP"/b*.out
  done
done
# db2otf2 holds one event chunk per location, filled before it is written
# to the location's file: memory grows with the locations until each has
# written a chunk (4 MiB), then not with the events. Hubs of one thread
# (2 locations: the thread, the GPU stream) whose locations are past their
# chunk at the small size (150k launches, about 4.8 MB of events each), and
# 2x that (MEM_OTF2_BIG: 300k launches, so a per-event leak of about 14
# bytes shows; make check-long runs 4x, 600k, for one of about 5).
otf2_small=150000 otf2_big=${MEM_OTF2_BIG:-300000}
if [ -x "$BIN/db2otf2" ]; then
  "$GEN" "$TMP/o_small.db" $otf2_small 1 && "$GEN" "$TMP/o_big.db" "$otf2_big" 1 || fail "gen_hub, one thread"
  rs=$($PY "$ROOT/tests/checkers/peak_rss.py" db2otf2 -q "$TMP/o_small.db" -o "$TMP/s.otf2")
  expect_eq "db2otf2: 2 locations" 2 "$(ls "$TMP/s.otf2/traces" | grep -c '\.evt$')"
  small_evt=$(find "$TMP/s.otf2/traces" -name '*.evt' -size -4097k | wc -l)
  expect_eq "db2otf2: every location past 4 MiB of events at the small size" 0 "$small_evt"
  rb=$($PY "$ROOT/tests/checkers/peak_rss.py" db2otf2 -q "$TMP/o_big.db" -o "$TMP/b.otf2")
  echo "db2otf2: peak RSS ${rs} KiB at $((2 * otf2_small)) events, ${rb} KiB at $((2 * otf2_big)) events (2 locations)"
  if [ "$rb" -le $(( rs + rs / 10 + slack )) ]; then pass "db2otf2: flat memory past one chunk per location: $rs KiB vs $rb KiB"
  else fail "db2otf2: memory grows with events: $rs KiB vs $rb KiB"; fi
  rm -rf "$TMP/s.otf2" "$TMP/b.otf2"
fi
# dbmerge streams rows through SQLite's page cache: 64 KiB of cache per
# input (at least 8 MiB) for the schema scans of many inputs, not a flat
# 64 MiB that the rows of one big hub filled (108 MB at 600k events before);
# on db2otf2's big hub (300k launches, 600k events, 136 MB: over 64 MiB,
# so such a cache would fill) when it was made.
if [ -x "$BIN/dbmerge" ]; then
  bound=$((32 * 1024)); [ "${SANITIZE:-0}" = 1 ] && bound=$((64 * 1024))
  mdb=$TMP/o_big.db; [ -f "$mdb" ] || mdb=$TMP/big.db
  rb=$($PY "$ROOT/tests/checkers/peak_rss.py" dbmerge -q "$mdb" -o "$TMP/m.db")
  ev=$(q "$mdb" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch)")
  expect_eq "dbmerge copied every region" "$(q "$mdb" "SELECT count(*) FROM rocpd_region")" \
    "$(q "$TMP/m.db" "SELECT count(*) FROM rocpd_region")"
  if [ "$rb" -le "$bound" ]; then pass "dbmerge: peak RSS $rb KiB <= $bound KiB at $ev events"
  else fail "dbmerge: peak RSS $rb KiB > $bound KiB at $ev events"; fi
  rm -f "$TMP/m.db"
fi
