#!/usr/bin/env bash
# The importers' --threads option (the hub writer's INSERTs on a second
# thread): every fixture gives the same hub with --threads 1 and 2
# (scripts/fixture-dumps.sh: the .dump of each hub, its guid masked); a
# failure half-way (bad input, a full disk) ends both ways with the same
# message and exit code and leaves no output; bad values are refused.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
RES="$FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"

# Every fixture, both ways.
if BUILD="$BUILD" bash scripts/fixture-dumps.sh "$TMP/t1" --threads 1 2>"$TMP/t1.err" &&
  BUILD="$BUILD" bash scripts/fixture-dumps.sh "$TMP/t2" --threads 2 2>"$TMP/t2.err"; then
  n=$(ls "$TMP/t1" | wc -l)
  nfix=$(find fixtures -mindepth 2 -maxdepth 2 -type f ! -name "*.md" | wc -l)
  expect_eq "a dump per fixture" "$nfix" "$n"
  if d=$(diff -r "$TMP/t1" "$TMP/t2"); then
    pass "every fixture: --threads 2 writes the hub --threads 1 writes ($n hubs)"
  else
    fail "--threads 2 differs from --threads 1: ${d:0:600}"
  fi
else
  fail "fixture-dumps.sh failed: $(cat "$TMP/t1.err" "$TMP/t2.err" | head -c 600)"
fi

# run_both NAME CMD...: runs CMD (an importer's arguments after the tool,
# output $TMP/out/o.db) with --threads 1 then 2; sets RC1 RC2 ERR1 ERR2
# (stderr, the hub's guid and temporary name masked).
run_both() {
  local name=$1 t
  shift
  for t in 1 2; do
    rm -rf "$TMP/out"
    mkdir -p "$TMP/out"
    "$@" --threads "$t" -o "$TMP/out/o.db" 2>"$TMP/err$t"
    eval "RC$t=\$?"
    sed -E -e 's/_[0-9a-f]{8}(_[0-9a-f]{4}){3}_[0-9a-f]{12}/_GUID/g' "$TMP/err$t" >"$TMP/err$t.m"
    eval "ERR$t=\$(cat \"\$TMP/err$t.m\")"
    local left
    left=$(ls -A "$TMP/out")
    [ -z "$left" ] && pass "$name, --threads $t: no output left" ||
      fail "$name, --threads $t: left $left"
  done
  expect_eq "$name: same exit code both ways" "$RC1" "$RC2"
  expect_eq "$name: same message both ways" "$ERR1" "$ERR2"
}

# Bad input far into a file: many batches are written (on the worker with
# --threads 2) when the parser stops.
zcat "$RES" | head -c 20000000 >"$TMP/cut.json"
run_both "kineto2db on a trace cut at 20 MB" kineto2db "$TMP/cut.json"
expect_eq "cut trace: exit 1" 1 "$RC1"
[[ "$ERR1" =~ cut\.json:\ parse\ error\ at\ byte\ [0-9]+\ \(event\ [0-9]+\) ]] &&
  pass "cut trace: the place is named" || fail "cut trace: message [$ERR1]"

# A failed INSERT (the file size limit: SQLite's "disk I/O error") comes
# from the worker with --threads 2; the message names the same statement.
run_both "kineto2db with a 4 MB file size limit" \
  bash -c 'trap "" XFSZ; ulimit -f 4096; exec kineto2db "$@"' sh "$RES"
expect_eq "file size limit: exit 1" 1 "$RC1"
[[ "$ERR1" == *"o.db: writing hub database: disk I/O error (in: INSERT INTO "* ]] &&
  pass "file size limit: SQLite's reason and the statement" || fail "file size limit: message [$ERR1]"

# The option's values.
expect_fail "--threads 3 refused" "kineto2db: error: --threads: '3' is not 1, 2 or auto" \
  kineto2db --threads 3 "$RES" -o "$TMP/x.db"
kineto2db --threads 3 "$RES" -o "$TMP/x.db" 2>/dev/null
expect_eq "--threads 3: usage exit" 2 "$?"
[ ! -e "$TMP/x.db" ] && pass "--threads 3: no output" || fail "--threads 3 wrote $TMP/x.db"
for t in 0 -1 two ""; do
  expect_fail "--threads '$t' refused" "--threads: '$t' is not 1, 2 or auto" \
    nvvp2db --threads "$t" "$FIX/nvprof/rasolca_output_file.nvprof" -o "$TMP/x.db"
done
expect_ok "--threads auto" kineto2db -q --threads auto "$FIX/kineto/hta_backward_thread.json" -o "$TMP/a.db"

# What auto (the default) gives: 2 where the second thread was measured
# 1.3x faster or more (kineto2db, nvvp2db, nsys2db, rpd2db) when the process
# may run on two CPUs, 1 on one CPU (taskset: the affinity mask, as nproc
# counts it) and for etprof2db; the closing line says a count that is not 1.
# thread_line TOOL INPUT CPUS [ARGS...]: the tool's "wrote" line under taskset.
thread_line() {
  local tool=$1 in=$2 cpus=$3
  shift 3
  rm -f "$TMP/auto.db"
  taskset -c "$cpus" "$tool" "$@" "$in" -o "$TMP/auto.db" 2>&1 | grep ': wrote '
}
AUTO_IN=(kineto2db:"$FIX/kineto/hta_backward_thread.json"
  nvvp2db:"$FIX/nvprof/rasolca_output_file.nvprof"
  nsys2db:"$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
  rpd2db:"$FIX/rocm/rpd_matmul_result.rpd"
  etprof2db:"$FIX/executorch/et_tutorial_etdump.etdp")
if [ "$(taskset -c 0,1 nproc 2>/dev/null)" = 2 ]; then
  for ti in "${AUTO_IN[@]}"; do
    t=${ti%%:*} in=${ti#*:}
    two=$(thread_line "$t" "$in" 0,1)
    one=$(thread_line "$t" "$in" 0)
    forced=$(thread_line "$t" "$in" 0 --threads 2)
    if [ "$t" = etprof2db ]; then
      [[ "$two" == *" rows)" ]] && pass "$t: auto is 1 on two CPUs" || fail "$t on two CPUs: [$two]"
    else
      [[ "$two" == *" rows, 2 threads)" ]] && pass "$t: auto is 2 on two CPUs" ||
        fail "$t on two CPUs: [$two]"
    fi
    [[ "$one" == *" rows)" ]] && pass "$t: auto is 1 on one CPU" || fail "$t on one CPU: [$one]"
    [[ "$forced" == *" rows, 2 threads)" ]] && pass "$t: --threads 2 on one CPU is 2" ||
      fail "$t --threads 2 on one CPU: [$forced]"
  done
  two=$(thread_line kineto2db "$FIX/kineto/hta_backward_thread.json" 0,1 --threads 1)
  [[ "$two" == *" rows)" ]] && pass "kineto2db --threads 1 on two CPUs is 1" || fail "--threads 1: [$two]"
else
  skip "auto's thread count: this machine has fewer than 2 CPUs for taskset"
fi
for t in nvvp2db nsys2db etprof2db rpd2db kineto2db; do
  "$t" --help | grep -q -- '--threads N' && pass "$t --help: --threads" || fail "$t --help lacks --threads"
done
