#!/usr/bin/env bash
# Malformed inputs, table-driven: every tests/data/bad/*.cases file registers
# cases with `bad TOOL NAME EXIT PATTERN MAKER [ARGS...]` (see
# tests/data/bad/README.md). For each case MAKER writes the input, the tool runs
# on it, and one PASS/FAIL line says whether all of this held:
#   - the exit code is EXIT, and the tool did not crash (no signal, no
#     ASan/UBSan report, no timeout);
#   - stderr names the input file and matches PATTERN (the place: a byte
#     offset, a table, a row id, a column; for accepted inputs, the warning);
#   - EXIT != 0: nothing is left in the output directory;
#     EXIT == 0: the output is valid (exports: the project's checker;
#     imports: the hub exports to valid Chrome JSON);
#   - the input is byte-identical afterwards, and nothing appeared beside it.
# Large inputs are generated here, never committed.
source "$(dirname "$0")/lib.sh"
BAD="$ROOT/tests/data/bad"
W="$TMP/bad"
mkdir -p "$W"
ncases=0

out_ext() {
  case $1 in db2json) echo json ;; db2perfetto) echo pftrace ;; db2otf2) echo otf2 ;; db2summary) echo txt ;; *) echo db ;; esac
}
# sha_into VAR FILE: FILE's sha256 (or - when it is no file) into VAR, by
# one sha256sum and no subshell (two per case, 300 cases).
sha_into() {
  local h=-
  if [ -f "$2" ]; then sha256sum <"$2" >"$W/.sha" && read -r h _ <"$W/.sha" || h="(sha256sum failed)"; fi
  printf -v "$1" '%s' "$h"
}
# names_in VAR DIR: the names in DIR, dot files too, space-separated, into
# VAR (no ls | paste: a case's own checks were most of its processes).
names_in() {
  local -a n=()
  local f
  for f in "$2"/* "$2"/.*; do
    case ${f##*/} in .|..) continue ;; esac
    [ -e "$f" ] || [ -L "$f" ] || continue
    n+=("${f##*/}")
  done
  printf -v "$1" '%s' "${n[*]}"
}

# output_valid TOOL FILE: the output of a successful run passes the checks.
# A trace is only queued here, as "CHECKER FILE" on stdout: the project's
# checkers run once for every queued trace at the end (check_queued), as a
# checker's start cost more than most cases.
output_valid() {
  case $1 in
    db2json) echo "chrome-json-check $2" ;;
    db2perfetto) echo "pftrace-check $2" ;;
    db2otf2) echo "otf2-check $2/traces.otf2" ;; # the archive is a directory
    db2summary) [ -s "$2" ] && grep -q . "$2" ;; # a flat profile (its numbers: tests/tools/test_summary.sh)
    dbmerge) # a merged copy: a sound SQLite file, the input's tables and rows as they were
      [ "$(sqlite3 "$2" "PRAGMA integrity_check")" = ok ] ;;
    *) # A hub that holds no events exports to an empty but valid trace
      # (check_queued allows its one "no trace events" line).
      db2json -q "$2" -o "$2.json" || return 1
      echo "chrome-json-check $2.json" ;;
  esac
}
# Cases whose PASS/FAIL waits for the checkers: the checker, the file, the
# case's name, its PASS line, what already went wrong, the stderr shown, the case's
# directory.
q_checker=() q_file=() q_name=() q_head=() q_why=() q_err=() q_dir=()

# bad TOOL[,OPTION...] NAME EXIT PATTERN MAKER [ARGS...]
bad() {
  local tool=${1%%,*} name=$2 want=$3 pattern=$4 maker=$5
  local -a opts=()
  [[ $1 == *,* ]] && IFS=, read -ra opts <<<"${1#*,}"
  shift 5
  ncases=$((ncases + 1))
  local d="$W/$tool.$ncases"
  mkdir -p "$d/in" "$d/out"
  local in="$d/in/$name"
  local why="" v=""
  if ! "$maker" "$in" "$@" 2>"$d/maker.err"; then
    fail "$tool $name: making the input: $(head -c 300 "$d/maker.err")"
    return
  fi
  local before sha_after beside after left
  sha_into before "$in"
  names_in beside "$d/in"
  local out
  out="$d/out/out.$(out_ext "$tool")"
  local rc
  # Not -q: warnings are part of what a case expects.
  timeout 120 "$BIN/$tool" "${opts[@]}" "$in" -o "$out" >/dev/null 2>"$d/err"
  rc=$?
  local err
  err=$(head -c 4000 "$d/err")
  if [ $rc -eq 124 ]; then why+=" timed out;"
  elif [ $rc -ge 128 ]; then why+=" crashed (exit $rc);"
  elif [ $rc -ne "$want" ]; then why+=" exit $rc, expected $want;"
  fi
  if grep -qE 'Sanitizer|runtime error:' "$d/err"; then why+=" sanitizer report;"; fi
  if [ "$want" -ne 0 ] || [ -n "$pattern" ]; then
    [[ "$err" == *"$name"* ]] || why+=" message does not name the file;"
    [[ "$err" =~ $pattern ]] || why+=" message lacks /$pattern/;"
  fi
  if [ "$want" -ne 0 ]; then
    names_in left "$d/out"
    [ -z "$left" ] || why+=" output left: $left;"
  elif [ $rc -eq 0 ]; then
    v=$(output_valid "$tool" "$out" 2>&1) || why+=" output invalid: ${v:0:300};"
  fi
  sha_into sha_after "$in"
  [ "$sha_after" == "$before" ] || why+=" input changed;"
  names_in after "$d/in"
  [ "$after" == "$beside" ] || why+=" files appeared beside the input;"
  err=${err//$'\n'/ | }
  if [ -z "$why" ] && [ -n "$v" ]; then
    v=${v##*$'\n'} # the queue line (after any warning of db2json)
    q_checker+=("${v%% *}") q_file+=("${v#* }") q_name+=("$tool $name")
    q_head+=("$tool $name: exit $rc${err:+, \"${err:0:160}\"}")
    q_why+=("$why") q_err+=("${err:0:400}") q_dir+=("$d")
    return
  fi
  if [ -z "$why" ]; then pass "$tool $name: exit $rc${err:+, \"${err:0:160}\"}"
  else fail "$tool $name:$why stderr: ${err:0:400}"; fi
  rm -rf "$d"
}

# ---- makers shared by the case files ----------------------------------------
# Each writes the input at $1 (or, for `missing`, does not).
copy_of() { cp "$2" "$1"; }
empty_file() { : >"$1"; }
missing() { :; }
directory() { mkdir -p "$1"; }
text() { printf '%s' "$2" >"$1"; }
# truncated OUT SRC PERCENT: the first PERCENT% of SRC (at least 1 byte).
truncated() {
  local size n
  size=$(stat -c %s "$2")
  n=$((size * $3 / 100)); [ $n -lt 1 ] && n=1
  head -c $n "$2" >"$1"
}
# overwritten OUT SRC OFFSET_PERCENT COUNT: SRC with COUNT bytes of a fixed
# pseudo-random pattern written at OFFSET_PERCENT% of it.
overwritten() {
  cp "$2" "$1"
  local size; size=$(stat -c %s "$2")
  $PY -c 'import sys, random
r = random.Random(42)
sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(int(sys.argv[1]))))' "$4" |
    dd of="$1" bs=1 seek=$((size * $3 / 100)) conv=notrunc status=none
}
# sqlite_edit OUT SRC SQL: a copy of database SRC changed by SQL.
sqlite_edit() { cp "$2" "$1" && sqlite3 -batch "$1" "$3" >/dev/null; }
sqlite_new() { sqlite3 -batch "$1" "$2" >/dev/null; }
# generated_hub OUT N: a valid hub of N launches and kernels (bench/gen_hub).
generated_hub() { "$ROOT/$BUILD/bench/gen_hub" "$1" "$2" 2 >/dev/null; }
# python_make OUT CODE: CODE writes the file named by sys.argv[1].
python_make() { $PY -c "$2" "$1"; }

# check_queued: each checker once over its queued files; a file is valid
# when the checker names no problem in it (for an importer's hub exported
# to JSON, "no trace events" alone is allowed: a hub without events), and
# the run failed for no other reason (lines naming no file: no file passes).
check_queued() {
  local tool out rc stray f i mine files
  declare -A bad=()
  for tool in chrome-json-check pftrace-check otf2-check; do
    files=()
    for i in "${!q_file[@]}"; do [ "${q_checker[$i]}" = "$tool" ] && files+=("${q_file[$i]}"); done
    [ ${#files[@]} -gt 0 ] || continue
    out=$($PY "$(own_checker "$tool")" -q "${files[@]}" 2>&1); rc=$?
    stray=$out
    for f in "${files[@]}"; do stray=$(awk -v p="$f: " 'index($0, p) != 1' <<<"$stray"); done
    [ "$rc" -gt 2 ] && stray="exit $rc $stray"
    [ "$rc" -ne 0 ] && [ -z "$out" ] && stray="exit $rc"
    [ "$rc" -eq 0 ] && stray=
    for f in "${files[@]}"; do
      mine=$(awk -v p="$f: " 'index($0, p) == 1' <<<"$out")
      # an importer's output: the hub exported to JSON, maybe empty
      [[ "$f" == */out/out.db.json ]] && [[ "$mine" == *": no trace events" ]] &&
        [ "$(wc -l <<<"$mine")" -eq 1 ] && mine=
      mine+=$stray
      [ -n "$mine" ] && bad[$f]=$mine
    done
  done
  for i in "${!q_file[@]}"; do
    f=${q_file[$i]}
    if [ -z "${bad[$f]:-}" ]; then pass "${q_head[$i]}"
    else fail "${q_name[$i]}: output invalid: ${bad[$f]:0:300}; stderr: ${q_err[$i]}"; fi
    rm -rf "${q_dir[$i]}"
  done
}

for f in "$BAD"/${TT_BAD_CASES:-*}.cases; do
  # shellcheck source=/dev/null
  source "$f"
done
check_queued
[ "$ncases" -ge 50 ] && pass "$ncases malformed-input cases ran" || fail "only $ncases cases"
