#!/usr/bin/env bash
# --max-part-size (issue 23): on a bursty trace (90% of the events in the
# first tenth of the time), equal windows give an oversized part; the size
# split gives parts of at most SIZE, balanced (issue 37: about total/n each,
# the last too), at least SIZE/2 but the last, every
# part valid alone and every event in one part at least, for db2json,
# db2perfetto and db2otf2. --count-parts and --part K agree with the
# serial run. Whole processes are packed (200 small hubs into a few parts);
# a process too big alone is cut into windows. Expected counts come from
# sqlite3 on the hubs.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
EVENTS="$ROOT/tests/checkers/split_events.py"
export TT_PROTO_DIR="$ROOT/tests/data"

"$GEN" "$TMP/b.db" 20000 4 bursty || fail "gen_hub bursty"
total=$(q "$TMP/b.db" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch)")
expect_eq "bursty hub: 20000 launches and 20000 kernels" 40000 "$total"

# bytes PART: a file's size, or an OTF2 archive's files together.
bytes() {
  if [ -d "$1" ]; then find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'
  else stat -c %s "$1"; fi
}

# tool ext size checker split_events-format
for spec in "db2json json 1M 1048576 chrome-json-check json" \
            "db2perfetto pftrace 256K 262144 pftrace-check pftrace" \
            "db2otf2 otf2 256K 262144 otf2-check otf2"; do
  read -r tool ext size max checker fmt <<<"$spec"
  d="$TMP/$tool"; mkdir -p "$d"
  # Equal windows: the burst's window is over the size.
  $tool -q "$TMP/b.db" --split window --windows 8 -o "$d/eq.$ext"
  expect_eq "$tool --windows 8: window 0 over $size" 1 "$([ "$(bytes "$d/eq.w000.$ext")" -gt "$max" ] && echo 1)"
  # The size split, its plan's bound and bytes of each part on stderr
  # (TT_SPLIT_TRACE: "split: part K planned BOUND written BYTES").
  if TT_SPLIT_TRACE=1 $tool -q "$TMP/b.db" --max-part-size "$size" -o "$d/s.$ext" 2>"$d/trace"; then
    pass "$tool --max-part-size $size"
  else fail "$tool --max-part-size $size: exit $?: $(head -c 600 "$d/trace")"; fi
  parts=("$d"/s.w*."$ext")
  n=${#parts[@]}
  expect_eq "$tool: --count-parts is the number of parts written" "$n" \
    "$($tool "$TMP/b.db" --max-part-size "$size" --count-parts)"
  [ "$n" -ge 3 ] && pass "$tool: $n parts" || fail "$tool: only $n parts"
  over=0 small=0 i=0
  for p in "${parts[@]}"; do
    b=$(bytes "$p")
    [ "$b" -le "$max" ] || { over=$((over + 1)); echo "  $p: $b bytes" >&2; }
    i=$((i + 1))
    [ $i -lt $n ] && [ "$b" -lt $((max / 2)) ] && { small=$((small + 1)); echo "  $p: $b bytes" >&2; }
  done
  expect_eq "$tool: every part at most $size" 0 "$over"
  expect_eq "$tool: every part but the last at least half of $size" 0 "$small"
  # Balanced (issue 37): n parts of about total/n each, the last one too
  # (filled to the size, the last held what was left: a third of the rest).
  spread=$(for p in "${parts[@]}"; do bytes "$p"; done | sort -n |
    awk 'NR == 1 {lo = $1} {hi = $1} END {print (hi <= 1.1 * lo) ? "balanced" : lo " to " hi}')
  expect_eq "$tool: parts balanced (largest at most 1.1x the smallest)" balanced "$spread"
  files=("${parts[@]}"); [ "$ext" = otf2 ] && files=("${parts[@]/%//traces.otf2}")
  # one checker run for every part (each checked alone; a problem names its part)
  out=$($PY "$(own_checker "$checker")" -q "${files[@]}" 2>&1 >/dev/null)
  expect_eq "$tool: every part valid alone ($checker)" "0|" "$?|${out:0:600}"
  expect_eq "$tool: every event in a part" "$total" "$($PY "$EVENTS" "$fmt" "${files[@]}")"
  # --part K alone: the serial run's part, byte for byte (an OTF2 anchor
  # file holds a random trace id: the rest of the archive is compared).
  for k in 0 $((n / 2)) $((n - 1)); do
    $tool -q "$TMP/b.db" --max-part-size "$size" --part "$k" -o "$d/k.$ext"
    kk=$(printf '%03d' "$k")
    if [ "$ext" = otf2 ]; then
      same=$(diff -r -x traces.otf2 "$d/k.w$kk.$ext" "$d/s.w$kk.$ext" >/dev/null && echo same)
    else
      same=$(cmp -s "$d/k.w$kk.$ext" "$d/s.w$kk.$ext" && echo same)
    fi
    expect_eq "$tool --part $k is the serial run's part $k" same "$same"
    [ "$(ls -d "$d"/k.* | wc -l)" = 1 ] && pass "$tool --part $k writes one part" ||
      fail "$tool --part $k wrote $(ls -d "$d"/k.*)"
    rm -rf "$d"/k.*
  done
  # The plan's bound holds for every part (the size split's trace, above).
  worse=$(awk '$1 == "split:" && $7 > $5' "$d/trace" | wc -l)
  expect_eq "$tool: no part over its planned bound" 0 "$worse"
done

# --- the option itself ----------------------------------------------------
expect_fail "a bare number is refused" "give a unit" db2json "$TMP/b.db" --max-part-size 1000 -o "$TMP/x.json"
expect_fail "not a size" "not a positive size" db2json "$TMP/b.db" --max-part-size 12Q -o "$TMP/x.json"
expect_fail "with --windows: refused" "not two of them" db2json "$TMP/b.db" --split window --windows 2 --max-part-size 1M -o "$TMP/x.json"
expect_fail "db2otf2 has no automatic limit" "no automatic limit.*Vampir" db2otf2 "$TMP/b.db" --max-part-size auto -o "$TMP/x.otf2"
expect_fail "db2summary has no size split" "not for this tool" db2summary "$TMP/b.db" --max-part-size 1M -o "$TMP/x.txt"
expect_eq "auto: 200 MB for JSON, this trace is one part" 1 "$(db2json "$TMP/b.db" --max-part-size auto --count-parts)"
expect_eq "auto: 500 MB for .pftrace, one part" 1 "$(db2perfetto "$TMP/b.db" --max-part-size auto --count-parts)"
expect_eq "K is 1024 bytes: 1024K as many parts as 1M" \
  "$(db2json "$TMP/b.db" --max-part-size 1M --count-parts)" "$(db2json "$TMP/b.db" --max-part-size 1024K --count-parts)"
db2json --help | grep -q -- "--max-part-size SIZE.*powers of 1024" && pass "--help names --max-part-size" ||
  db2json --help | grep -q "powers of 1024" && pass "--help: powers of 1024" || fail "--help lacks powers of 1024"
for t in db2json db2perfetto db2otf2; do
  grep -q 'max\\-part\\-size' "$ROOT/man/$t.1" && pass "man $t: --max-part-size" || fail "man $t lacks --max-part-size"
done
# Over the viewer's size without --split: one warning, at the end, naming
# the viewer and --max-part-size auto (the limit lowered for the test).
err=$(TT_AUTO_MAX_PART_SIZE=1000000 db2json "$TMP/b.db" -o "$TMP/one.json" 2>&1)
expect_eq "over the viewer's size: one warning" 1 "$(grep -c 'warning:' <<<"$err")"
[[ "$(tail -1 <<<"$err")" == *"chrome://tracing"*"--max-part-size auto"* ]] &&
  pass "the warning ends the run and names the viewer and --max-part-size auto" || fail "warning: $err"
err=$(TT_AUTO_MAX_PART_SIZE=1000000 db2perfetto "$TMP/b.db" -o "$TMP/one.pftrace" 2>&1)
[[ "$err" == *"Perfetto UI"*"--max-part-size auto"* ]] && pass "db2perfetto: the same warning" || fail "warning: $err"
err=$(TT_AUTO_MAX_PART_SIZE=1000000 db2json "$TMP/b.db" --max-part-size 1M -o "$TMP/ok.json" 2>&1)
expect_eq "no warning with --split" 0 "$(grep -c 'warning:' <<<"$err")"
rm -f "$TMP"/one.* "$TMP"/ok.*

# A part that cannot be small enough: 4 launches and kernels, 500 ns
# apart, each event's name 1200 bytes long, so each instant's event with
# its track's names is over 1K (a JSON part names only the tracks it draws).
"$GEN" "$TMP/tiny.db" 4 4 >/dev/null
strings=$(q "$TMP/tiny.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_string%'")
q "$TMP/tiny.db" "UPDATE \"$strings\" SET string = string || replace(hex(zeroblob(600)), '0', 'x')"
err=$(db2json "$TMP/tiny.db" --max-part-size 1K -o "$TMP/tiny.json" 2>&1)
[[ "$err" == *"more than --max-part-size 1 KiB"*"cannot be cut apart"* ]] &&
  pass "an instant over the size is said" || fail "no message: $err"
expect_eq "one event per part, as small as it gets" 8 "$(ls "$TMP"/tiny.w*.json | wc -l)"

# --- --split process --max-part-size --------------------------------------
mkdir -p "$TMP/many"
for i in $(seq 1 200); do "$GEN" "$TMP/many/h$i.db" $((20 + i % 5 * 10)) 2 even $((1000 + i)) >/dev/null; done
for i in 1 200; do
  expect_eq "small hub $i: process $((1000 + i))" $((1000 + i)) "$(q "$TMP/many/h$i.db" "SELECT pid FROM rocpd_info_process")"
done
mkdir -p "$TMP/pk" "$TMP/pk1"
db2json -q "$TMP"/many/*.db --split process --max-part-size 256K -o "$TMP/pk/m.json"
np=$(ls "$TMP/pk" | wc -l)
[ "$np" -ge 3 ] && [ "$np" -le 20 ] && pass "200 hubs packed into $np parts" || fail "200 hubs gave $np parts"
expect_eq "--count-parts of the pack" "$np" "$(db2json "$TMP"/many/*.db --split process --max-part-size 256K --count-parts)"
expect_eq "first part named by its first and last process" 1 "$(ls "$TMP/pk" | grep -c '^m\.p1001-[0-9]*\.json$')"
over=0
for p in "$TMP"/pk/*.json; do [ "$(bytes "$p")" -le 262144 ] || over=$((over + 1)); done
expect_eq "every pack at most 256K" 0 "$over"
procs=$($PY -c "
import json, sys
seen = [e['pid'] for f in sys.argv[1:] for e in json.load(open(f))['traceEvents']
        if e.get('name') == 'process_name' and e['args']['name'] == 'bench']
print(len(seen), len(set(seen)))" "$TMP"/pk/*.json)
expect_eq "every process in exactly one pack" "200 200" "$procs"
# (one sqlite3 for the 200 hubs: .open each in turn, count, sum)
want=$(for i in $(seq 1 200); do
    echo ".open --readonly $TMP/many/h$i.db"
    echo "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch);"
  done | sqlite3 -batch -noheader | awk '{s += $1; n++} END {print (n == 200) ? s : "only " n " hubs counted"}')
got=$($PY -c "
import json, sys
print(sum(1 for f in sys.argv[1:] for e in json.load(open(f))['traceEvents'] if e.get('ph') == 'X'))" "$TMP"/pk/*.json)
expect_eq "every event of the 200 hubs in the packs, once" "$want" "$got"
mid=$(ls "$TMP/pk" | sed -n 2p); k=1
db2json -q "$TMP"/many/*.db --split process --max-part-size 256K --part $k -o "$TMP/pk1/m.json"
expect_eq "--part 1 of the pack is the serial run's" same "$(cmp -s "$TMP/pk1/$mid" "$TMP/pk/$mid" && echo same)"
validate "a pack is valid alone" chrome-json-check "$TMP/pk/$mid"
# A process too big alone is cut into windows: t.pPID.wNNN.
mkdir -p "$TMP/mix"
db2perfetto -q "$TMP/many/h1.db" "$TMP/many/h2.db" "$TMP/b.db" --split process --max-part-size 256K -o "$TMP/mix/t.pftrace"
expect_eq "small processes packed: t.p1001-1002" 1 "$(ls "$TMP/mix" | grep -c '^t\.p1001-1002\.pftrace$')"
nw=$(ls "$TMP/mix" | grep -c '^t\.p4242\.w[0-9][0-9][0-9]\.pftrace$')
[ "$nw" -ge 3 ] && pass "the big process cut into $nw windows" || fail "big process: $(ls "$TMP/mix")"
expect_eq "--count-parts counts packs and windows" "$(ls "$TMP/mix" | wc -l)" \
  "$(db2perfetto "$TMP/many/h1.db" "$TMP/many/h2.db" "$TMP/b.db" --split process --max-part-size 256K --count-parts)"
expect_eq "the big process's windows hold its events" 40000 \
  "$(TT_PROTO_DIR="$ROOT/tests/data" $PY "$EVENTS" pftrace "$TMP"/mix/t.p4242.w*.pftrace)"

# --- a real trace: Kineto's AlexNet fixture (args, flows, many threads) ---
kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/ax.db"
for spec in "db2json json" "db2perfetto pftrace" "db2otf2 otf2"; do
  read -r tool ext <<<"$spec"
  tr=$(TT_SPLIT_TRACE=1 $tool -q "$TMP/ax.db" --max-part-size 64K -o "$TMP/ax_$tool.$ext" 2>&1)
  n=$(grep -c '^split:' <<<"$tr")
  [ "$n" -ge 2 ] && pass "alexnet $tool: $n parts of 64K" || fail "alexnet $tool: $tr"
  expect_eq "alexnet $tool: no part over its bound or over 64K" 0 \
    "$(awk '$1 == "split:" && ($7 > $5 || $7 > 65536)' <<<"$tr" | wc -l)"
  # Balanced parts: each planned at about total/n, so at least half of the
  # size (OTF2's bound is above what libotf2 writes: the plan is checked).
  expect_eq "alexnet $tool: every part but the last planned at least 32K" 0 \
    "$(awk -v n="$n" '$1 == "split:" && $3 < n - 1 && $5 < 32768' <<<"$tr" | wc -l)"
done

# --- parallel jobs: the same parts -----------------------------------------
# On AlexNet's hub (above): the scripts run each part as its own
# `--part K` run, which plans the whole split again, so the part count,
# not the trace's size, is what they are tried on (4 JSON parts at 64K on
# 2 jobs, 8 Perfetto parts at 16K on 3 array tasks; on the bursty hub it
# was 10 s of plans).
mkdir -p "$TMP/par" "$TMP/arr" "$TMP/ax16"
expect_ok "convert-parallel.sh with --max-part-size" \
  "$ROOT/scripts/convert-parallel.sh" -j 2 db2json "$TMP/ax.db" --max-part-size 64K -o "$TMP/par/ax.json"
same=0
for p in "$TMP"/ax_db2json.w*.json; do cmp -s "$p" "$TMP/par/ax.${p##*/ax_db2json.}" && same=$((same + 1)); done
expect_eq "convert-parallel.sh: every part the serial run's" "$(ls "$TMP"/ax_db2json.w*.json | wc -l)" "$same"
db2perfetto -q "$TMP/ax.db" --max-part-size 16K -o "$TMP/ax16/ax.pftrace"
expect_ok "the Slurm array script (local mode) with --max-part-size" \
  "$ROOT/scripts/slurm/convert-array.sbatch" --local --tasks 3 db2perfetto "$TMP/ax.db" --max-part-size 16K -o "$TMP/arr/ax.pftrace"
same=0
for p in "$TMP"/ax16/ax.w*.pftrace; do cmp -s "$p" "$TMP/arr/${p##*/}" && same=$((same + 1)); done
expect_eq "array tasks: every part the serial run's" "$(ls "$TMP"/ax16/ax.w*.pftrace | wc -l)" "$same"
