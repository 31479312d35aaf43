#!/usr/bin/env bash
# Runs every unit test binary and every tests/test_*.sh, counts PASS/FAIL
# lines and ends with "N passed, N failed" (non-zero exit on any failure).
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
export BUILD
passed=0 failed=0 skipped=0
log=$(mktemp)
run_one() {
  local name=$1; shift
  "$@" >"$log" 2>&1
  local rc=$?
  local p f s
  p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
  grep -E '^(FAIL|SKIP): ' "$log" | sed "s|^|  $name: |"
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  $name: FAIL: exited $rc"; tail -n 15 "$log" | sed 's/^/    /'; f=1
  fi
  printf '%-40s %4d passed %3d failed %3d skipped\n' "$name" "$p" "$f" "$s"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
for t in "$BUILD"/tests/unit_*; do
  [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/test_*.sh; do
  [ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
done
rm -f "$log"
echo
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
