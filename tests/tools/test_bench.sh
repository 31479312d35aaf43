#!/usr/bin/env bash
# `make bench` at a tiny size, so no benchmark rots: every bench/bench_*.sh
# runs (BENCH_EVENTS small, 20 hubs for bench_many, 2 hosts for bench_align, one run each), none fails, and the one table
# has the machine line and every row with a PASS, FAIL or SKIP result.
# Times at this size mean nothing; only the table's shape is checked.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
dir=$(mktemp -d "${TMPDIR:-/tmp}/tt-test-bench.XXXXXX")
out="$dir/out.txt"
if BENCH_DIR="$dir/work" BENCH_EVENTS=4000 BENCH_HUBS=20 BENCH_ALIGN_HOSTS=2 BENCH_RUNS=1 BUILD="$BUILD" bash bench/run.sh >"$out" 2>"$dir/err.txt"; then
  pass "bench/run.sh: every bench ran"
else
  fail "bench/run.sh failed: $(tail -n 20 "$dir/err.txt")"
fi
grep -q '^machine: .*, [0-9]* cores' "$out" && pass "table names the machine" ||
  fail "no machine line: $(head -3 "$out")"
head=$(grep -n '^tool  *input  *events  *seconds  *events/s  *MB/s  *peak RSS  *ratio  *target  *result$' "$out" | cut -d: -f1)
[ -n "$head" ] && pass "one table header" || fail "no table header in: $(cat "$out")"
# expect_rows TOOL INPUT COUNT
expect_rows() {
  local n
  n=$(grep -c "^$1  .*$2" "$out")
  expect_eq "rows for $1 on $2" "$3" "$n"
}
expect_rows kineto2db "resnet50 x1 JSON" 5
expect_rows db2json "gen_hub hub" 3
expect_rows "db2json --windows 16" "gen_hub hub" 1
expect_rows db2json "gen_hub rows, no index" 1
# rocprofv3's shape (bench_rocprof): db2json against the ordered print,
# also position-major, and at 10x the events (time and peak RSS); the
# other exporters against db2json.
expect_rows db2json "rocprofv3 shape" 4
expect_rows db2json "rocprofv3 shape, args position-major" 1
expect_rows db2perfetto "rocprofv3 shape" 1
expect_rows db2otf2 "rocprofv3 shape" 1
expect_rows "db2json --max-part-size" "gen_hub hub" 2
expect_rows "db2json --max-part-size, 2 parts" "gen_hub hub" 1
# bench_split_large (issue 47): a Kineto trace's size split against one
# .pftrace, time and peak RSS (2 GB of JSON in make bench; small here).
expect_rows "db2perfetto --max-part-size" "Kineto resnet50 x20k, 2 parts" 2
expect_rows "db2json --align collectives" "16 hubs, 2 hosts" 2
expect_rows db2perfetto "gen_hub hub" 4
expect_rows db2otf2 "gen_hub hub" 4
expect_rows nvvp2db "nvprof-shaped .nvvp" 3
expect_rows nsys2db "nsys-shaped .sqlite" 3
expect_rows rpd2db "RPD (rocmProfileData)" 3
expect_rows "rpd2db + db2json" "RPD (rocmProfileData)" 1
# The importers with --threads 2 against --threads 1 (bench/lib.sh threads_row).
expect_rows "kineto2db --threads 2 vs 1" "resnet50 x1 JSON" 1
expect_rows "kineto2db --threads 2 vs 1" "resnet50 fixture" 1
expect_rows "kineto2db --threads auto" "alexnet x1 JSON" 2
expect_rows "nvvp2db --threads 2 vs 1" "nvprof-shaped .nvvp" 1
expect_rows "nsys2db --threads 2 vs 1" "nsys-shaped .sqlite" 1
expect_rows "etprof2db --threads 2 vs 1" "ExecuTorch legacy buffer" 1
expect_rows "rpd2db --threads 2 vs 1" "RPD (rocmProfileData)" 1
expect_rows db2json "per-process hubs, ulimit" 1
expect_rows db2summary "per-process hubs, ulimit" 1
expect_rows "db2summary --format html" "per-process hubs, ulimit" 3
expect_rows db2summary "gen_hub hub" 2
expect_rows dbmerge "gen_hub hub" 2
expect_rows etprof2db "ExecuTorch legacy buffer" 3
expect_rows kineto2db "resnet50 JSON" 1
# db2diff's pair (bench_diff; the bert pair at this size): time, and peak RSS at 20x against 2x
expect_rows db2diff "bert h100/mi300" 2
# One row per tool at 10x the events (bench_scale, the nvprof, nsys, rpd and diff benches)
expect_eq "rows at 10x the events" 11 "$(grep -c 'x peak RSS at [0-9]* events' "$out")"
rows=$(sed -n "$((head + 1)),\$p" "$out")
expect_eq "table rows" 64 "$(printf '%s
' "$rows" | grep -c .)"
bad=$(printf '%s\n' "$rows" | grep -Ev ' (PASS|FAIL|SKIP)$' || true)
[ -z "$bad" ] && pass "every row has a result" || fail "rows without a result: $bad"
printf "%s\n" "$rows" | grep -q CRASH && fail "a bench crashed: $rows" || pass "no bench crashed"
# The kineto rows give the events asked for and a positive rate.
k=$(grep -m1 '^kineto2db ' "$out")
expect_eq "kineto2db events" 4000 "$(echo "$k" | awk '{print $5}')"
rm -rf "$dir"
