#!/usr/bin/env bash
# --align (issue 38 items 2-3): ranks of several hosts, each host with its
# own clock, moved onto the reference host's by the ends of their
# collectives. tests/data/gen_multinode.py writes the run (Kineto traces
# and rocprofv3-shaped hubs, boot clocks days apart, drift up to 50 ppm)
# and its truth; tests/checkers/align_truth.py maps every recorded CPU
# slice back with the truth's offset and drift and checks the export put
# it there. Then: one host stays byte-identical, two hosts without
# collectives get the warning and nothing moves, FILE and wall modes,
# --start/--end in the aligned timeline, dbmerge --align, db2summary's
# Clocks, and FILE lines a user gets wrong.
source "$(dirname "$0")/lib.sh"
G="$ROOT/tests/data/gen_multinode.py"
CHK="$ROOT/tests/checkers/align_truth.py"

$PY "$G" "$TMP/run" --hosts 3 --ranks-per-host 2 --steps 12 --max-drift-ppm 50 --seed 3
R="$TMP/run"
skew=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives"]["max_end_skew_ns"])' "$R/truth.json")
mind=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives"]["min_duration_ns"])' "$R/truth.json")
ROC=("$R"/rocprof/rank*.db)
for f in "$R"/kineto/rank*.json; do kineto2db -q "$f" -o "$TMP/k_$(basename "$f" .json).db"; done
KIN=("$TMP"/k_rank*.db)
sums=$(sha256sum "${ROC[@]}" "${KIN[@]}")

# --- collectives: every slice where the truth puts it ---------------------
# The bound: the collectives' true end skew (a few us, max_end_skew_ns):
# a host's offset is the median over its collectives of end differences
# that each carry that skew, so it is within it (and a few % of the
# shortest collective, min_duration_ns, tens of us).
for fmt in rocprof kineto; do
  if [ $fmt = rocprof ]; then in=("${ROC[@]}"); else in=("${KIN[@]}"); fi
  db2json --align collectives "${in[@]}" -o "$TMP/$fmt.json" 2>"$TMP/$fmt.err"
  expect_ok "$fmt: every rank's slices within the end skew ($skew ns, $((skew * 100 / mind))% of the shortest collective) of the truth" \
    $PY "$CHK" "$R/truth.json" $fmt "$R/$fmt" "$TMP/$fmt.json" "$skew"
  $PY "$CHK" "$R/truth.json" $fmt "$R/$fmt" "$TMP/$fmt.json" "$skew" | head -1
  expect_eq "$fmt: one line per host on stderr: the reference, two fitted on 18 collectives" \
    "1 2" "$(grep -c '^db2json: align: node000 (.*): the reference (rank 0)$' "$TMP/$fmt.err") $(grep -cE \
      '^db2json: align: node00[12] \(.*\): offset [-+][0-9]+ ns, drift [-+][0-9.]+ ppm, residual median [0-9]+ ns, p99 [0-9]+ ns, 18 collectives$' "$TMP/$fmt.err")"
  db2json -q "${in[@]}" -o "$TMP/$fmt.auto.json"
  expect_ok "$fmt: auto aligns on the collectives (the same file)" cmp "$TMP/$fmt.json" "$TMP/$fmt.auto.json"
  db2json -q --align none "${in[@]}" -o "$TMP/$fmt.none.json"
  expect_fail "$fmt: --align none leaves the times as recorded (far from the truth)" \
    "further from the truth" $PY "$CHK" "$R/truth.json" $fmt "$R/$fmt" "$TMP/$fmt.none.json" "$skew"
done
expect_eq "the inputs are not modified" "$sums" "$(sha256sum "${ROC[@]}" "${KIN[@]}")"

# --- the plan opens no input for its info ----------------------------------
# What the plan needs of each input (host, clock, rank) comes from the
# export's own open of it: one connection per hub, plus one to read the
# collectives of each host's lowest rank (ranks 0, 2, 4). Many inputs are
# read in passes (forced here by a small descriptor limit): each hub is
# then opened alone for its order, the plan told then, and once more in
# its group. The CPU-sample stream (hub_samples.h) opens each hub once
# more, to see whether it holds samples or backtraces (none here: closed at
# once). The connections are counted by tests/tools/open_log.so, which
# logs every file SQLite opens.
opens() { # LIMIT OUT: the connections to each hub, in rank order (LIMIT "": as it is)
  rm -f "$TMP/opens.log"
  sh -c '[ -z "$1" ] || ulimit -n "$1"; shift; exec "$@"' sh "$1" env OPEN_LOG="$TMP/opens.log" \
    LD_PRELOAD="$ROOT/$BUILD/tests/open_log.so" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
    "$BIN/db2json" -q --align collectives "${ROC[@]}" -o "$2"
  for f in "${ROC[@]}"; do grep -cxF "$f" "$TMP/opens.log"; done | tr '\n' ' '
}
expect_eq "one connection per hub and one for its samples, and one more for each host's lowest rank's collectives" \
  "3 2 3 2 3 2 " "$(opens "" "$TMP/opens.json")"
expect_eq "read in passes: its order, its group, its samples, and each host's lowest rank's collectives" \
  "4 3 4 3 4 3 " "$(opens 24 "$TMP/opens.passes.json")"
expect_ok "read in passes: the same aligned file" cmp "$TMP/rocprof.json" "$TMP/opens.passes.json"

# Every exporter through the same reader: the pftrace and OTF2 too.
expect_ok "db2perfetto --align collectives" db2perfetto -q --align collectives "${ROC[@]}" -o "$TMP/r.pftrace"
expect_ok "the aligned .pftrace passes its checker" check_trace pftrace-check "$TMP/r.pftrace"
expect_ok "db2otf2 --align collectives" db2otf2 -q --align collectives "${ROC[@]}" -o "$TMP/r.otf2"

# --- db2summary states the error ------------------------------------------
db2summary -q --format json "${ROC[@]}" -o "$TMP/s.json"
expect_ok "db2summary json: each host's offset and drift predict the truth within the skew at the run's ends" \
  $PY - "$TMP/s.json" "$R/truth.json" "$skew" <<'PY'
import json, sys
s, t, bound = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
rows = {r["host"]: r for tb in s["tables"] if tb["table"] == "clocks" for r in tb["rows"]}
t0 = t["ref_t0_ns"]["rocprof"]
ok = len(rows) == 3
for h in t["hosts"]:
    r, tr = rows[h["host"]], h["rocprof"]
    for x in (r["anchor_ns"], r["anchor_ns"] + 20_000_000):  # within the run's 12 steps
        want = tr["offset_ns"] + tr["drift_ppm"] * 1e-6 * (x - t0)
        got = r["offset_ns"] + r["drift_ppm"] * 1e-6 * (x - r["anchor_ns"])
        ok &= abs(want - got) <= bound
    ok &= (r["method"] == "reference") == (h["host"] == t["reference_host"])
    ok &= h["host"] == t["reference_host"] or (r["collectives"] == 18 and 0 <= r["residual_median_ns"] <= r["residual_p99_ns"] <= 2 * bound)
sys.exit(0 if ok else 1)
PY
for fmt in text csv markdown; do
  db2summary -q --format $fmt "${ROC[@]}" -o "$TMP/s.$fmt"
  # csv: one table per file (s.clocks.csv), its header the columns
  [ $fmt = csv ] && sed '1s/^/table,/' "$TMP/s.clocks.csv" >"$TMP/s.$fmt"
  expect_eq "db2summary $fmt: a Clocks table, the reference and two hosts fitted on 18" "yes 1 2" \
    "$(grep -qiE '^clocks$|^### clocks$|^table,clock,' "$TMP/s.$fmt" && echo yes) $(grep -cE 'reference.*node000' "$TMP/s.$fmt") $(grep -cE 'collectives.* 18 .*node00[12]|collectives.*,18,node00[12]| 18 \| node00[12]' "$TMP/s.$fmt")"
done
db2summary -q --format html "${ROC[@]}" -o "$TMP/s.html"
expect_eq "db2summary html: a Clocks section with its table of three hosts" "1 1 3" \
  "$(grep -c '<h2 id="clocks"' "$TMP/s.html") $(grep -o 'data-table="clocks"' "$TMP/s.html" | wc -l) $(sed -n '/data-table="clocks"/,/<\/table>/p' "$TMP/s.html" | grep -oE 'node00[0-2]' | sort -u | wc -l)"

# --- a long run: the drift is fitted (over 100 ms of collectives) ----------
$PY "$G" "$TMP/long" --hosts 3 --ranks-per-host 1 --steps 300 --max-drift-ppm 50 --seed 7 --formats rocprof
db2summary -q --format json "$TMP"/long/rocprof/rank*.db -o "$TMP/long.json"
expect_ok "a long run (450 collectives, about 1 s): each host's drift within 2 ppm of the truth" \
  $PY - "$TMP/long.json" "$TMP/long/truth.json" <<'PY'
import json, sys
s, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = {r["host"]: r for tb in s["tables"] if tb["table"] == "clocks" for r in tb["rows"]}
sys.exit(0 if all(abs(rows[h["host"]]["drift_ppm"] - h["rocprof"]["drift_ppm"]) <= 2 for h in t["hosts"]) else 1)
PY
db2json -q "$TMP"/long/rocprof/rank*.db -o "$TMP/long.json"
expect_ok "a long run: every slice within the end skew of the truth" \
  $PY "$CHK" "$TMP/long/truth.json" rocprof "$TMP/long/rocprof" "$TMP/long.json" "$skew"

# --- --start/--end are in the aligned timeline ----------------------------
$PY - "$TMP/rocprof.json" >"$TMP/range" <<'PY'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
b = int(d["baseTimeNanoseconds"])
xs = [(b + int(e["ts"] * 1000), b + int((e["ts"] + e["dur"]) * 1000)) for e in d["traceEvents"] if e.get("ph") == "X"]
lo = min(s for s, _ in xs); hi = max(e for _, e in xs)
a, z = lo + (hi - lo) // 3, lo + 2 * (hi - lo) // 3
print(a, z, sum(1 for s, e in xs if s < z and (e > a or s >= a)))
PY
read -r A Z N <"$TMP/range"
db2json -q --start "$A" --end "$Z" "${ROC[@]}" -o "$TMP/range.json"
expect_eq "--start/--end: the slices of the aligned export that overlap the range" "$N" \
  "$($PY -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"))' "$TMP/range.json")"

# --- dbmerge --align: the merged hub is aligned once ------------------------
dbmerge -q "${ROC[@]}" -o "$TMP/m.db"
expect_eq "dbmerge marks every hub aligned" "6" "$(q "$TMP/m.db" "SELECT count(*) FROM rocpd_metadata WHERE tag = 'tracetools.aligned' AND value = 'collectives'")"
db2json "$TMP/m.db" -o "$TMP/m.json" 2>"$TMP/m.err"
expect_ok "the merged hub exports within the skew of the truth" $PY "$CHK" "$R/truth.json" rocprof "$R/rocprof" "$TMP/m.json" "$skew"
expect_eq "and is not aligned again (no align line, no warning)" "" "$(grep -E 'align:|warning' "$TMP/m.err")"
dbmerge -q --align none "${ROC[@]}" -o "$TMP/mn.db"
db2json "$TMP/mn.db" -o "$TMP/mn.json" 2>"$TMP/mn.err"
expect_eq "a merged hub of three hosts, not aligned: warned about, times as recorded" "1" \
  "$(grep -c 'mn.db holds processes of two hosts or clocks' "$TMP/mn.err")"
expect_fail "... and refused under --align collectives" "holds processes of two hosts" \
  db2json -q --align collectives "$TMP/mn.db" -o "$TMP/mn2.json"
# A merged hub of more than 100 hubs is read in slices (in passes, no
# connection to ask): its aligned tag is still read (before: taken as
# mixed clocks, warned about, and refused under --align collectives).
$PY "$G" "$TMP/big" --hosts 2 --ranks-per-host 51 --steps 3 --seed 3 --formats rocprof >/dev/null
dbmerge -q --align collectives "$TMP"/big/rocprof/rank*.db -o "$TMP/big.db"
expect_eq "dbmerge --align of 102 hubs marks them aligned" "102" "$(q "$TMP/big.db" "SELECT count(*) FROM rocpd_metadata WHERE tag = 'tracetools.aligned'")"
db2json "$TMP/big.db" -o "$TMP/big.json" 2>"$TMP/big.err"
expect_eq "... read in slices: not aligned again (no align line, no warning)" "" "$(grep -E 'align:|warning' "$TMP/big.err")"
expect_ok "... and --align collectives takes it as one timeline" db2json -q --align collectives "$TMP/big.db" -o "$TMP/big2.json"

# --- one host, several processes: nothing moves ---------------------------
$PY "$G" "$TMP/one" --hosts 1 --ranks-per-host 3 --steps 4 --formats rocprof
ONE=("$TMP"/one/rocprof/rank*.db)
for t in db2json db2perfetto db2summary; do
  $t "${ONE[@]}" -o "$TMP/one.$t" 2>"$TMP/one.err"
  $t -q --align none "${ONE[@]}" -o "$TMP/one.none.$t"
  expect_ok "one host: $t's auto output is byte-identical to --align none" cmp "$TMP/one.$t" "$TMP/one.none.$t"
  expect_eq "one host: $t says nothing of clocks" "" "$(grep -iE 'align|clock' "$TMP/one.err")"
done

# --- two hosts, no collectives: the warning, exit 0, nothing moved --------
$PY "$G" "$TMP/nc" --hosts 2 --ranks-per-host 1 --steps 4 --no-collectives --formats rocprof
NC=("$TMP"/nc/rocprof/rank*.db)
db2json "${NC[@]}" -o "$TMP/nc.json" 2>"$TMP/nc.err"; rc=$?
db2json -q --align none "${NC[@]}" -o "$TMP/nc.none.json"
expect_eq "no collectives: exit 0" 0 "$rc"
expect_eq "no collectives: a warning that names the host left as recorded, and why" "1" \
  "$(grep -c 'warning: the timeline mixes clocks: node001 (boot clock) is left as recorded, its fit on the collectives refused (too few collectives): 0 collectives matched of 0 on the reference' "$TMP/nc.err")"
expect_ok "no collectives: nothing moved" cmp "$TMP/nc.json" "$TMP/nc.none.json"
expect_fail "no collectives: --align collectives refuses, naming the host and the test" "node001 \\(boot clock\\) against the reference node000: refused \\(too few collectives\\)" \
  db2json -q --align collectives "${NC[@]}" -o "$TMP/nc2.json"

# --- FILE: the user's offsets (the truth, no drift: exact) -----------------
$PY "$G" "$TMP/f" --hosts 3 --ranks-per-host 2 --steps 4 --formats rocprof --seed 5
$PY - "$TMP/f/truth.json" >"$TMP/offsets" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
print("# offsets of run f (host, or rank for node002's two ranks)")
for h in t["hosts"][1:]:
    if h["host"] == "node002":
        for r in h["ranks"]: print(f'{r}  {h["rocprof"]["offset_ns"]}   # rank {r}')
    else:
        print(f'{h["host"]} {h["rocprof"]["offset_ns"]} 0')
print("nodeXYZ 5")
PY
db2json --align "$TMP/offsets" "$TMP"/f/rocprof/rank*.db -o "$TMP/f.json" 2>"$TMP/f.err"
expect_ok "FILE: every slice exactly where the truth puts it (0 ns)" \
  $PY "$CHK" "$TMP/f/truth.json" rocprof "$TMP/f/rocprof" "$TMP/f.json" 0
expect_eq "FILE: a host in none of the inputs is named with its line" "1" \
  "$(grep -c 'offsets:5: host nodeXYZ is in none of the inputs' "$TMP/f.err")"

bad() { # NAME CONTENT MESSAGE
  printf "$2" >"$TMP/bad"
  expect_fail "FILE $1: refused with file and line" "$3" db2json -q --align "$TMP/bad" "${NC[@]}" -o "$TMP/bad.json"
  [ -e "$TMP/bad.json" ] && fail "FILE $1: an output was written"
}
bad "no offset" "# c\nnode001\n" "bad:2: 'node001' has no offset"
bad "not an integer" "node001 12x\n" "bad:1: offset '12x' is not an integer"
bad "too large" "node001 99999999999999999999\n" "bad:1: offset '99999999999999999999' is not an integer"
bad "drift not a number" "node001 5 fast\n" "bad:1: drift 'fast' is not a number"
bad "drift absurd" "node001 5 1e9\n" "bad:1: drift '1e9' is not a number of ppm within"
bad "four fields" "node001 5 1 2\n" "bad:1: expected HOST_OR_RANK OFFSET_NS .DRIFT_PPM., found a fourth field '2'"
bad "twice" "node001 5\n\nnode001 6\n" "bad:3: 'node001' was given already on line 1"
bad "NUL byte" "node001 5\0 7\n" "bad:1: holds a NUL byte"
expect_fail "FILE missing: refused" "no-such-file: cannot open" \
  db2json -q --align "$TMP/no-such-file" "${NC[@]}" -o "$TMP/bad.json"
expect_fail "--align '': refused" "--align: expected auto" db2json -q --align "" "${NC[@]}" -o "$TMP/bad.json"

# --- wall: recorded anchors only --------------------------------------------
expect_fail "wall: a hub without a wall-clock anchor is named" "rank000.db: --align wall: the hub records no wall-clock anchor" \
  db2json -q --align wall "${NC[@]}" -o "$TMP/w.json"
# Kineto's times are Unix ns already (kineto2db records clock wall, anchor
# 0): wall mode moves nothing and trusts each host's wall clock, so its
# hosts keep their NTP error (the generator's up to 2 ms), which only the
# collectives remove.
expect_ok "wall: Kineto hubs (wall clock, anchor 0) are accepted" \
  db2json -q --align wall "${KIN[@]}" -o "$TMP/w.json"
expect_ok "wall: their times as recorded (the same file as --align none)" cmp "$TMP/w.json" "$TMP/kineto.none.json"
expect_fail "wall: the hosts' wall clocks still disagree (further from the truth than the skew)" \
  "further from the truth" $PY "$CHK" "$R/truth.json" kineto "$R/kineto" "$TMP/w.json" "$skew"

rm -rf "$TMP"
