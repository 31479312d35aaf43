# Helpers for bench/bench_*.sh: wall time and peak RSS of a command, measured
# by the same Python wrapper for the tool and for its baseline, so the
# numbers are ratios within one process tree.
: "${BUILD:=build}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/$BUILD/bin"
GEN="$ROOT/$BUILD/bench/gen_hub"
PY=/usr/bin/python3
WORK=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tt-bench.XXXXXX")}
mkdir -p "$WORK"
# measure CMD... -> prints "SECONDS PEAK_KIB"
measure() {
  $PY - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
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
# hub_schema DB: the hub's schema as SQL, for a ceiling that fills an empty copy.
hub_schema() { sqlite3 "$1" .schema | grep -v '^CREATE TABLE sqlite_sequence'; }
# vs_ceiling RUNS CEIL_DB CEIL_SQL TOOL ARGS...: runs the tool and SQLite's own
# ceiling (the sqlite3 shell running CEIL_SQL into a fresh CEIL_DB) alternately,
# since this machine's speed drifts by tens of percent over a minute; best of
# RUNS each. Sets TOOL_S, TOOL_KIB (peak RSS) and CEIL_S.
vs_ceiling() {
  local runs=$1 cdb=$2 csql=$3 t r
  shift 3
  TOOL_S=; CEIL_S=; TOOL_KIB=0
  for _ in $(seq "$runs"); do
    read -r t r < <(measure "$@")
    TOOL_S=$(best "$TOOL_S" "$t"); [ "$r" -gt "$TOOL_KIB" ] && TOOL_KIB=$r
    rm -f "$cdb"
    read -r t _ < <(measure sqlite3 -batch "$cdb" ".read $csql")
    CEIL_S=$(best "$CEIL_S" "$t")
  done
}
