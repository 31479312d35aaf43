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
