#!/usr/bin/env bash
# `make check` ends with tests/run.sh's "N passed, N failed" line, the line
# CI (.ci/run) reads: the fuzz run comes before it and is counted in it.
# Run on a copy of the Makefile and tests/run.sh with one stub test and a
# stub $(MAKE) (so nothing is built or fuzzed here).
source "$(dirname "$0")/lib.sh"

w="$TMP/tree"
mkdir -p "$w/tests/tools" "$w/scripts"
cp "$ROOT/Makefile" "$w/"
cp "$ROOT/tests/run.sh" "$w/tests/"
printf '#!/bin/sh\necho "PASS: stub"\n' >"$w/tests/tools/test_stub.sh"
# the stub make: prints what it was asked, fails "fuzz" with $STUB_FUZZ_RC
cat >"$TMP/stub-make" <<'EOF'
#!/bin/sh
echo "stub make $*"
case " $* " in *" fuzz "*) exit "${STUB_FUZZ_RC:-0}" ;; esac
exit 0
EOF
chmod +x "$TMP/stub-make"

# run_check FUZZ_RC : make check's standard output, its exit code last
# (make's own "Error" line on a failure goes to stderr, after the summary)
run_check() {
  (cd "$w" && STUB_FUZZ_RC=$1 TEST_JOBS=1 make -s --no-print-directory -o deps \
     MAKE="$TMP/stub-make" JOBS_FLAG= BUILD=build check 2>"$TMP/make.err"; echo "rc=$?")
}

out=$(run_check 0)
expect_eq "make check: the fuzz run passed, the summary is the last line" \
  "2 passed, 0 failed|rc=0" "$(echo "$out" | tail -n 2 | paste -sd'|')"
expect_eq "make check: the fuzz run is one row of the summary" \
  "1" "$(echo "$out" | grep -c '^make fuzz  *1 passed   0 failed')"
expect_eq "make check: the fuzz run comes before the tests" "stub make fuzz|test_stub" \
  "$(echo "$out" | grep -o -e '^stub make fuzz' -e '^test_stub' | paste -sd'|')"

out=$(run_check 1)
expect_eq "make check: a failed fuzz run is counted, the summary is still last" \
  "1 passed, 1 failed|rc=2" "$(echo "$out" | tail -n 2 | paste -sd'|')"
expect_eq "make check: a failed fuzz run is named" \
  "  make fuzz: FAIL: exited 1" "$(echo "$out" | grep 'make fuzz: FAIL')"

out=$(cd "$w" && env -u CHECK_FUZZ_RC BUILD=build TEST_JOBS=1 bash tests/run.sh 2>&1)
expect_eq "tests/run.sh alone: no fuzz row, the summary last" "0|1 passed, 0 failed" \
  "$(echo "$out" | grep -c '^make fuzz')|$(echo "$out" | tail -n 1)"

# Start order (TEST_JOBS=1 runs them one by one): the known-long tests
# first while no durations are recorded, then by the last run's durations,
# longest first; the rows stay in file order.
o="$TMP/order"
mkdir -p "$o/tests/tools" "$o/build/tests"
cp "$ROOT/tests/run.sh" "$o/tests/"
# stub FILE TAG SECONDS: a test that notes its start, then sleeps
stub() { printf '#!/bin/sh\necho %s >>"%s/started"\nsleep %s\necho "PASS: %s"\n' "$2" "$o" "$3" "$2" >"$o/tests/tools/$1"; }
stub test_a_short.sh a_short 0; stub test_b_slow.sh b_slow 1; stub test_perfetto.sh perfetto 0
rows() { (cd "$o" && BUILD=build TEST_JOBS=1 bash tests/run.sh | grep -o '^test_[a-z_]*' | paste -sd' '); }
expect_eq "run.sh: rows in file order" "test_a_short test_b_slow test_perfetto" "$(rows)"
expect_eq "run.sh: without a record, the known-long test_perfetto starts first" \
  "perfetto a_short b_slow" "$(paste -sd' ' "$o/started")"
rm -f "$o/started"
expect_eq "run.sh: rows in file order, again" "test_a_short test_b_slow test_perfetto" "$(rows)"
expect_eq "run.sh: with the last run's durations, the longest starts first" \
  "b_slow" "$(head -n 1 "$o/started")"
expect_eq "run.sh: the durations recorded, one per test" "3" "$(wc -l <"$o/build/tests/durations")"
