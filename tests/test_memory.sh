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
small=${MEM_SMALL:-30000}; big=${MEM_BIG:-300000}
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
    rs=$($PY "$ROOT/tests/peak_rss.py" $tool -q "$TMP/small.db" $mode -o "$TMP/s.out")
    rb=$($PY "$ROOT/tests/peak_rss.py" $tool -q "$TMP/big.db" $mode -o "$TMP/b.out")
    echo "$tool ${mode:-(one file)}: peak RSS ${rs} KiB at $((2*small)) events, ${rb} KiB at $((2*big)) events"
    if [ "$rb" -le $(( rs + rs / 10 + slack )) ]; then pass "$tool: flat memory ${mode:-one file}: $rs KiB vs $rb KiB"
    else fail "$tool: memory grows with events ${mode:-one file}: $rs KiB vs $rb KiB"; fi
    rm -f "$TMP"/s*.out "$TMP"/b*.out
  done
done
