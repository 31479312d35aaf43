#!/usr/bin/env bash
# Alignment that is right or refused (issue 44): recordings whose
# collectives do not say where a host is (unrelated runs, names swapped)
# are refused and left as recorded; recordings that shift the order of
# name-keyed collectives (a profile started late, a warm-up collective on
# one rank) are aligned within the end skew; no map ever runs time
# backwards; dbmerge tags only what it aligned; the messages; and SQLite
# set up for threads before a threaded split opens anything (helgrind).
source "$(dirname "$0")/lib.sh"
G="$ROOT/tests/data/gen_multinode.py"
CHK="$ROOT/tests/checkers/align_truth.py"
skew_of() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives"]["max_end_skew_ns"])' "$1"; }

# --- unrelated collectives: refused, the host left as recorded -------------
# Two hosts of rocprofv3-shaped hubs; node001 ran another run (same kernel
# names, other times), so collectives pair by name and order only.
$PY "$G" "$TMP/un" --hosts 2 --ranks-per-host 2 --steps 12 --unrelated-host 1 --formats rocprof
UN=("$TMP"/un/rocprof/rank*.db)
db2json "${UN[@]}" -o "$TMP/un.json" 2>"$TMP/un.err"
expect_eq "unrelated (rocprof): exit 0, a warning naming node001 left as recorded" "1" \
  "$(grep -c '^db2json: warning: the timeline mixes clocks: node001 (boot clock) is left as recorded, its fit on the collectives refused' "$TMP/un.err")"
db2json -q --align none "${UN[@]}" -o "$TMP/un.none.json"
expect_ok "unrelated (rocprof): byte-identical to --align none" cmp "$TMP/un.json" "$TMP/un.none.json"
expect_fail "unrelated: --align collectives is an error naming the host and the test" \
  "--align collectives: node001 \(boot clock\) against the reference node000: refused \(" \
  db2json -q --align collectives "${UN[@]}" -o "$TMP/un2.json"
expect_eq "unrelated: --align collectives writes nothing" "" "$(ls "$TMP" | grep '^un2')"

# The same as Kineto records it (Seq keys, wall clocks ms apart): refused;
# every input has a wall-clock anchor, so wall is used for all (Kineto's
# wall times: nothing moves), and a window split writes its four windows.
$PY "$G" "$TMP/kun" --hosts 2 --ranks-per-host 2 --steps 12 --unrelated-host 1 --formats kineto
for f in "$TMP"/kun/kineto/rank*.json; do kineto2db -q "$f" -o "$TMP/kun_$(basename "$f" .json).db"; done
KUN=("$TMP"/kun_rank*.db)
mkdir "$TMP/kw" "$TMP/kn"
db2json "${KUN[@]}" --split window --windows 4 -o "$TMP/kw/k.json" 2>"$TMP/kun.err"
expect_eq "unrelated (kineto): refused for its ends, then wall for all" "1 1" \
  "$(grep -c 'node001 (wall clock) is left as recorded, its fit on the collectives refused (ends disagree)' "$TMP/kun.err") $(grep -c 'aligning by the inputs. wall-clock anchors instead' "$TMP/kun.err")"
db2json -q --align none "${KUN[@]}" --split window --windows 4 -o "$TMP/kn/k.json"
expect_eq "unrelated (kineto): --split window --windows 4 writes 4 windows" 4 "$(ls "$TMP/kw" | wc -l)"
expect_ok "unrelated (kineto): the windows as --align none's" diff -r "$TMP/kw" "$TMP/kn"
db2summary -q --format json "${KUN[@]}" -o "$TMP/kun.sum.json"
db2summary -q --format json --align none "${KUN[@]}" -o "$TMP/kun.sum.none.json"
# The longest kernel, from the Kineto traces themselves: dur of the
# longest "kernel" event, in ns (ts and dur in us with ns decimals).
longest=$($PY - "$TMP"/kun/kineto/rank*.json <<'PY'
import json, sys
from decimal import Decimal
print(max(int(Decimal(str(e["dur"])) * 1000) for f in sys.argv[1:]
          for e in json.load(open(f), parse_float=Decimal)["traceEvents"] if e.get("cat") == "kernel"))
PY
)
expect_eq "unrelated (kineto): db2summary's longest kernel as recorded ($longest ns)" "$longest" \
  "$($PY -c 'import json,sys; print(max(r["max_ns"] for t in json.load(open(sys.argv[1]))["tables"] if t["table"] == "kernels" for r in t["rows"]))' "$TMP/kun.sum.json")"

# --- dbmerge of a refused set: times as recorded, untagged ----------------
# Three hosts: node001 fits, node002 ran another run.
$PY "$G" "$TMP/u3" --hosts 3 --ranks-per-host 1 --steps 12 --unrelated-host 2 --formats rocprof
U3=("$TMP"/u3/rocprof/rank*.db)
dbmerge -q "${U3[@]}" -o "$TMP/u3.db"
tags() { for t in $(q "$1" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_metadata_*' ORDER BY name"); do
  echo "${t#rocpd_metadata_}=$(q "$1" "SELECT count(*) FROM \"$t\" WHERE tag='tracetools.aligned'")"; done | tr '\n' ' '; }
expect_eq "dbmerge: the reference and node001 tagged aligned, node002 not" \
  "00000000_0000_4000_8000_000000000000=1 00000001_0000_4000_8000_000000000001=1 00000002_0000_4000_8000_000000000002=0 " \
  "$(tags "$TMP/u3.db")"
sfx=_00000002_0000_4000_8000_000000000002
expect_eq "dbmerge: node002's kernels keep their recorded times" \
  "$(q "${U3[2]}" "SELECT sum(start), sum(\"end\") FROM \"rocpd_kernel_dispatch$sfx\"")" \
  "$(q "$TMP/u3.db" "SELECT sum(start), sum(\"end\") FROM \"rocpd_kernel_dispatch$sfx\"")"
expect_eq "dbmerge: node001's kernels moved (aligned)" 1 \
  "$(q "$TMP/u3.db" "SELECT (SELECT sum(start) FROM \"rocpd_kernel_dispatch_00000001_0000_4000_8000_000000000001\") != $(q "${U3[1]}" "SELECT sum(start) FROM \"rocpd_kernel_dispatch_00000001_0000_4000_8000_000000000001\"")")"
dbmerge -q "${UN[@]}" -o "$TMP/un.db"
expect_eq "dbmerge of a set whose only fit is refused: nothing tagged" "" "$(tags "$TMP/un.db" | tr ' ' '\n' | grep '=1')"

# --- a profile that starts late, a warm-up collective: aligned -------------
# Name-and-order keys shift by the instances missing; the shift is found
# and every slice lands within the collectives' end skew of the truth.
$PY "$G" "$TMP/late" --hosts 3 --ranks-per-host 2 --steps 12 --late-start 2:4 --max-drift-ppm 50 --seed 3 --formats rocprof
db2json "$TMP"/late/rocprof/rank*.db -o "$TMP/late.json" 2>"$TMP/late.err"
expect_ok "late start (node002, 4 steps): every slice within the end skew of the truth" \
  $PY "$CHK" "$TMP/late/truth.json" rocprof "$TMP/late/rocprof" "$TMP/late.json" "$(skew_of "$TMP/late/truth.json")"
expect_eq "late start: node002 fitted on its 12 collectives" 1 \
  "$(grep -c 'align: node002 (boot clock): offset .* 12 collectives$' "$TMP/late.err")"
for r in 2 0; do
  $PY "$G" "$TMP/w$r" --hosts 3 --ranks-per-host 2 --steps 12 --warmup-rank $r --max-drift-ppm 50 --seed 3 --formats rocprof
  db2json -q "$TMP"/w$r/rocprof/rank*.db -o "$TMP/w$r.json"
  expect_ok "a warm-up all-reduce on rank $r: every slice within the end skew of the truth" \
    $PY "$CHK" "$TMP/w$r/truth.json" rocprof "$TMP/w$r/rocprof" "$TMP/w$r.json" "$(skew_of "$TMP/w$r/truth.json")"
done

# --- two names in opposite order: never a backwards map -------------------
$PY "$G" "$TMP/sw" --hosts 2 --ranks-per-host 2 --steps 12 --swap-names 1 --seed 3 --formats rocprof
SW=("$TMP"/sw/rocprof/rank*.db)
db2json "${SW[@]}" -o "$TMP/sw.json" 2>"$TMP/sw.err"
expect_eq "names swapped on node001: refused, left as recorded" 1 \
  "$(grep -c 'node001 (boot clock) is left as recorded' "$TMP/sw.err")"
db2json -q --align none "${SW[@]}" -o "$TMP/sw.none.json"
expect_ok "names swapped: byte-identical to --align none" cmp "$TMP/sw.json" "$TMP/sw.none.json"
timeout 60 db2json -q "${SW[@]}" --start 10% --end 20% -o "$TMP/sw.r.json" 2>/dev/null
expect_eq "names swapped: --start 10% --end 20% returns (no event there: exit 1, not a hang)" 1 $?
expect_ok "names swapped: db2otf2 exit 0" db2otf2 -q "${SW[@]}" -o "$TMP/sw.otf2"
dbmerge -q "${SW[@]}" -o "$TMP/sw.db"
expect_eq "names swapped: dbmerge writes no kernel that ends before it starts" 0 \
  "$(q "$TMP/sw.db" 'SELECT count(*) FROM rocpd_kernel_dispatch WHERE "end" < start')"

# --- messages ---------------------------------------------------------------
# No rank known: the reference is named without one.
mkdir "$TMP/nr"
for f in "$TMP"/late/rocprof/rank00[02].db; do
  cp "$f" "$TMP/nr/"; t=$(q "$f" "SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'rocpd_info_process_*'")
  sqlite3 "$TMP/nr/$(basename "$f")" "UPDATE \"$t\" SET environment = '{}'"
done
db2json --align collectives "$TMP"/nr/*.db -o "$TMP/nr.json" 2>"$TMP/nr.err"
expect_eq "no rank known: 'the reference', no rank printed" "1 0" \
  "$(grep -c 'align: node000 (boot clock): the reference$' "$TMP/nr.err") $(grep -c -- '-9223372036854775808' "$TMP/nr.err")"
db2json --align collectives "$TMP"/late/rocprof/rank000.db "$TMP"/late/rocprof/rank001.db -o "$TMP/one.json" 2>"$TMP/one.err"
expect_eq "one host, --align collectives: says once there is nothing to align" 1 \
  "$(grep -c 'align: every input is of one host and clock (node000): nothing to align' "$TMP/one.err")"
expect_eq "a mistyped mode: a usage error (exit 2) listing the modes" "2 1" \
  "$(db2json --align collectiv "${UN[0]}" -o "$TMP/t.json" 2>"$TMP/t.err"; echo $?) $(grep -c "'collectiv' is neither a mode (auto, collectives, wall, none) nor a file" "$TMP/t.err")"

# --- SQLite set up for threads before a threaded split opens anything -------
# helgrind on a size split planned on a second thread (the spool filled on
# a third): no race inside SQLite (sqlite3HeapNearlyFull aside: a read of
# a flag SQLite leaves unlocked by design) and none in the spool. The
# threads are common/cli/export.c's, the same for every exporter: make
# check runs db2perfetto (helgrind makes it 4 s), make check-long all three
# (HELGRIND_TOOLS; db2otf2 alone takes 7 s).
: "${HELGRIND_TOOLS:=db2perfetto}"
if command -v valgrind >/dev/null 2>&1 && [ "${SANITIZE:-0}" = 0 ]; then
  "$ROOT/$BUILD/bench/gen_hub" "$TMP/hg.db" 400 4 bursty >/dev/null || fail "gen_hub"
  for spec in "db2json json 12K" "db2perfetto pftrace 8K" "db2otf2 otf2 8K"; do
    read -r tool ext size <<<"$spec"
    [[ " $HELGRIND_TOOLS " == *" $tool "* ]] || continue
    mkdir "$TMP/hg_$tool"
    TT_SPLIT_TRACE=1 valgrind --tool=helgrind "$BIN/$tool" -q "$TMP/hg.db" --max-part-size "$size" --threads 2 \
      -o "$TMP/hg_$tool/x.$ext" >"$TMP/hg_$tool.log" 2>&1
    expect_eq "helgrind, $tool size split on two threads: the spool filled on its own thread" 1 \
      "$(grep -c '^split-spool: filled on a thread of its own' "$TMP/hg_$tool.log")"
    # Each report's first frame ("at 0x...: FUNCTION") says where it is.
    races=$(awk '/Possible data race/ {r = 1; next} r && / at 0x/ {r = 0; if ($0 !~ /sqlite3HeapNearlyFull/) n++} END {print n+0}' "$TMP/hg_$tool.log")
    expect_eq "helgrind, $tool: no race (sqlite3HeapNearlyFull aside)" 0 "$races"
    expect_eq "helgrind, $tool: no lock misuse" 0 "$(grep -c 'destroy of a locked mutex\|unlocked a not-locked lock\|lock order' "$TMP/hg_$tool.log")"
  done
else
  skip "helgrind: valgrind absent or a sanitizer build"
fi
