#!/usr/bin/env bash
# The command line every tool shares (common/cli/cli.h): each tool refuses an
# output that is its input, accepts every option its --help documents,
# lets -q win over --progress, and answers --version and usage errors the
# same way. db2summary's own options go through the same parser as the
# exporters' (--max-parts, --count-parts as db2json has them).
source "$(dirname "$0")/lib.sh"
sha() { sha256sum "$1" | cut -d' ' -f1; }
IMPORTERS="kineto2db etprof2db rpd2db nvvp2db nsys2db"
EXPORTERS="db2json db2perfetto db2otf2 db2summary"
declare -A IN=(
  [kineto2db]="$FIX/kineto/hta_backward_thread.json"
  [etprof2db]="$FIX/executorch/et_tutorial_etdump.etdp"
  [rpd2db]="$FIX/rocm/rpd_matmul_result.rpd"
  [nvvp2db]="$FIX/nvprof/rasolca_output_file.nvprof"
  [nsys2db]="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
declare -A EXT=([db2json]=json [db2perfetto]=pftrace [db2otf2]=otf2 [db2summary]=txt)
rpd2db -q "${IN[rpd2db]}" -o "$TMP/hub.db"   # kernels, copies and API calls
kineto2db -q "${IN[kineto2db]}" -o "$TMP/hub2.db"
mkdir "$TMP/w"

# --- output == input: refused before anything is written ----------------
for t in $IMPORTERS dbmerge $EXPORTERS; do
  in=${IN[$t]:-$TMP/hub.db}
  cp "$in" "$TMP/w/in"; h=$(sha "$TMP/w/in")
  ln -sf "$TMP/w/in" "$TMP/w/link"
  err=$($t -q "$TMP/w/in" -o "$TMP/w/in" 2>&1 >/dev/null); rc=$?
  expect_eq "$t: -o naming the input: exit 2 and the message names both" \
    "2 $t: error: $TMP/w/in: output would overwrite the input $TMP/w/in" "$rc $err"
  err=$($t -q "$TMP/w/in" -o "$TMP/w/link" 2>&1 >/dev/null); rc=$?
  expect_eq "$t: -o naming a symlink to the input is refused the same way" \
    "2 $t: error: $TMP/w/link: output would overwrite the input $TMP/w/in" "$rc $err"
  expect_eq "$t: the input is unchanged, nothing else written" "$h in link" \
    "$(sha "$TMP/w/in") $(ls "$TMP/w" | tr '\n' ' ' | sed 's/ $//')"
  rm -rf "$TMP/w"/*
done

# --- -q wins over --progress, in either order ----------------------------
for t in $IMPORTERS dbmerge $EXPORTERS; do
  in=${IN[$t]:-$TMP/hub.db}
  o="$TMP/w/o.${EXT[$t]:-db}"
  for order in "-q --progress" "--progress -q"; do
    # shellcheck disable=SC2086
    err=$($t $order "$in" -o "$o" 2>&1 >/dev/null); rc=$?
    expect_eq "$t $order: exit 0, nothing on stderr" "0 " "$rc $err"
    rm -rf "$TMP/w"/*
  done
done

# --- --version, usage errors ---------------------------------------------
# (an option getopt refuses: one line; a missing input: the usage)
version=$(sed -n 's/^#define TT_VERSION "\(.*\)"$/\1/p' "$ROOT/common/base/util.h")
for t in $IMPORTERS dbmerge $EXPORTERS; do
  expect_eq "$t --version" "$t (tracetools) $version" "$($t --version)"
  expect_eq "$t -V is --version" "$($t --version)" "$($t -V)"
  expect_eq "$t -h is --help" "$($t --help | sha256sum)" "$($t -h | sha256sum)"
  err=$($t --no-such-option x -o "$TMP/w/o" 2>&1 >/dev/null); rc=$?
  # Issue 45 item 10: one line naming the option and --help, not the usage.
  expect_eq "$t: an unknown option is a usage error (exit 2, one line naming it and --help)" \
    "2 $t: error: unknown option '--no-such-option' (see $t --help)" "$rc $err"
  err=$($t -o "$TMP/w/o" 2>&1 >/dev/null); rc=$?
  want="missing input database"; case " $IMPORTERS " in *" $t "*) want="missing INPUT" ;; esac
  expect_eq "$t: no input: exit 2, '$want'" "2 $t: error: $want" "$rc $(head -1 <<<"$err")"
  expect_eq "$t: the usage after a usage error is --help's" "$($t --help)" "$(tail -n +2 <<<"$err")"
done

# --- --help reads whole on an 80-column terminal --------------------------
# kineto2db's --lenient line was once cut short by hand to fit a line
# ("... with a warning giving the cut's byte") and still ran past 80
# columns, where a terminal wraps it mid-word. Every line fits in 80
# columns, and no option's description stops on a word that cannot end
# one (an article, a preposition, a conjunction, a possessive pronoun).
for t in $IMPORTERS dbmerge $EXPORTERS; do
  expect_eq "$t --help: every line fits in 80 columns" "" \
    "$($t --help | awk 'length($0) > 80 { printf "%d: %s\n", length($0), $0 }')"
  expect_eq "$t --help: no option's description ends on a word that leaves it unfinished" "" \
    "$($t --help | awk '
      function check() { if (last ~ /(^| )(a|an|the|of|to|with|and|or|for|in|on|by|at|its|their|giving)$/) print last }
      /^  (-[a-zA-Z], )?--|^      --|^  [A-Z.]+ / { check(); last = $0; next }
      /^                    +[^ ]/ { last = $0; next }
      { check(); last = "" }
      END { check() }')"
done

# --- every option --help documents is accepted ---------------------------
# The options a --help line starts with (its first 27 columns: "-o,
# --output FILE", "--start T, --end T"), not those named in descriptions.
documented() {
  "$1" --help | grep -E '^  (-[a-zA-Z], )?--|^      --' | cut -c1-27 | grep -oE -- '--[a-z][a-z-]*' | sort -u
}
# args TOOL OPTION: a valid use of the option (beside -q INPUT -o OUT).
args() {
  case $2 in
  --threads) echo "--threads 1" ;;
  --split) echo "--split process" ;;
  --windows) echo "--split window --windows 2" ;;
  --window-size) echo "--split window --window-size 1s" ;;
  --max-part-size) echo "--max-part-size 1M" ;;
  --part) echo "--split window --windows 2 --part 1" ;;
  --start) echo "--start 10%" ;;
  --end) echo "--end 90%" ;;
  --category | --name) echo "$2 *" ;;
  --exclude-category) echo "--exclude-category no-such-category" ;;
  --max-parts) echo "--split window --windows 2 --max-parts 2" ;;
  --count-parts) echo "--split window --windows 2 --count-parts" ;;
  --format) [ "$1" = etprof2db ] && echo "--format etdump" || echo "--format csv" ;;
  --top) echo "--top 3" ;;
  --table) echo "--table kernels" ;;
  --width) echo "--width 80" ;;
  --time-scale) echo "--time-scale us" ;;
  --time-base) echo "--time-base 0" ;;
  --min-duration) echo "--min-duration 1us" ;;
  --align) echo "--align collectives" ;;
  --cpu-freq) echo "--time-scale cycles --cpu-freq 1000000000" ;;
  *) echo "$2" ;; # no value
  esac
}
for t in $IMPORTERS dbmerge $EXPORTERS; do
  in=${IN[$t]:-$TMP/hub.db}
  opts=$(documented "$t" | grep -vx -e --help -e --version -e --output -e --quiet)
  n=0
  for opt in $opts; do
    read -r -a a <<<"$(args "$t" "$opt")"
    out=$("$t" -q "$in" "${a[@]}" -o "$TMP/w/o.${EXT[$t]:-db}" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 0 ]; then n=$((n + 1)); else fail "$t ${a[*]}: exit $rc: ${out:0:300}"; fi
    rm -rf "$TMP/w"/*
  done
  expect_eq "$t accepts each of the $(wc -w <<<"$opts") options its --help documents" \
    "$(wc -w <<<"$opts")" "$n"
done
expect_eq "db2summary documents --max-parts" "--max-parts" "$(documented db2summary | grep -x -- --max-parts)"
expect_eq "db2summary documents no --max-part-size (it cannot size a part)" "" \
  "$(documented db2summary | grep -x -- --max-part-size)"
expect_fail "db2summary --max-part-size: refused" "--max-part-size: not for this tool" \
  db2summary -q "$TMP/hub.db" --max-part-size auto -o "$TMP/w/s.txt"

# --- db2summary's --max-parts and --count-parts as the other exporters' ---
for t in $EXPORTERS; do
  err=$($t -q "$TMP/hub.db" --split window --windows 3 --max-parts 2 -o "$TMP/w/o.${EXT[$t]}" 2>&1); rc=$?
  expect_eq "$t: 3 windows over --max-parts 2 refused (exit 2), nothing written" \
    "2 the split would write 3 parts" "$rc $(grep -o 'the split would write 3 parts' <<<"$err")$(ls "$TMP/w")"
  $t -q "$TMP/hub.db" --split window --windows 3 --max-parts 3 -o "$TMP/w/o.${EXT[$t]}"
  expect_eq "$t: --max-parts 3 allows 3 windows" "o.w000.${EXT[$t]} o.w001.${EXT[$t]} o.w002.${EXT[$t]}" \
    "$(cd "$TMP/w" && echo o.w*)"
  rm -rf "$TMP/w"/*
done
pids=$(q "$TMP/hub2.db" "SELECT count(DISTINCT pid) FROM (SELECT pid FROM rocpd_region
  UNION SELECT pid FROM rocpd_kernel_dispatch UNION SELECT pid FROM rocpd_memory_copy)")
for t in $EXPORTERS; do
  expect_eq "$t --count-parts needs no -o (windows)" "3" \
    "$($t "$TMP/hub.db" --split window --windows 3 --count-parts)"
  expect_eq "$t --count-parts needs no -o (processes)" "$pids" \
    "$($t "$TMP/hub2.db" --split process --count-parts)"
done
expect_eq "no file written by --count-parts" "" "$(ls "$TMP/w")"

# --- db2summary's own options are getopt's like the shared ones ----------
kernels=$(q "$TMP/hub.db" "SELECT count(DISTINCT s.display_name) FROM rocpd_kernel_dispatch k
  JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id")
expect_eq "db2summary --form (an abbreviation, as every long option) is --format" \
  "$(db2summary -q "$TMP/hub.db" --format csv --table kernels | sha256sum)" "$(db2summary -q "$TMP/hub.db" --form csv --table kernels | sha256sum)"
# (#45: memsets are a table of their own, not kernels)
expect_eq "db2summary --format=csv --top=0: one row per kernel or memset name" "$kernels" \
  "$(( $(db2summary -q "$TMP/hub.db" --format=csv --top=0 --table=kernels | tail -n +2 | wc -l) + $(db2summary -q "$TMP/hub.db" --format=csv --top=0 --table=memsets 2>/dev/null | tail -n +2 | wc -l) ))"
expect_fail "db2summary --max-parts takes the next argument as its value" \
  "--max-parts: not a count: '--format'" db2summary -q "$TMP/hub.db" --max-parts --format csv
expect_fail "db2summary --top without a value: a usage error" "option '--top' requires an argument" \
  db2summary -q "$TMP/hub.db" --top
expect_fail "db2summary --format with a wrong value" "--format: expected text, csv" \
  db2summary -q "$TMP/hub.db" --format xml
