# Assertion helpers sourced by every tests/tools/test_*.sh. Each assertion prints
# one "PASS: ..." or "FAIL: ..." line; tests/run.sh counts them.
set -u
: "${BUILD:=build}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN="$ROOT/$BUILD/bin"
FIX="$ROOT/fixtures"
PY=/usr/bin/python3
: "${SHARED_TOOLS:=$ROOT/../shared/tools}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tt-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export PATH="$BIN:$PATH"

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; }

# expect_eq DESC EXPECTED ACTUAL
expect_eq() {
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1: expected [$2], got [$3]"; fi
}

# expect_ok DESC CMD... : the command exits 0
expect_ok() {
  local desc=$1; shift
  local out
  if out=$("$@" 2>&1); then pass "$desc"; else fail "$desc: exit $? from $*: ${out:0:600}"; fi
}

# expect_fail DESC PATTERN CMD... : exits non-zero and stderr matches PATTERN
expect_fail() {
  local desc=$1 pattern=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 0 ]; then fail "$desc: exited 0"; return; fi
  if [ $rc -ge 128 ]; then fail "$desc: crashed (exit $rc): ${err:0:300}"; return; fi
  if [[ "$err" =~ $pattern ]]; then pass "$desc"; else fail "$desc: message [$err] lacks /$pattern/"; fi
}

# A hub's regions and samples less the rows of CPU samples' frames, in SQL
# (FROM $HUB_REGIONS r): a frame is a region and a sample row whose event's
# call_stack is a frame object (rocprof-sys's layout, hub_writer.h's
# hub_stack_sample); exporters write those as samples, never as slices.
HUB_FRAME_EVENTS="(SELECT id FROM rocpd_event WHERE json_type(call_stack, '\$.name') = 'text')"
HUB_REGIONS="(SELECT * FROM rocpd_region WHERE event_id NOT IN $HUB_FRAME_EVENTS)"
HUB_SAMPLES="(SELECT * FROM rocpd_sample WHERE event_id NOT IN $HUB_FRAME_EVENTS)"

# q DB SQL : one query, plain output
q() { sqlite3 -batch -noheader "$1" "$2"; }
# cat_count DB CATEGORY TABLE : rows of rocpd_TABLE whose event has that category
cat_count() {
  q "$1" "SELECT count(*) FROM rocpd_$3 x JOIN rocpd_event e ON e.id = x.event_id
          JOIN rocpd_string s ON s.id = e.category_id WHERE s.string = '$2'"
}

# have_validator NAME : the independent validator from ../shared/tools runs here
have_validator() { [ -x "$SHARED_TOOLS/$1" ]; }

# The project's own checkers, by the name of the ../shared/tools validator
# each stands in for (tests/checkers/check_otf2.py reads OTF2 archives back).
own_checker() {
  case $1 in
    pftrace-check) echo "$ROOT/tests/checkers/check_pftrace.py" ;;
    chrome-json-check) echo "$ROOT/tests/checkers/check_chrome_json.py" ;;
    otf2-check) echo "$ROOT/tests/checkers/check_otf2.py" ;;
  esac
}
# Compiled copy of tests/data/perfetto_trace.proto for check_pftrace.py.
export TT_PB_CACHE="$ROOT/$BUILD/pb"

# check_trace NAME FILE [-q] : runs the project's checker for NAME.
check_trace() { $PY "$(own_checker "$1")" "${@:3}" "$2"; }

# pftrace_text <FILE: protoc's text decoding of a Perfetto trace with the
# official schema (tests/data/perfetto_trace.proto). The schema is compiled
# once per test into a descriptor set: protoc parsing the 680 KB .proto for
# each file cost more than the decoding.
pftrace_text() {
  local desc="$TMP/perfetto_trace.desc"
  if [ ! -s "$desc" ]; then
    protoc -I "$ROOT/tests/data" --descriptor_set_out="$desc.$BASHPID" "$ROOT/tests/data/perfetto_trace.proto" &&
      mv "$desc.$BASHPID" "$desc" || return
  fi
  protoc --decode=perfetto.protos.Trace --descriptor_set_in="$desc"
}

# demo_run DIR LOG: scripts/demo.sh's output in DIR and its log in LOG;
# returns demo.sh's exit code. Under tests/run.sh (TT_RUN_SHARED, a
# directory of the run) the demo runs once for every test that reads it
# (tests/tools/demo_once.sh) and DIR links to that run's output, which
# the tests only read.
demo_run() {
  if [ -z "${TT_RUN_SHARED:-}" ]; then
    OUT="$1" BUILD="$BUILD" bash "$ROOT/scripts/demo.sh" >"$2" 2>&1; return
  fi
  bash "$ROOT/tests/tools/demo_once.sh" "$TT_RUN_SHARED"
  ln -s "$TT_RUN_SHARED/demo" "$1" && cp "$TT_RUN_SHARED/demo.log" "$2" || return 1
  return "$(cat "$TT_RUN_SHARED/demo.rc" 2>/dev/null || echo 1)"
}

# validate DESC NAME FILE : passes when the project's checker for NAME finds
# no problem and, when ../shared/tools/NAME exists (not in a user's clone),
# that independent validator agrees.
validate() {
  local desc=$1 tool=$2 file=$3 out own
  own=$(own_checker "$tool")
  if [ -z "$own" ] || [ ! -f "$own" ]; then fail "$desc: no project checker for $tool"; return; fi
  if ! out=$($PY "$own" -q "$file" 2>&1); then fail "$desc: $(basename "$own"): ${out:0:800}"; return; fi
  if have_validator "$tool" && ! out=$("$SHARED_TOOLS/$tool" -q "$file" 2>&1); then
    fail "$desc: ../shared/tools/$tool: ${out:0:800}"; return
  fi
  pass "$desc"
}

# validate_each NAME DESC FILE [DESC FILE...] : validate for each FILE, with
# one run of the project's checker for them all (its start, loading the
# schema, cost more than checking a small file). A file fails on the
# checker's lines naming it, or on any other line of a failed run.
validate_each() {
  local tool=$1 own out rc desc file mine i; shift
  own=$(own_checker "$tool")
  local descs=() files=()
  while [ $# -ge 2 ]; do descs+=("$1"); files+=("$2"); shift 2; done
  if [ -z "$own" ] || [ ! -f "$own" ]; then
    for desc in "${descs[@]}"; do fail "$desc: no project checker for $tool"; done; return
  fi
  out=$($PY "$own" -q "${files[@]}" 2>&1); rc=$?
  # A failed run with lines naming no file (a traceback), no line, or killed:
  # no file is vouched for.
  local stray=$out
  for file in "${files[@]}"; do stray=$(awk -v p="$file: " 'index($0, p) != 1' <<<"$stray"); done
  { [ "$rc" -gt 2 ] || { [ "$rc" -ne 0 ] && [ -z "$out" ]; }; } && stray="exit $rc: $stray"
  shared_each "$tool" "${files[@]}"
  for i in "${!files[@]}"; do
    desc=${descs[$i]} file=${files[$i]}
    mine=$(awk -v p="$file: " 'index($0, p) == 1' <<<"$out")
    if [ -n "$mine" ]; then fail "$desc: $(basename "$own"): ${mine:0:800}"; continue; fi
    if [ "$rc" -ne 0 ] && [ -n "$stray" ]; then
      fail "$desc: $(basename "$own") exited $rc: ${stray:0:800}"; continue
    fi
    if mine=$(shared_verdict "$file"); [ -n "$mine" ]; then
      fail "$desc: ../shared/tools/$tool: ${mine:0:800}"; continue
    fi
    pass "$desc"
  done
}

# shared_each NAME FILE... : the independent validator ../shared/tools/NAME,
# when it exists, on each FILE as `NAME -q FILE`, in one interpreter
# (tests/checkers/each_file.py: its start and imports cost more than
# checking a small file). shared_verdict FILE then prints what it found
# wrong with FILE: nothing when it passed (or there is no validator).
SHARED_NAME= SHARED_OUT= SHARED_RC=0
shared_each() {
  SHARED_NAME=$1 SHARED_OUT= SHARED_RC=0; shift
  have_validator "$SHARED_NAME" || return 0
  SHARED_OUT=$($PY "$ROOT/tests/checkers/each_file.py" "$SHARED_TOOLS/$SHARED_NAME" "$@" 2>&1)
  SHARED_RC=$?
}
shared_verdict() {
  have_validator "$SHARED_NAME" || return 0
  local mine
  mine=$(awk -v p="$1: " 'index($0, p) == 1' <<<"$SHARED_OUT")
  # A run that could not check at all (exit 2, or killed) vouches for no file.
  if [ -z "$mine" ] && [ "$SHARED_RC" -gt 1 ]; then mine="exit $SHARED_RC: $SHARED_OUT"; fi
  printf '%s' "$mine"
}
