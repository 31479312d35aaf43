#!/usr/bin/env bash
# Runs every unit test binary and every tests/tools/test_*.sh, counts PASS/FAIL
# lines and ends with "N passed, N failed" (non-zero exit on any failure).
# CHECK_FUZZ_RC (set by make check, which fuzzes first) adds the fuzz run's
# exit code as one more row.
# Tests run TEST_JOBS at a time (default: the number of cores), each into
# its own log; results are printed in a fixed order, with each test's
# seconds, whatever order they finish in. Each test has its own temporary
# directory (tests/tools/lib.sh), so they do not share files.
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
: "${TEST_JOBS:=$(nproc 2>/dev/null || echo 1)}"
export BUILD
logs=$(mktemp -d "${TMPDIR:-/tmp}/tt-run.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# The output of scripts/demo.sh, which several tests read, is made once for
# the run (tests/tools/demo_once.sh, started now beside the tests, not as
# one of the TEST_JOBS; a test that needs it first waits for it).
export TT_RUN_SHARED="$logs/shared"
mkdir "$TT_RUN_SHARED"
[ -f tests/tools/demo_once.sh ] && ( bash tests/tools/demo_once.sh "$TT_RUN_SHARED" >/dev/null 2>&1 & )

names=() cmds=()
for t in "$BUILD"/tests/unit_*; do
  [ -x "$t" ] && { names+=("$(basename "$t")"); cmds+=("$t"); }
done
for t in tests/tools/test_*.sh; do
  [ -f "$t" ] && { names+=("$(basename "$t" .sh)"); cmds+=("bash $t"); }
done

# run_one I: runs test I into $logs/I.log, its exit code and seconds after.
run_one() {
  local i=$1 t0 t1
  t0=$(date +%s%N)
  ${cmds[$i]} >"$logs/$i.log" 2>&1
  echo $? >"$logs/$i.rc"
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000)) >"$logs/$i.ms"
}

# Start order: the longest tests first, so that with TEST_JOBS at once a
# long test started last does not set the end time. The durations of the
# last full run on this build ($BUILD/tests/durations) order them; without
# that record (a fresh clone), the tests known to take 10 s or more start
# first, longest first, the rest in file order (a test not in the record
# is taken as long: it may be).
durations="$BUILD/tests/durations"
long_tests="test_split_size test_perfetto test_many test_bad_inputs test_memory test_summary_html \
  test_otf2 test_bench test_rocpd_views test_etprof test_threads test_split_ahead test_safe_outputs \
  test_kineto_memory test_kineto_repair test_newuser2 test_newuser test_db2json"
order=()
if [ -s "$durations" ]; then
  declare -A last_ms=()
  while read -r n ms; do last_ms[$n]=$ms; done <"$durations"
  while read -r _ i; do order+=("$i"); done < <(
    for i in "${!names[@]}"; do echo "${last_ms[${names[$i]}]:-999999999} $i"; done | sort -s -k1,1nr)
else
  for n in $long_tests; do
    for i in "${!names[@]}"; do [ "${names[$i]}" = "$n" ] && order+=("$i"); done
  done
  for i in "${!names[@]}"; do
    [[ " $long_tests " == *" ${names[$i]} "* ]] || order+=("$i")
  done
fi

running=0
for i in "${order[@]}"; do
  if [ "$running" -ge "$TEST_JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_one "$i" &
  running=$((running + 1))
done
wait

passed=0 failed=0 skipped=0
for i in "${!cmds[@]}"; do
  name=${names[$i]} log=$logs/$i.log
  rc=$(cat "$logs/$i.rc" 2>/dev/null || echo 127)
  p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
  grep -E '^(FAIL|SKIP): ' "$log" | sed "s|^|  $name: |"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  $name: FAIL: exited $rc"; tail -n 15 "$log" | sed 's/^/    /'; f=1
  fi
  ms=$(cat "$logs/$i.ms" 2>/dev/null || echo 0)
  printf '%-40s %4d passed %3d failed %3d skipped %6.1f s\n' "$name" "$p" "$f" "$s" \
    "$(echo "$ms" | awk '{print $1 / 1000}')"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
# the record of this run's durations, for the next run's start order
if [ -d "$BUILD/tests" ] && [ "${#names[@]}" -gt 0 ]; then
  for i in "${!names[@]}"; do echo "${names[$i]} $(cat "$logs/$i.ms" 2>/dev/null || echo 0)"; done \
    >"$durations.tmp.$$" && mv "$durations.tmp.$$" "$durations"
fi
# make check's fuzz run, done before the tests: one row, passed or failed
if [ -n "${CHECK_FUZZ_RC:-}" ]; then
  if [ "$CHECK_FUZZ_RC" -eq 0 ]; then p=1 f=0; else p=0 f=1; echo "  make fuzz: FAIL: exited $CHECK_FUZZ_RC"; fi
  printf '%-40s %4d passed %3d failed %3d skipped\n' "make fuzz" "$p" "$f" 0
  passed=$((passed + p)); failed=$((failed + f))
fi
echo
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
