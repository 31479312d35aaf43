#!/usr/bin/env bash
# kineto2db streams: its peak RSS must not grow with the number of events.
# Two generated .json.gz traces, 100k and 1M X events, are imported and
# their peak RSS (the child's ru_maxrss, via Python's os.wait4) compared.
#
# Why the small trace has 24 args per event and the large one 2: the hub
# writer gives SQLite an 8 MB page cache, a cap reached once the database
# passes 8 MB; below it RSS follows the database size, not anything
# kineto2db holds. Both runs here pass the cap (about 2.4M and 2M rows in
# rocpd_arg), so what remains is what the importer itself keeps per event:
# with one event held at a time, nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K="$BIN/kineto2db"

if [ "$BUILD" != build ]; then
  skip "kineto2db memory (sanitizer builds change memory use; run with BUILD=build)"
  exit 0
fi

# gen FILE EVENTS ARGS: a Kineto trace written as it is generated (gzip
# stream), base time at the end as in real traces.
gen() {
  "$PY" - "$@" <<'EOF'
import gzip, sys
path, n, nargs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = ["aten::conv2d", "aten::add", "aten::mm", "cudaLaunchKernel", "aten::relu"]
with gzip.open(path, "wt", compresslevel=1) as f:
    f.write('{"schemaVersion":1,"traceEvents":[\n')
    for i in range(n):
        extra = "".join(',"a%d":%d' % (j, i) for j in range(nargs - 1))
        f.write('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d.%03d,'
                '"dur":1.5,"args":{"External id":%d%s}}\n'
                % ("," if i else "", names[i % 5], 100 + i % 4, 1000000 + i, i % 1000, i, extra))
    f.write('],"baseTimeNanoseconds":1700000000000000000}\n')
EOF
}

# peak_kb CMD...: runs CMD, prints its peak RSS in KiB (fails if CMD fails).
peak_kb() {
  "$PY" - "$@" <<'EOF'
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(p.pid, 0)
if status != 0:
    sys.exit("command failed with status %d" % status)
print(usage.ru_maxrss)
EOF
}

gen "$TMP/small.json.gz" 100000 24
gen "$TMP/large.json.gz" 1000000 2
small=$(peak_kb "$K" -q "$TMP/small.json.gz" -o "$TMP/small.db") || fail "import 100k events"
large=$(peak_kb "$K" -q "$TMP/large.json.gz" -o "$TMP/large.db") || fail "import 1M events"
expect_eq "100k events imported" 100000 "$(q "$TMP/small.db" 'SELECT count(*) FROM rocpd_region')"
expect_eq "1M events imported" 1000000 "$(q "$TMP/large.db" 'SELECT count(*) FROM rocpd_region')"
expect_eq "1M events: exact times after a trailing base time" "1700000001999999999|1700000002000001499" \
  "$(q "$TMP/large.db" 'SELECT max(start), max("end") FROM rocpd_region')"
echo "peak RSS: 100k events ${small} KiB, 1M events ${large} KiB"
if [ -n "$small" ] && [ -n "$large" ]; then
  # within 10% + 4 MiB of each other, in either direction
  lo=$small hi=$large
  [ "$lo" -gt "$hi" ] && lo=$large hi=$small
  if [ $((hi - lo)) -le $((lo / 10 + 4096)) ]; then
    pass "peak RSS does not grow with events (100k: ${small} KiB, 1M: ${large} KiB)"
  else
    fail "peak RSS grows with events (100k: ${small} KiB, 1M: ${large} KiB)"
  fi
fi
