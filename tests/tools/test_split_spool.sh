#!/usr/bin/env bash
# A size split reads its inputs once (issue 37): the fewest pass keeps the
# records it reads in a temporary file (hub_spool, hub_reader.h), and the
# balanced pass and the writer replay them rather than read SQLite twice
# more; on two CPUs a thread of its own reads the inputs into the spool
# while the fewest pass replays it just behind (hub_spool_fill). The rows SQLite steps are counted by tests/tools/step_log.so
# (LD_PRELOAD, outside the tool). Every part is the same bytes as reading
# again (TT_SPOOL=0) for each exporter: a generated trace, three real
# fixtures (args, recorded arrows, launch links), a time range, --gpu, a
# part alone, inputs aligned onto one timeline. Where no spool can be kept
# (no TMPDIR, a file size limit reached mid-stream) the split says so,
# reads again and writes the same parts; nothing is left in TMPDIR.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
STEP="$ROOT/$BUILD/tests/step_log.so"
# rows CMD...: the rows SQLite stepped for the command (its exit status
# kept in $TMP/rc).
rows() {
  rm -f "$TMP/steps"
  STEP_LOG="$TMP/steps" LD_PRELOAD="$STEP" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
    "$@" >/dev/null 2>&1
  echo $? >"$TMP/rc"
  cat "$TMP/steps" 2>/dev/null || echo 0
}
# same_parts DESC DIR_A DIR_B: the same part names and bytes (an OTF2
# anchor file holds a random trace id: the rest is compared).
same_parts() {
  local n
  n=$(ls "$2" | wc -l)
  if [ "$n" -ge 1 ] && [ "$(ls "$2")" == "$(ls "$3")" ] && diff -r -x traces.otf2 "$2" "$3" >/dev/null; then
    pass "$1 ($n files)"
  else
    fail "$1: [$(ls "$2" | tr '\n' ' ')] against [$(ls "$3" | tr '\n' ' ')]"
  fi
}

"$GEN" "$TMP/b.db" 20000 4 bursty || fail "gen_hub bursty"
# --- the rows are read once -------------------------------------------------
one=$(rows db2json -q "$TMP/b.db" -o "$TMP/one.json")
expect_eq "one file: exit 0" 0 "$(cat "$TMP/rc")"
events=$(q "$TMP/b.db" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch)")
[ "$one" -ge "$events" ] && pass "the witness counts the rows one file reads ($one, $events events)" ||
  fail "the witness counted $one rows for $events events"
for threads in 1 2; do
  mkdir -p "$TMP/s$threads"
  split=$(rows db2json -q "$TMP/b.db" --max-part-size 1M --threads $threads -o "$TMP/s$threads/x.json")
  expect_eq "--threads $threads: exit 0" 0 "$(cat "$TMP/rc")"
  n=$(ls "$TMP/s$threads" | wc -l)
  [ "$n" -ge 3 ] && pass "--threads $threads: $n parts" || fail "--threads $threads: $n parts"
  # Each of the three readers opens its inputs for their info (a few
  # hundred rows); the events and args are read once: within 10% of one file.
  [ "$split" -le $((one * 11 / 10)) ] && pass "--threads $threads: $split rows read, one file reads $one" ||
    fail "--threads $threads: $split rows read, more than 1.1x one file's $one"
done
mkdir -p "$TMP/again"
again=$(TT_SPOOL=0 rows db2json -q "$TMP/b.db" --max-part-size 1M -o "$TMP/again/x.json")
[ "$again" -ge $((one * 5 / 2)) ] && pass "read again (TT_SPOOL=0): $again rows, three reads" ||
  fail "read again (TT_SPOOL=0): $again rows, not 2.5x one file's $one"
same_parts "the spool's parts are the parts read again" "$TMP/s2" "$TMP/again"
same_parts "one CPU's parts are two's" "$TMP/s1" "$TMP/s2"
rm -rf "$TMP"/s1 "$TMP"/s2 "$TMP/again"
# --part K keeps no copy (the jobs of a parallel run would each keep one):
# its two planning passes read the hub, then its own range.
mkdir -p "$TMP/p"
part=$(rows db2json -q "$TMP/b.db" --max-part-size 1M --part 1 -o "$TMP/p/x.json")
[ "$part" -ge $((one * 2)) ] && pass "--part 1: no copy kept, the hub read by both planning passes ($part rows)" ||
  fail "--part 1: $part rows read, less than two reads ($one each)"
rm -rf "$TMP/p"
# --count-parts reads once and keeps nothing.
expect_eq "--count-parts: the parts' count, one read" "9 yes" \
  "$(db2json "$TMP/b.db" --max-part-size 1M --count-parts) $([ "$(rows db2json "$TMP/b.db" --max-part-size 1M --count-parts)" -le $((one * 11 / 10)) ] && echo yes)"

# Three hubs read in passes (ulimit -n 20: a descriptor budget of 2): the
# reader in passes is spooled too, its replays' groups opened for their
# info only. Each of its opens reads every group (the first reader, which
# finds the time base, too), so the spool saves two of four reads; the
# parts are the direct split's.
for i in 1 2 3; do "$GEN" "$TMP/g$i.db" 3000 4 bursty >/dev/null || fail "gen_hub g$i"; done
G3=("$TMP"/g?.db)
one3=$(rows db2json -q "${G3[@]}" -o "$TMP/g.json")
mkdir -p "$TMP/gd" "$TMP/gk" "$TMP/gr"
db2json -q "${G3[@]}" --max-part-size 256K -o "$TMP/gd/x.json"
kept=$( (ulimit -n 20; rows db2json -q "${G3[@]}" --max-part-size 256K -o "$TMP/gk/x.json") )
again=$( (ulimit -n 20; TT_SPOOL=0 rows db2json -q "${G3[@]}" --max-part-size 256K -o "$TMP/gr/x.json") )
[ $((again - kept)) -ge $((one3 * 3 / 2)) ] &&
  pass "in passes: $kept rows read with the spool, $again without (one read: $one3)" ||
  fail "in passes: $kept rows read with the spool, $again without: not two reads fewer (one read: $one3)"
same_parts "in passes: the parts of the direct split" "$TMP/gk" "$TMP/gd"
same_parts "in passes: the parts read again" "$TMP/gk" "$TMP/gr"
rm -rf "$TMP/gd" "$TMP/gk" "$TMP/gr"

# --- the same bytes, every exporter -----------------------------------------
kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/alexnet.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/saxpy.db"
rpd2db -q "$FIX/rocm/rpd_matmul_result_large.rpd" -o "$TMP/matmul.db"
# compare TOOL EXT HUB ARGS...: the split kept and replayed, and read again.
compare() {
  local tool=$1 ext=$2 hub=$3 name
  shift 3
  name="$tool $(basename "$hub" .db) $*"
  rm -rf "$TMP/k" "$TMP/r"
  mkdir -p "$TMP/k" "$TMP/r"
  $tool -q "$hub" "$@" -o "$TMP/k/x.$ext" 2>"$TMP/k.err"
  local rk=$?
  TT_SPOOL=0 $tool -q "$hub" "$@" -o "$TMP/r/x.$ext" 2>"$TMP/r.err"
  expect_eq "$name: exit 0 both ways" "0 0" "$rk $?"
  same_parts "$name: the same parts as read again" "$TMP/k" "$TMP/r"
}
for spec in "db2json json 16K" "db2perfetto pftrace 8K" "db2otf2 otf2 8K"; do
  read -r tool ext size <<<"$spec"
  for h in alexnet saxpy matmul; do compare $tool $ext "$TMP/$h.db" --max-part-size $size; done
  compare $tool $ext "$TMP/alexnet.db" --max-part-size $size --threads 1
  compare $tool $ext "$TMP/alexnet.db" --max-part-size $size --start 10% --end 80%
  compare $tool $ext "$TMP/saxpy.db" --max-part-size $size --gpu
  compare $tool $ext "$TMP/alexnet.db" --max-part-size $size --part 1
done
n=$(db2json "$TMP/alexnet.db" --max-part-size 16K --count-parts)
[ "$n" -ge 4 ] && pass "alexnet at 16K: $n parts" || fail "alexnet at 16K: $n parts"

# Inputs of three hosts moved onto one timeline: the spool holds the
# moved times, as the readers after it would read them.
$PY "$ROOT/tests/data/gen_multinode.py" "$TMP/run" --hosts 3 --ranks-per-host 2 --steps 12 --seed 3 >/dev/null
rm -rf "$TMP/k" "$TMP/r"
mkdir -p "$TMP/k" "$TMP/r"
db2json -q --align collectives "$TMP"/run/rocprof/rank*.db --max-part-size 64K -o "$TMP/k/x.json"
TT_SPOOL=0 db2json -q --align collectives "$TMP"/run/rocprof/rank*.db --max-part-size 64K -o "$TMP/r/x.json"
same_parts "--align collectives, six hubs: the same parts as read again" "$TMP/k" "$TMP/r"

# --- no spool: said, read again, the same parts ------------------------------
mkdir -p "$TMP/ref" "$TMP/t"
TT_SPOOL=0 db2json -q "$TMP/b.db" --max-part-size 1M -o "$TMP/ref/x.json"
for threads in 1 2; do
  rm -rf "$TMP/k"; mkdir -p "$TMP/k"
  err=$(TMPDIR="$TMP/none" db2json "$TMP/b.db" --max-part-size 1M --threads $threads -o "$TMP/k/x.json" 2>&1)
  expect_eq "--threads $threads, no TMPDIR: exit 0" 0 $?
  [[ "$err" == *"$TMP/none: cannot make a temporary file to keep the stream read (No such file or directory): reading it again instead"* ]] &&
    pass "--threads $threads, no TMPDIR: said, read again" || fail "--threads $threads, no TMPDIR: [$err]"
  same_parts "--threads $threads, no TMPDIR: the same parts" "$TMP/k" "$TMP/ref"
  # A file size limit (ulimit -f, SIGXFSZ ignored: writes fail with EFBIG)
  # reached by the spool after its first records: given up mid-stream. On
  # two CPUs the fewest pass is replaying it then, and goes on reading the
  # hub from where it was.
  rm -rf "$TMP/k"; mkdir -p "$TMP/k"
  err=$( (trap '' XFSZ; ulimit -f 4096; TMPDIR="$TMP/t" db2json "$TMP/b.db" --max-part-size 1M --threads $threads -o "$TMP/k/x.json") 2>&1)
  expect_eq "--threads $threads, a spool cut short by a file size limit: exit 0" 0 $?
  [[ "$err" == *"cannot keep the stream read in a temporary file (File too large): reading it again instead"* ]] &&
    pass "--threads $threads, a spool cut short: said, read again" || fail "--threads $threads, a spool cut short: [$err]"
  same_parts "--threads $threads, a spool cut short: the same parts" "$TMP/k" "$TMP/ref"
  expect_eq "--threads $threads: nothing left in TMPDIR" "" "$(ls -A "$TMP/t")"
done
