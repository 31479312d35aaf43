#!/usr/bin/env bash
# Many processes as one run: 200 per-process hubs generated here, read as
# one stream, split by window and by process, summarized, merged, and
# converted part by part in parallel (scripts/convert-parallel.sh). Every
# count is computed from the hubs with Python's sqlite3, file by file.
source "$(dirname "$0")/lib.sh"
NH=200
mkdir "$TMP/many"
$PY "$ROOT/tests/data/make_rocprof_hub.py" --many "$TMP/many" $NH 8
HUBS=("$TMP"/many/h*.db)
expect_eq "$NH hubs generated" $NH ${#HUBS[@]}

# expect WINDOWS: per pid "pid count" of intervals, then per window of an
# N-window split (as the exporters cut it: [lo, hi] of every row, hi + 1
# exclusive, windows of ceil(span / N)) the intervals that overlap it.
expect() {
  $PY - "$1" "${HUBS[@]}" <<'EOF'
import sqlite3, sys
nw, paths = int(sys.argv[1]), sys.argv[2:]
rows, per_pid = [], {}
for p in paths:
    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND (name GLOB "
                            "'rocpd_region_*' OR name GLOB 'rocpd_kernel_dispatch_*' OR name GLOB "
                            "'rocpd_memory_copy_*' OR name GLOB 'rocpd_memory_allocate_*')"):
        for pid, s, e in con.execute(f'SELECT pid, start, "end" FROM "{t}"'):
            rows.append((s, max(s, e)))
            per_pid[pid] = per_pid.get(pid, 0) + 1
lo, hi = min(r[0] for r in rows), max(r[1] for r in rows) + 1
size = -(-(hi - lo) // nw)
print(" ".join(f"{p}:{n}" for p, n in sorted(per_pid.items())))
wins = []
for w in range(nw):
    a, b = lo + w * size, lo + (w + 1) * size
    wins.append(sum(1 for s, e in rows if s < b and (e > a or s >= a)))
print(" ".join(map(str, wins)))
print(len(rows))
EOF
}
exp=$(expect 7)
per_pid=$(echo "$exp" | sed -n 1p) per_win=$(echo "$exp" | sed -n 2p) total=$(echo "$exp" | sed -n 3p)
xcount() { $PY -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X'))" "$1"; }

# --- one stream ---------------------------------------------------------------
expect_ok "db2json reads $NH hubs as one stream" db2json -q "${HUBS[@]}" -o "$TMP/all.json"
expect_eq "every interval of every hub, once" "$total" "$(xcount "$TMP/all.json")"
expect_eq "$NH processes named" $NH \
  "$($PY -c "import json,sys; print(len({e['pid'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('name')=='process_name' and e['pid'] < 100000000}))" "$TMP/all.json")"
expect_eq "the stream is in time order" ok \
  "$($PY -c "import json,sys; t=[e['ts'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X']; print('ok' if t==sorted(t) else 'no')" "$TMP/all.json")"
expect_eq "one descriptor per input: $NH hubs read under ulimit -n $((NH + 30))" 0 \
  "$(ulimit -n $((NH + 30)); db2json -q "${HUBS[@]}" -o "$TMP/ulimit.json" 2>/dev/null; echo $?)"

# --- memory per open input: peak RSS at N and 2N hubs (one budget of page
# cache shared by all; no lookaside). The bound is loose under ASan. ----------
rss100=$($PY "$ROOT/tests/checkers/peak_rss.py" "$BIN/db2json" -q "${HUBS[@]:0:100}" -o "$TMP/rss.json")
rss200=$($PY "$ROOT/tests/checkers/peak_rss.py" "$BIN/db2json" -q "${HUBS[@]}" -o "$TMP/rss.json")
per_hub=$(( (rss200 - rss100) / 100 ))
limit=700
[ "${SANITIZE:-0}" = 1 ] && limit=4000
echo "memory per open input: $per_hub KB (peak RSS $rss100 KB at 100 hubs, $rss200 KB at 200)"
expect_eq "memory per open input <= $limit KB (measured: $per_hub KB)" yes \
  "$([ "$per_hub" -le "$limit" ] && echo yes || echo "no: $per_hub KB")"

# --- beyond the descriptor budget: merge in passes, the same bytes ------------------
# 50 hubs under ulimit -n 40 and 24: groups merged into temporary record
# streams (in TMPDIR, gone at the end), then those merged.
P=("${HUBS[@]:0:50}")
mkdir "$TMP/pass" "$TMP/passtmp"
for tool in db2json db2perfetto db2summary; do
  $tool -q "${P[@]}" -o "$TMP/pass/direct.$tool"
  for u in 40 24; do
    (ulimit -n $u; TMPDIR="$TMP/passtmp" $tool -q "${P[@]}" -o "$TMP/pass/u$u.$tool")
    expect_eq "$tool, 50 hubs under ulimit -n $u (in passes) = the direct run, byte for byte" \
      "$(sha256sum <"$TMP/pass/direct.$tool")" "$(sha256sum <"$TMP/pass/u$u.$tool")"
  done
done
db2otf2 -q "${P[@]}" -o "$TMP/pass/direct.otf2"
(ulimit -n 40; TMPDIR="$TMP/passtmp" db2otf2 -q "${P[@]}" -o "$TMP/pass/u40.otf2")
# (traces.otf2, the anchor file, differs run to run by itself.)
expect_eq "db2otf2, 50 hubs under ulimit -n 40 = the direct run, file for file" \
  "$(cd "$TMP/pass/direct.otf2" && find . -type f ! -name traces.otf2 | sort | xargs sha256sum)" \
  "$(cd "$TMP/pass/u40.otf2" && find . -type f ! -name traces.otf2 | sort | xargs sha256sum)"
db2json -q "${P[@]}" --split window --windows 3 -o "$TMP/pass/wd.json"
(ulimit -n 40; TMPDIR="$TMP/passtmp" db2json -q "${P[@]}" --split window --windows 3 -o "$TMP/pass/wu.json")
expect_eq "a window split in passes = the direct split" \
  "$(cd "$TMP/pass" && sha256sum wd.w*)" "$(cd "$TMP/pass" && sha256sum wu.w* | sed 's/wu\.w/wd.w/')"
printf 'junk' >"$TMP/junk0.db"
expect_fail "in passes, a bad input is named" "junk0.db: not a SQLite database" \
  bash -c "ulimit -n 40; TMPDIR='$TMP/passtmp' db2json -q ${P[*]:0:45} '$TMP/junk0.db' -o '$TMP/pass/bad.json'"
expect_eq "... no output, no temporary file left" "" "$(ls "$TMP/passtmp"; ls "$TMP/pass" | grep bad)"
cp "${P[3]}" "$TMP/copy3.db"
expect_fail "in passes, a copy of a hub in another group is refused" "copy3.db: the same hub as .*h0003.db" \
  bash -c "ulimit -n 40; TMPDIR='$TMP/passtmp' db2json -q ${P[*]} '$TMP/copy3.db' -o '$TMP/pass/bad.json'"
expect_eq "... no output, no temporary file left" "" "$(ls "$TMP/passtmp"; ls "$TMP/pass" | grep bad)"
# Read in passes, an input has no connection: its rocpd_metadata is kept
# when its group is read. Three imports of one Kineto rank: db2json's
# top-level distributedInfo (its rank from the fixture itself) is there,
# the same file as read directly (before, lost in passes).
for i in 1 2 3; do kineto2db -q "$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz" -o "$TMP/k$i.db"; done
db2json -q "$TMP"/k?.db -o "$TMP/k.direct.json"
(ulimit -n 20; db2json -q "$TMP"/k?.db -o "$TMP/k.passes.json")
expect_ok "3 Kineto hubs under ulimit -n 20 (in passes) = the direct run, byte for byte" \
  cmp "$TMP/k.direct.json" "$TMP/k.passes.json"
expect_eq "... with the ranks' distributedInfo (rank as in the trace)" \
  "$(zcat "$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz" | $PY -c 'import json,sys; print(json.load(sys.stdin)["distributedInfo"]["rank"])')" \
  "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["distributedInfo"]["rank"])' "$TMP/k.passes.json")"

# --- split by window: every window in one pass, exact counts --------------------
expect_ok "split into 7 windows" db2json -q "${HUBS[@]}" --split window --windows 7 -o "$TMP/w.json"
expect_eq "intervals per window (those crossing a boundary in each window they overlap)" "$per_win" \
  "$(for w in 0 1 2 3 4 5 6; do xcount "$TMP/w.w00$w.json"; done | tr '\n' ' ' | sed 's/ $//')"

# --- split by process --------------------------------------------------------------
# A full process split reopens every input once per process (O(P^2) opens:
# about a minute at 200 hubs here), so parts are sampled; the part count is
# the tool's own.
expect_fail "the process split has one part per hub" "the split has $NH parts" \
  db2json -q "${HUBS[@]}" --split process --part 999999 -o "$TMP/p.json"
# Parts in (host, pid) order: each hub's host read here with sqlite3.
order=($($PY -c '
import sqlite3, sys
rows = []
for f in sys.argv[1:]:
    c = sqlite3.connect(f)
    t = lambda k: c.execute("SELECT name FROM sqlite_master WHERE type = ? AND name GLOB ?",
                            ("table", "rocpd_info_%s_*" % k)).fetchone()[0]
    rows += c.execute("SELECT n.hostname, p.pid FROM \"%s\" p JOIN \"%s\" n ON n.id = p.nid"
                      % (t("process"), t("node"))).fetchall()
print(" ".join(str(pid) for host, pid in sorted(rows)))' "${HUBS[@]}"))
for k in 0 1 99 150 199; do
  pid=${order[$k]}
  db2json -q "${HUBS[@]}" --split process --part $k -o "$TMP/p.json"
  expect_eq "process part $k: pid $pid's intervals, only them" \
    "$(echo "$per_pid" | tr ' ' '\n' | grep "^$pid:" | cut -d: -f2)" "$(xcount "$TMP/p.p$pid.json")"
done

# --- summary and merge over all of them --------------------------------------------
db2summary -q --format csv --top 0 --by-process "${HUBS[@]}" -o "$TMP/s.csv"
expect_eq "db2summary --by-process: one launch-latency row per process" $NH \
  "$(tail -n +2 "$TMP/s.launch_latency.csv" | grep -c '^[0-9]')"
expect_eq "db2summary --by-process: every interval of every process counted once" "$total" \
  "$(for t in kernels copies allocations hip_api hsa_api ccl_api markers region_PYTHON; do [ -f "$TMP/s.$t.csv" ] && tail -n +2 "$TMP/s.$t.csv"; done | awk -F, '$1 ~ /^[0-9]+$/ {s += $3} END {print s}')"
expect_eq "db2summary --by-process: each process's host (its rocpd_info_node row)" \
  "$($PY - "${HUBS[@]}" <<'EOF'
import sqlite3, sys
rows = set()
for p in sys.argv[1:]:
    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE name GLOB 'rocpd_info_process_*'"):
        u = t[len("rocpd_info_process"):]
        rows |= set(con.execute(f'SELECT p.pid, n.hostname FROM "{t}" p JOIN "rocpd_info_node{u}" n ON n.id = p.nid'))
print("\n".join(f"{pid},{h}" for pid, h in sorted(rows)))
EOF
)" "$(awk -F, 'FNR > 1 {print $1 "," $2}' "$TMP/s.kernels.csv" | sort -u -t, -k1,1n)"
db2summary -q --format csv --top 0 --mangled "${HUBS[@]:0:20}" -o "$TMP/mangled.csv"
expect_eq "db2summary --mangled: kernels by the symbol's kernel_name, calls and total" \
  "$($PY - "${HUBS[@]:0:20}" <<'EOF'
import sqlite3, sys
agg = {}
for p in sys.argv[1:]:
    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE name GLOB 'rocpd_kernel_dispatch_*'"):
        u = t[len("rocpd_kernel_dispatch"):]
        for k, d in con.execute(f'SELECT s.kernel_name, x."end" - x.start FROM "{t}" x JOIN "rocpd_info_kernel_symbol{u}" s ON s.id = x.kernel_id'):
            c, tot = agg.get(k, (0, 0))
            agg[k] = (c + 1, tot + d)
print("\n".join(f"{k},{c},{t}" for k, (c, t) in sorted(agg.items())))
EOF
)" "$(awk -F, 'FNR > 1 {print $8 "," $1 "," $2}' "$TMP/mangled.kernels.csv" | LC_ALL=C sort)"
expect_ok "dbmerge merges the $NH hubs" dbmerge -q "${HUBS[@]}" -o "$TMP/merged.db"
expect_eq "rocpd_region view of the merged file: every region" \
  "$($PY -c "
import sqlite3,sys
print(sum(sqlite3.connect(p).execute('SELECT count(*) FROM rocpd_region').fetchone()[0] for p in sys.argv[1:]))" "${HUBS[@]}")" \
  "$(q "$TMP/merged.db" "SELECT count(*) FROM rocpd_region")"
db2json -q "$TMP/merged.db" -o "$TMP/merged.json"
expect_eq "db2json of the merged file ($NH uuids: read in slices of 100) = db2json of the $NH hubs, byte for byte" \
  "$(sha256sum <"$TMP/all.json")" "$(sha256sum <"$TMP/merged.json")"

# --- scripts/convert-parallel.sh: parts as parallel jobs, same bytes --------------
# (on the first 50 hubs: what the scripts do takes a split of several parts,
# each part a run over every input; 200 inputs made it 4x the work)
CP="$ROOT/scripts/convert-parallel.sh"
for tool in db2json db2perfetto; do
  mkdir -p "$TMP/ser.$tool" "$TMP/par.$tool"
  $tool -q "${P[@]}" --split window --windows 5 -o "$TMP/ser.$tool/t.out"
  expect_ok "convert-parallel.sh: $tool, 5 windows of ${#P[@]} hubs, 2 jobs" \
    bash "$CP" -j 2 $tool -q "${P[@]}" --split window --windows 5 -o "$TMP/par.$tool/t.out"
  expect_eq "$tool: the parallel parts are the serial run's files, byte for byte" \
    "$(cd "$TMP/ser.$tool" && sha256sum *)" "$(cd "$TMP/par.$tool" && sha256sum *)"
done
mkdir -p "$TMP/ser.p" "$TMP/par.p"
db2summary -q --format csv "${HUBS[@]:0:12}" --split process -o "$TMP/ser.p/s.csv"
expect_ok "convert-parallel.sh: db2summary, split by process over 12 hubs" \
  bash "$CP" -j 2 db2summary -q --format csv "${HUBS[@]:0:12}" --split process -o "$TMP/par.p/s.csv"
expect_eq "12 parts (each an index and its tables' files), byte-identical to the serial run" "12 $(cd "$TMP/ser.p" && sha256sum * | sha256sum)" \
  "$(ls "$TMP/par.p" | grep -Ec '^s\.p[0-9]+\.csv$') $(cd "$TMP/par.p" && sha256sum * | sha256sum)"
printf 'junk' >"$TMP/junk.db"
mkdir "$TMP/bad"
expect_fail "convert-parallel.sh: a bad input fails with the tool's message" "junk.db: not a SQLite database" \
  bash "$CP" -j 2 db2json "${HUBS[0]}" "$TMP/junk.db" --split window --windows 3 -o "$TMP/bad/x.json"
expect_eq "... and leaves no part" "" "$(ls "$TMP/bad")"
expect_fail "convert-parallel.sh: needs a split" "needs --split" bash "$CP" db2json "${HUBS[0]}" -o "$TMP/bad/y.json"

# --- scripts/slurm/convert-array.sbatch without Slurm: the same parts ---------------
SB="$ROOT/scripts/slurm/convert-array.sbatch"
mkdir "$TMP/sl"
expect_ok "convert-array.sbatch --local: 3 array tasks for 5 window parts, then the summary" \
  bash "$SB" --local --tasks 3 db2json -q "${P[@]}" --split window --windows 5 -o "$TMP/sl/t.out"
expect_eq "its parts are the serial run's files, byte for byte" \
  "$(cd "$TMP/ser.db2json" && sha256sum *)" "$(cd "$TMP/sl" && sha256sum t.w*)"
db2summary -q "${P[@]}" -o "$TMP/direct.summary.txt"
expect_eq "its summary is db2summary over the same hubs" \
  "$(sha256sum <"$TMP/direct.summary.txt")" "$(sha256sum <"$TMP/sl/t.summary.txt")"
mkdir "$TMP/sl2"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=2 \
  bash "$SB" db2json -q "${P[@]}" --split window --windows 5 -o "$TMP/sl2/t.out"
expect_eq "array task 1 of 2 writes parts 1 and 3" "t.w001.out t.w003.out" "$(ls "$TMP/sl2" | tr '\n' ' ' | sed 's/ $//')"
expect_fail "outside an array task it says what to do" "not an array task .*--submit or --local" \
  env -u SLURM_ARRAY_TASK_ID bash "$SB" db2json "${HUBS[0]}" --split window --windows 2 -o "$TMP/sl2/u.json"
expect_fail "a bad input stops it with the tool's message" "junk.db: not a SQLite database" \
  bash "$SB" --local db2json "${HUBS[0]}" "$TMP/junk.db" --split window --windows 2 -o "$TMP/bad/z.json"
expect_eq "... leaving no part" "" "$(ls "$TMP/bad")"
