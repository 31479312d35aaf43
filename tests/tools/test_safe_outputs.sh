#!/usr/bin/env bash
# Safe outputs: a run interrupted by SIGINT or SIGTERM mid-way (a large
# generated input, the signal sent while the temporary is being written)
# dies of the signal and leaves nothing beside the target; a write error
# (stdout or -o on /dev/full, a full tmpfs where one can be mounted) gives a
# non-zero exit and a message naming the output, and no file.
# (tests/unit/unit_atomic_output.c covers directory temporaries and SIGHUP.)
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
N=${TT_SAFE_EVENTS:-300000}

"$GEN" "$TMP/big.db" "$N" 4 >/dev/null || fail "gen_hub $N"
$PY - "$TMP/big.json.gz" "$N" <<'EOF' || fail "generating a Kineto trace"
import gzip, sys
path, n = sys.argv[1], int(sys.argv[2])
with gzip.open(path, "wt", compresslevel=1) as f:
    f.write('{"schemaVersion":1,"traceEvents":[\n')
    for i in range(n):
        f.write('%s{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":%d,"ts":%d,"dur":1,'
                '"args":{"External id":%d}}\n' % ("," if i else "", i % 50, i % 4, 1000 + 2 * i, i))
    f.write(']}\n')
EOF

# interrupt SIG DESC OUTPUT CMD...: starts CMD (signals at their default,
# not ignored as for a background job), waits until its temporary beside
# OUTPUT holds data, sends SIG, then checks how it ended and what is left.
interrupt() {
  local sig=$1 desc=$2 out=$3; shift 3
  local dir; dir=$(dirname "$out")
  rm -rf "$dir"; mkdir -p "$dir"
  env --default-signal=INT,TERM "$@" 2>"$TMP/err" &
  local pid=$! waited=0
  until [ -n "$(find "$dir" -name '*.tmp*' -size +64k 2>/dev/null)" ]; do
    sleep 0.05; waited=$((waited + 1))
    if [ $waited -gt 1200 ] || ! kill -0 $pid 2>/dev/null; then break; fi
  done
  if [ -e "$out" ] || ! kill -0 $pid 2>/dev/null; then
    fail "$desc: finished or died before the signal (raise TT_SAFE_EVENTS)"; wait $pid; return
  fi
  kill -"$sig" $pid
  wait $pid
  local rc=$? want=$((128 + $(kill -l "$sig")))
  expect_eq "$desc: dies of SIG$sig mid-way" "$want" "$rc"
  expect_eq "$desc: nothing left beside the output" "" "$(ls -A "$dir")"
}

for sig in INT TERM; do
  interrupt $sig "db2json" "$TMP/o/x.json" db2json -q "$TMP/big.db" -o "$TMP/o/x.json"
  interrupt $sig "db2perfetto" "$TMP/o/x.pftrace" db2perfetto -q "$TMP/big.db" -o "$TMP/o/x.pftrace"
  interrupt $sig "db2json --split window" "$TMP/o/x.json" \
    db2json -q "$TMP/big.db" --split window --windows 3 -o "$TMP/o/x.json"
  interrupt $sig "kineto2db" "$TMP/o/k.db" kineto2db -q "$TMP/big.json.gz" -o "$TMP/o/k.db"
done
expect_eq "inputs unchanged by the interrupted runs" "$N" \
  "$(q "$TMP/big.db" "SELECT count(*) FROM rocpd_region")"

# --- write errors -------------------------------------------------------
"$GEN" "$TMP/small.db" 2000 2 >/dev/null
for tool in db2json db2perfetto; do
  expect_fail "$tool -o - on a full device: error naming the output" "-: write failed" \
    sh -c "$tool -q '$TMP/small.db' -o - >/dev/full"
  expect_fail "$tool -o /dev/full: error naming it" "/dev/full: write failed" \
    $tool -q "$TMP/small.db" -o /dev/full
done

# A full file system: a 256 KiB tmpfs (the outputs need megabytes) in a
# private mount namespace: unshare -m as root, unshare -rm (a user
# namespace) otherwise. Each run prints "tool exit leftovers", and its
# message goes to $TMP/ff.tool.
full="$TMP/full"; mkdir -p "$full"
fullfs_runs() {
  mount -t tmpfs -o size=256k tmpfs "$full" || exit 3
  for tool in db2json db2perfetto kineto2db; do
    case $tool in kineto2db) in="$TMP/big.json.gz" ;; *) in="$TMP/big.db" ;; esac
    $tool -q "$in" -o "$full/out" 2>"$TMP/ff.$tool"
    echo "$tool $? $(ls -A "$full" | wc -l)"
  done
}
export -f fullfs_runs; export full TMP
if [ "$(id -u)" = 0 ]; then ns=(unshare -m --propagation private); else ns=(unshare -rm); fi
if res=$("${ns[@]}" bash -c fullfs_runs 2>/dev/null); then
  for tool in db2json db2perfetto kineto2db; do
    expect_eq "$tool on a full tmpfs: exit 1, nothing left" "$tool 1 0" "$(grep "^$tool " <<<"$res")"
    msg=$(cat "$TMP/ff.$tool")
    if [[ "$msg" =~ full/out:.*(full|space) ]]; then pass "$tool on a full tmpfs: message names the output"
    else fail "$tool on a full tmpfs: message [$msg]"; fi
  done
else
  skip "full tmpfs (no mount namespace here; /dev/full covers write errors)"
fi
