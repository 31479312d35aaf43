# Helpers for bench/bench_*.sh: wall time and peak RSS of a command, measured
# by the same Python wrapper for the tool and for its baseline, so the
# numbers are ratios within one process tree; and bench_row, which adds one
# line to the table `make bench` prints (bench/run.sh).
: "${BUILD:=build}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/$BUILD/bin"
GEN="$ROOT/$BUILD/bench/gen_hub"
PY=/usr/bin/python3
# BENCH_DIR: where inputs are generated and kept (bench/run.sh shares one
# between the benches); without it, a directory of this run's own, removed
# at the end unless BENCH_KEEP is set.
if [ -n "${BENCH_DIR:-}" ]; then
  WORK=$BENCH_DIR
  OWN_WORK=
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/tt-bench.XXXXXX")
  OWN_WORK=$WORK
fi
mkdir -p "$WORK"
# Where rows go; bench/run.sh sets it, a bench run alone prints its own
# rows as a table when it ends.
if [ -z "${BENCH_TABLE:-}" ]; then
  BENCH_TABLE="$WORK/rows.$$"
  : >"$BENCH_TABLE"
  trap 'bench_table <"$BENCH_TABLE"; rm -f "$BENCH_TABLE"
        [ -n "$OWN_WORK" ] && [ -z "${BENCH_KEEP:-}" ] && rm -rf "$OWN_WORK"' EXIT
fi
RUNS=${BENCH_RUNS:-3}
# measure CMD... -> prints "SECONDS PEAK_KIB" (after a sync, untimed). With BENCH_CAP=S set, a run
# longer than S seconds is stopped and prints "TIMEOUT PEAK_KIB".
measure() {
  $PY - "$@" <<'PY'
import os, resource, subprocess, sys, time
cap = float(os.environ.get("BENCH_CAP") or 0) or None
# The previous run's output still being written back would slow this one
# (a 750 MB hub's pages outlive its process): start from none, untimed.
os.sync()
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
try:
    rc = p.wait(timeout=cap)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print("TIMEOUT %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    sys.exit(0)
dt = time.monotonic() - t
if rc:
    sys.exit("command failed: %s" % " ".join(sys.argv[1:]))
print("%.3f %d" % (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
}
ratio() { $PY -c "import sys; print('%.2f' % (float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9)))" "$1" "$2"; }
rate() { $PY -c "import sys; print('%.0f' % (float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9)))" "$1" "$2"; }
# best PREV NEW -> the smaller (PREV may be empty)
best() { if [ -z "$1" ]; then echo "$2"; else $PY -c "import sys; print(min(float(sys.argv[1]), float(sys.argv[2])))" "$1" "$2"; fi; }
# median X... -> the median (TIMEOUT if any run timed out)
median() { $PY -c "import sys, statistics as s; a = sys.argv[1:]; print('TIMEOUT' if 'TIMEOUT' in a else '%.3f' % s.median(map(float, a)))" "$@"; }
# hub_schema DB: the hub's schema as SQL, for a ceiling that fills an empty copy.
hub_schema() { sqlite3 "$1" .schema | grep -v '^CREATE TABLE sqlite_sequence'; }
# tables_schema DB: the tables (and indexes) of a profiler's SQLite file as
# SQL, without its views: the source schema a bench fills with generated rows.
tables_schema() { sqlite3 "$1" .schema | grep -v -e '^CREATE TABLE sqlite_sequence' -e '^CREATE VIEW' -e '^/\*'; }
# hub_uuid HUB: the table-name suffix of a hub the tool wrote ("_" + guid).
hub_uuid() { sqlite3 "$1" "SELECT value FROM rocpd_metadata WHERE tag='uuid'"; }

# ceiling_script HUB SOURCE OUT.sql < BODY: SQLite's own ceiling for an
# importer, as a script for the sqlite3 shell: the settings the hub writer
# uses, the schema and indexes of HUB (the tool's output), SOURCE attached
# as `s`, then BODY (INSERT ... SELECT of the same rows, naming tables with
# $(hub_uuid HUB)) in one transaction: no bind/step per row, no C code.
ceiling_script() {
  hub_schema "$1" >"$3.schema"
  {
    echo "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192;"
    echo ".read $3.schema"
    echo "ATTACH '$2' AS s;"
    echo "BEGIN;"
    cat
    echo "COMMIT;"
  } >"$3"
}

# alternate CMD_A... --- CMD_B...: runs A then B, RUNS times (the machine's
# speed drifts by tens of percent over a minute, so tool and baseline take
# turns). Sets A_S and B_S (medians), A_KIB and B_KIB (highest peak RSS).
# A run that times out (BENCH_CAP) ends the loop.
alternate() {
  local a=() b=() in_b=0 x t r ta=() tb=()
  for x in "$@"; do
    if [ "$x" = --- ]; then in_b=1; elif [ $in_b = 1 ]; then b+=("$x"); else a+=("$x"); fi
  done
  A_KIB=0; B_KIB=0
  for _ in $(seq "$RUNS"); do
    read -r t r < <(measure "${a[@]}"); ta+=("$t"); [ "$r" -gt "$A_KIB" ] && A_KIB=$r
    read -r t r < <(measure "${b[@]}"); tb+=("$t"); [ "$r" -gt "$B_KIB" ] && B_KIB=$r
    case " ${ta[*]} ${tb[*]} " in *" TIMEOUT "*) break ;; esac
  done
  A_S=$(median "${ta[@]}"); B_S=$(median "${tb[@]}")
}

# vs_ceiling CEIL_DB CEIL_SQL TOOL ARGS...: the tool against SQLite's own
# ceiling (the sqlite3 shell running CEIL_SQL into a fresh CEIL_DB), taking
# turns. Sets TOOL_S, TOOL_KIB (peak RSS) and CEIL_S.
vs_ceiling() {
  local cdb=$1 csql=$2
  shift 2
  alternate "$@" --- sh -c 'rm -f "$1" && exec sqlite3 -batch "$1" ".read $2"' sh "$cdb" "$csql"
  TOOL_S=$A_S TOOL_KIB=$A_KIB CEIL_S=$B_S
}

# threads_row TOOL INPUT EVENTS BYTES ARGS...: the importer with --threads 2
# against --threads 1 on the same ARGS, taking turns (median of BENCH_RUNS,
# default 5): the row's ratio is the time with two threads over the time
# with one; the target (<= 0.77) is the issue's 1.3x faster end to end.
threads_row() {
  local tool=$1 in=$2 ev=$3 bytes=$4
  shift 4
  local RUNS=${BENCH_RUNS:-5}
  alternate "$BIN/$tool" --threads 1 "$@" --- "$BIN/$tool" --threads 2 "$@"
  bench_row "$tool --threads 2 vs 1" "$in" "$ev" "$B_S" "$bytes" "$B_KIB" "$(ratio "$B_S" "$A_S")" '<=' 0.77 "x --threads 1"
  echo "  $tool --threads 1: ${A_S}s, --threads 2: ${B_S}s ($(ratio "$A_S" "$B_S")x faster), median of $RUNS taking turns"
}

# bench_row TOOL INPUT EVENTS SECONDS BYTES PEAK_KIB VALUE CMP LIMIT WHAT
# One line of the table: VALUE (a ratio, MB/s or MB, described by WHAT)
# is checked against LIMIT (CMP is <= or >=) for PASS/FAIL. BYTES is the
# input size for MB/s (0: none); SECONDS may be TIMEOUT, VALUE may be "-"
# (not measured: the row says SKIP, WHAT says why) or "crash" (CRASH).
bench_row() {
  local line
  line=$(printf '%s\t' "$@")
  printf '%s\n' "${line%$'\t'}" >>"$BENCH_TABLE"
}

# scale_row TOOL INPUT EVENTS KIB EVENTS_BIG KIB_BIG SECONDS_BIG: memory does
# not grow with the events (issue 14): the peak RSS on an input of
# BENCH_SCALE times the events (EVENTS_BIG) within 10% of that on EVENTS.
scale_row() {
  bench_row "$1" "$2" "$5" "$7" 0 "$6" "$(ratio "$6" "$4")" '<=' 1.10 "x peak RSS at $3 events"
}
# BENCH_SCALE: how many times the events of BENCH_EVENTS scale_row's input has.
SCALE=${BENCH_SCALE:-10}

# ceiling_rows TOOL INPUT EVENTS BYTES: an importer against SQLite's own
# ceiling (vs_ceiling's TOOL_S, CEIL_S, TOOL_KIB): its time within 1.2x
# the ceiling's, its peak RSS within 64 MB.
ceiling_rows() {
  bench_row "$1" "$2" "$3" "$TOOL_S" "$4" "$TOOL_KIB" "$(ratio "$TOOL_S" "$CEIL_S")" '<=' 1.2 "x SQLite insert ceiling"
  bench_row "$1" "$2" "$3" "$TOOL_S" "$4" "$TOOL_KIB" "$((TOOL_KIB / 1024))" '<=' 64 "MB peak RSS"
}

# scale_input_row TOOL INPUT EVENTS KIB EVENTS_BIG BIG_IN: scale_row for
# $BIN/TOOL on BIG_IN (BENCH_SCALE times the input of EVENTS, made by the
# caller; removed here, with its output).
scale_input_row() {
  local sb kb
  read -r sb kb < <(measure "$BIN/$1" -q "$6" -o "$6.db")
  rm -f "$6" "$6.db"
  scale_row "$1" "$2" "$3" "$4" "$5" "$kb" "$sb"
}

# bench_table < ROWS: the rows as one aligned table.
bench_table() {
  $PY -c '
import sys
head = ("tool", "input", "events", "seconds", "events/s", "MB/s", "peak RSS", "ratio", "target", "result")
rows = [head]
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) < 10:
        continue
    tool, inp, ev, sec, nbytes, kib, val, cmp, lim, what = f[:10]
    ev = int(ev); nbytes = float(nbytes)
    timed = sec not in ("TIMEOUT", "-")
    s = float(sec) if timed else 0
    eps = "%.0f" % (ev / s) if timed and s > 0 else "-"
    mbs = "%.1f" % (nbytes / 1e6 / s) if timed and s > 0 and nbytes else "-"
    rss = "%.0f MB" % (int(kib) / 1024) if int(kib) else "-"
    if val == "crash":
        res = "CRASH"
    elif val == "-":
        res = "SKIP"
    else:
        v, l = float(val), float(lim)
        res = "PASS" if (v <= l if cmp == "<=" else v >= l) else "FAIL"
    if sec == "TIMEOUT":
        res = "FAIL"
    rows.append((tool, inp, str(ev), sec if sec != "TIMEOUT" else "timeout", eps, mbs, rss,
                 "%s %s" % (val, what) if val not in ("-", "crash") and timed else what, "%s %s" % (cmp, lim), res))
w = [max(len(r[i]) for r in rows) for i in range(len(head))]
for r in rows:
    print("  ".join(c.ljust(w[i]) if i < 2 or i in (7, 8) else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())
'
}

# machine: the CPU model and core count, for the table's heading.
machine() {
  local model
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
  echo "machine: ${model:-unknown CPU}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
}
