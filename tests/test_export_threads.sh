#!/usr/bin/env bash
# --threads 2 (the inputs read ahead on a second thread, common/export_pipe.c)
# against --threads 1, for every exporter: on every fixture hub, a
# rocprofv3-shaped hub (no reader indexes) and a synthetic one, with the
# option sets that change how records reach the sink (window and process
# splits, --part, --no-args, a time range, filters, several inputs, inputs
# merged in passes), the outputs, messages and exit codes are the same,
# byte for byte. A hub that fails mid-stream fails the same way and
# leaves no output; --threads 3 is refused.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"

tool_of() {
  case "$1" in
  */kineto/*) echo kineto2db ;;
  */nvprof/*) echo nvvp2db ;;
  */nsys/*) echo nsys2db ;;
  */rocm/*) echo rpd2db ;;
  */executorch/*) echo etprof2db ;;
  esac
}
HUBS=()
for f in "$FIX"/*/*; do
  case "$f" in *.md) continue ;; esac
  t=$(tool_of "$f")
  [ -n "$t" ] || continue
  h="$TMP/$(basename "$f").db"
  "$t" -q "$f" -o "$h" 2>/dev/null && HUBS+=("$h")
done
$PY "$ROOT/tests/make_rocprof_hub.py" "$TMP/rocprof.db" 0b1c2d3e-0000-4000-8000-000000000001 4242 7 3000 &&
  HUBS+=("$TMP/rocprof.db")
"$GEN" "$TMP/gen.db" 6000 3 && HUBS+=("$TMP/gen.db")
expect_eq "hubs made from every fixture, a rocprofv3-shaped and a synthetic one" 1 \
  "$([ "${#HUBS[@]}" -ge 8 ] && echo 1 || echo "${#HUBS[@]}")"

ext_of() {
  case $1 in db2perfetto) echo .pftrace ;; db2otf2) echo .otf2 ;; db2summary) echo .txt ;; *) echo .json ;; esac
}
same=0
differ=()
# one TOOL ARGS...: --threads 1 and --threads 2 give the same files,
# stdout, stderr and exit code (an OTF2 archive's anchor file records
# its creation time: left out).
one() {
  local tool=$1 ext
  shift
  ext=$(ext_of "$tool")
  rm -rf "$TMP/a" "$TMP/b"
  mkdir -p "$TMP/a" "$TMP/b"
  for t in 1 2; do
    local d=$TMP/a
    [ $t = 2 ] && d=$TMP/b
    (cd "$d" && "$tool" --threads $t "$@" -o "out$ext" >stdout 2>stderr; echo $? >>stderr)
  done
  if diff -r -x traces.otf2 "$TMP/a" "$TMP/b" >/dev/null; then
    same=$((same + 1))
  else
    differ+=("$tool $*")
  fi
}
for tool in db2json db2perfetto db2otf2 db2summary; do
  for h in "${HUBS[@]}"; do
    one $tool "$h"
    one $tool "$h" --split window --windows 4
    one $tool "$h" --split process
    one $tool "$h" --no-args
    one $tool "$h" --start 20% --end 70%
  done
  one $tool "${HUBS[@]}"
  one $tool "${HUBS[@]}" --split window --windows 3 --part 1
  one $tool "$TMP/gen.db" --category 'kernel*'
  one $tool "$TMP/gen.db" --name '*a*' --split window --windows 5
done
expect_eq "every exporter, hub and option set: --threads 2 = --threads 1 ($same runs)" "" \
  "${differ[*]:-}"

# Inputs merged in passes (more than the descriptor limit allows open):
# a reader that gives args for the record read last only.
mkdir "$TMP/many"
$PY "$ROOT/tests/make_rocprof_hub.py" --many "$TMP/many" 30 40 >/dev/null
for tool in db2json db2perfetto; do
  ext=$(ext_of $tool)
  for t in 1 2; do
    (ulimit -n 28; TMPDIR="$TMP" $tool -q --threads $t "$TMP"/many/h*.db --split window --windows 3 \
      -o "$TMP/many$t$ext")
  done
  r=same
  for w in 000 001 002; do cmp -s "$TMP/many1.w$w$ext" "$TMP/many2.w$w$ext" || r=differ; done
  [ -s "$TMP/many2.w000$ext" ] || r=missing
  expect_eq "$tool, 30 hubs merged in passes: --threads 2 = --threads 1" same "$r"
done

# --- a hub that fails mid-stream: a start that is not a time, read after
# more records than a batch holds ---------------------------------------
"$GEN" "$TMP/bad.db" 20000 2 >/dev/null
sfx=$(q "$TMP/bad.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/bad.db" "UPDATE rocpd_region$sfx SET start = 'soon' WHERE id = 17"
for tool in db2json db2perfetto db2otf2 db2summary; do
  ext=$(ext_of $tool)
  for t in 1 2; do
    rm -rf "$TMP/bad$t"
    mkdir "$TMP/bad$t"
    (cd "$TMP/bad$t" && $tool --threads $t "$TMP/bad.db" -o "bad$ext" >/dev/null 2>../bad$t.err; echo "exit $?" >>../bad$t.err)
  done
  expect_eq "$tool: a hub failing mid-stream, --threads 2 says what --threads 1 says" \
    "$(cat "$TMP/bad1.err")" "$(cat "$TMP/bad2.err")"
  expect_eq "$tool: ... names the row and exits 1, leaving no output" "1 exit 1 0" \
    "$(grep -c "row id 17: start 'soon' is not an integer time" "$TMP/bad2.err") $(tail -1 "$TMP/bad2.err") $(ls "$TMP/bad2" | wc -l)"
done

expect_fail "--threads 3 is refused" "--threads: expected 1, 2 or auto, got '3'" \
  db2json --threads 3 "$TMP/gen.db" -o "$TMP/t3.json"
expect_eq "... and writes nothing" "" "$(ls "$TMP" | grep t3)"
expect_ok "--threads auto is accepted" db2json -q --threads auto "$TMP/gen.db" -o "$TMP/auto.json"
expect_eq "--threads in every exporter's help" "4" \
  "$(for t in db2json db2perfetto db2otf2 db2summary; do $t --help | grep -c -- '--threads N'; done | paste -sd+ | bc)"
