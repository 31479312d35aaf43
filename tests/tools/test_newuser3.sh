#!/usr/bin/env bash
# What a new user meets, round 3 (issue 45 items 8-11: progress and
# messages). Expected values come from the inputs (sqlite3, gzip, stat) or
# from the options the tools' --help lists, never from the tool under test.
# Progress is looked at through a pseudo-terminal (util-linux script(1)):
# content only, no timing.
source "$(dirname "$0")/lib.sh"
TOOLS="kineto2db etprof2db rpd2db nvvp2db nsys2db dbmerge db2json db2perfetto db2otf2 db2summary"
NSYS="$FIX/nsys"

# --- 10. a misspelled option: one line, the nearest option, see --help -------
for t in $TOOLS; do
  err=$($t --outptu x.db in 2>&1 >"$TMP/stdout"); rc=$?
  expect_eq "$t --outptu: exit 2, one line naming --output and --help" \
    "2 $t: error: unknown option '--outptu': did you mean --output? (see $t --help)" "$rc $err"
  expect_eq "$t --outptu: nothing on stdout" "0" "$(stat -c %s "$TMP/stdout")"
done
for t in db2summary etprof2db; do
  "$t" --help | grep -q -- '--format' || fail "$t --help lists no --format"
  expect_eq "$t --formt: did you mean --format?" \
    "$t: error: unknown option '--formt': did you mean --format? (see $t --help)" \
    "$($t --formt csv x 2>&1)"
done
expect_eq "db2json --formt: no option is that close, no guess" \
  "db2json: error: unknown option '--formt' (see db2json --help)" "$(db2json --formt x 2>&1)"
expect_eq "--formt=csv: the name without its value" \
  "db2summary: error: unknown option '--formt': did you mean --format? (see db2summary --help)" \
  "$(db2summary --formt=csv x 2>&1)"
expect_eq "an ambiguous abbreviation lists what it abbreviates" \
  "db2summary: error: option '--s' is ambiguous: --split, --start (see db2summary --help)" \
  "$(db2summary --s x 2>&1)"
expect_eq "a value given to an option that takes none" \
  "nsys2db: error: option '--progress' takes no value (see nsys2db --help)" \
  "$(nsys2db --progress=1 x 2>&1)"
expect_eq "a missing value" \
  "db2json: error: option '--windows' requires an argument (see db2json --help)" \
  "$(db2json x --windows 2>&1)"
expect_eq "an unknown short option, inside a cluster too" \
  "rpd2db: error: unknown option '-Z' (see rpd2db --help)|rpd2db: error: unknown option '-Z' (see rpd2db --help)" \
  "$(rpd2db -Z x 2>&1)|$(rpd2db --progress -Zq x 2>&1)"

# --- 11. nsys2db: one line for the tables not imported, details with -v ------
# The tables nsys2db reads (docs/importers.md), lookups (ENUM_*) aside;
# every other non-empty table of a real export is one that is not imported.
READ="StringIds ThreadNames PROCESSES TARGET_INFO_GPU TARGET_INFO_CUDA_STREAM
  TARGET_INFO_CUDA_NULL_STREAM TARGET_INFO_SESSION_START_TIME TARGET_INFO_SYSTEM_ENV
  EXPORT_META_DATA META_DATA_EXPORT ANALYSIS_DETAILS NVTX_EVENTS OSRT_API PROFILER_OVERHEAD
  TARGET_INFO_CUDA_GPU TARGET_INFO_NVTX_CUDA_STREAM CUPTI_ACTIVITY_KIND_RUNTIME
  CUPTI_ACTIVITY_KIND_DRIVER CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_MEMCPY
  CUPTI_ACTIVITY_KIND_MEMSET CUPTI_ACTIVITY_KIND_SYNCHRONIZATION CUPTI_ACTIVITY_KIND_CUDA_EVENT
  CUPTI_ACTIVITY_KIND_OVERHEAD COMPOSITE_EVENTS SAMPLING_CALLCHAINS OSRT_CALLCHAINS
  UnwindMethodType"
left_out() { # FILE: "TABLE ROWS" for each non-empty table nsys2db does not read
  local t n
  for t in $(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                     AND name NOT LIKE 'ENUM\_%' ESCAPE '\\' ORDER BY name"); do
    [[ " $(echo $READ) " == *" $t "* ]] && continue
    n=$(q "$1" "SELECT count(*) FROM \"$t\"")
    [ "$n" -gt 0 ] && echo "$t $n"
  done
}
for f in "$NSYS"/*.sqlite; do
  b=$(basename "$f")
  want=$(left_out "$f")
  [ -n "$want" ] || { fail "$b: the fixture has no table left out (the test needs one)"; continue; }
  err=$(nsys2db "$f" -o "$TMP/n.db" 2>&1)
  lines=$(grep -c 'not imported' <<<"$err")
  expect_eq "$b: one line for the tables not imported" "1" "$lines"
  line=$(grep 'not imported' <<<"$err")
  expect_eq "$b: it counts them" "$(wc -l <<<"$want") tables not imported" \
    "$(grep -o '[0-9]* tables not imported' <<<"$line")"
  missing=""
  for t in $(cut -d' ' -f1 <<<"$want"); do [[ "$line" =~ [\(\ ]$t[,\)] ]] || missing="$missing $t"; done
  expect_eq "$b: it names each of them" "" "$missing"
  [[ "$line" =~ "--verbose for each table's rows" ]] && pass "$b: it points to --verbose" || fail "$b: [$line]"
  # --verbose: a line per table, with its row count from sqlite3
  got=$(nsys2db --verbose "$f" -o "$TMP/n.db" 2>&1 | sed -n 's/.*: table \([A-Za-z_0-9]*\) (\([0-9]*\) rows*[,)].*has no hub mapping.*/\1 \2/p')
  expect_eq "$b --verbose: a line per table left out, with its rows" "$want" "$got"
  expect_eq "$b -v is --verbose" "$(nsys2db --verbose "$f" -o "$TMP/n.db" 2>&1)" "$(nsys2db -v "$f" -o "$TMP/n.db" 2>&1)"
  expect_eq "$b -q -v: nothing" "" "$(nsys2db -q -v "$f" -o "$TMP/n.db" 2>&1)"
done
f="$NSYS/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
expect_eq "what the tables hold is said (the 2022.2 export)" \
  "nsys2db: warning: $f: 3 tables not imported (no place in the hub): call stacks of CUDA calls (CUDA_CALLCHAINS); thread scheduling (SCHED_EVENTS); the processes' stdout and stderr (ProcessStreams); --verbose for each table's rows" \
  "$(nsys2db "$f" -o "$TMP/n.db" 2>&1 | grep 'not imported')"

# --- 9. files that are not what their name says -----------------------------
NSY="$NSYS/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
RPD="$FIX/rocm/rpd_matmul_result.rpd"
# said CMD...: "EXIT STDERR" (each distinct line once: dbmerge says an
# unreadable input twice, once per pass over its inputs)
said() { local out rc; out=$("$@" 2>&1 >/dev/null); rc=$?; echo "$rc $(sort -u <<<"$out")"; }
mkdir -p "$TMP/in"; cd "$TMP/in" || exit 1
gzip -c "$NSY" >n.sqlite.gz
gzip -c "$RPD" >r.rpd.gz
# what the gzip holds, said by sqlite3 on the unpacked copy (not the tool)
gunzip -c n.sqlite.gz >check.sqlite
expect_eq "the gzipped fixture is an nsys export (sqlite3: StringIds, no rocpd_api)" "1 0" \
  "$(q check.sqlite "SELECT count(*) FILTER (WHERE name = 'StringIds') || ' ' || count(*) FILTER (WHERE name = 'rocpd_api') FROM sqlite_master WHERE type = 'table'")"
for t in nsys2db rpd2db kineto2db nvvp2db; do
  expect_eq "$t on a gzipped nsys export: says to gunzip it, then nsys2db (exit 1)" \
    "1 $t: error: n.sqlite.gz: this is a gzipped Nsight Systems SQLite export: gunzip it first (gunzip -c n.sqlite.gz > n.sqlite), then give n.sqlite to nsys2db" \
    "$(said $t n.sqlite.gz -o o.db)"
done
err=$(nsys2db n.sqlite.gz -o o.db 2>&1); rc=$?
expect_eq "nsys2db on a gzipped export: exit 1, no rpd2db named" "1 no" "$rc $([[ $err == *rpd2db* ]] && echo yes || echo no)"
expect_eq "... and no output" "" "$(ls o.db 2>/dev/null)"
expect_ok "rpd2db still reads an .rpd.gz" rpd2db -q r.rpd.gz -o r.db
expect_eq "nsys2db on an .rpd.gz: use rpd2db" \
  "nsys2db: error: r.rpd.gz: this is a gzipped RPD (rocmProfileData) database, not an input of nsys2db: use rpd2db" \
  "$(nsys2db r.rpd.gz -o o.db 2>&1)"
expect_eq "db2json on a gzipped nsys export: gunzip, then nsys2db" \
  "db2json: error: n.sqlite.gz: not a SQLite database: this is a gzipped Nsight Systems SQLite export: gunzip it first (gunzip -c n.sqlite.gz > n.sqlite), then give n.sqlite to nsys2db" \
  "$(db2json n.sqlite.gz -o o.json 2>&1)"
# a gzipped hub and a gzipped nvprof database: named for what they hold
kineto2db -q "$FIX/kineto/hta_backward_thread.json" -o hub.db && gzip -k hub.db
gzip -c "$FIX/nvprof/rasolca_output_file.nvprof" >v.nvprof.gz
expect_eq "the gzipped hub and nvprof fixtures hold rocpd_event and StringTable (sqlite3)" "1 1" \
  "$(q hub.db "SELECT count(*) > 0 FROM sqlite_master WHERE name GLOB 'rocpd_event*'") $(q "$FIX/nvprof/rasolca_output_file.nvprof" "SELECT count(*) FROM sqlite_master WHERE name = 'StringTable'")"
expect_eq "db2json on a gzipped hub: gunzip it, then the exporters" \
  "db2json: error: hub.db.gz: not a SQLite database: this is a gzipped rocpd hub database: gunzip it first (gunzip -c hub.db.gz > hub.db), then give hub.db to db2json, db2perfetto, db2otf2 or db2summary" \
  "$(db2json hub.db.gz -o o.json 2>&1)"
expect_eq "nvvp2db on a gzipped nvprof database: gunzip it, then nvvp2db" \
  "1 nvvp2db: error: v.nvprof.gz: this is a gzipped nvprof database: gunzip it first (gunzip -c v.nvprof.gz > v.nvprof), then give v.nvprof to nvvp2db" \
  "$(said nvvp2db v.nvprof.gz -o o.db)"
# A .nsys-rep report. SYNTHETIC: NVIDIA does not publish the report's
# layout and no public report's first bytes could be checked for this
# test, so its shape is only "not SQLite, gzip or JSON", the name telling
# what it is (which is what the tools go by).
printf 'SYNTHETIC nsys-rep stand-in: not SQLite\0\1\2\3' >run.nsys-rep
for t in nsys2db kineto2db rpd2db nvvp2db etprof2db; do
  expect_eq "$t on a .nsys-rep: the nsys export command (exit 1)" \
    "1 $t: error: run.nsys-rep: this is an Nsight Systems report (.nsys-rep): export it with \`nsys export --type sqlite -o run.sqlite run.nsys-rep\`, then nsys2db run.sqlite" \
    "$(said $t run.nsys-rep -o o.db)"
done
expect_eq "db2summary on a .nsys-rep: the same advice" \
  "db2summary: error: run.nsys-rep: not a SQLite database: this is an Nsight Systems report (.nsys-rep): export it with \`nsys export --type sqlite -o run.sqlite run.nsys-rep\`, then nsys2db run.sqlite" \
  "$(db2summary run.nsys-rep 2>&1)"
cp run.nsys-rep renamed.sqlite
expect_eq "nsys2db on a report renamed .sqlite: the export command as a hint" \
  "nsys2db: error: renamed.sqlite: not a SQLite database (byte 0: no SQLite header); if it is an Nsight Systems report (.nsys-rep) renamed, export it with \`nsys export --type sqlite -o X.sqlite renamed.sqlite\`, then nsys2db X.sqlite" \
  "$(nsys2db renamed.sqlite -o o.db 2>&1)"
: >empty.sqlite
for t in $TOOLS; do
  expect_eq "$t on an empty file: is empty (0 bytes), exit 1" "1 $t: error: empty.sqlite: is empty (0 bytes)" \
    "$(said $t empty.sqlite -o o.out)"
done
expect_eq "nothing written for any of them" "" "$(ls o.* 2>/dev/null)"
cd "$ROOT" || exit 1

# --- 8. progress: phases, totals, units, never inside stdout -----------------
GEN="$ROOT/$BUILD/bench/gen_hub"
"$GEN" "$TMP/big.db" 60000 1 >/dev/null
# The rows the exporters read, by sqlite3: every event table of the hub.
rows=$(q "$TMP/big.db" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch)
  + (SELECT count(*) FROM rocpd_memory_copy) + (SELECT count(*) FROM rocpd_memory_allocate) + (SELECT count(*) FROM rocpd_sample)")
# render FILE: the lines as a terminal shows them (a carriage return moves
# back to column 0, later text overwrites earlier), trailing blanks cut.
render() {
  $PY -c '
import sys
for raw in open(sys.argv[1], "rb").read().decode("utf-8", "replace").split("\n"):
    buf, cur = [], 0
    for ch in raw:
        if ch == "\r": cur = 0; continue
        if cur < len(buf): buf[cur] = ch
        else: buf.append(ch)
        cur += 1
    print("".join(buf).rstrip())' "$1"
}
if command -v script >/dev/null; then
  # db2summary with stdout and stderr on one terminal (a pty from script(1))
  script -qc "db2summary --progress '$TMP/big.db' --top 3" /dev/null >"$TMP/pty.raw" </dev/null
  db2summary -q "$TMP/big.db" --top 3 >"$TMP/plain.txt"
  grep -q "rows (" "$TMP/pty.raw" && pass "db2summary on a terminal drew progress" || fail "no progress drawn: $(head -c 300 "$TMP/pty.raw" | cat -A)"
  render "$TMP/pty.raw" | grep -v '^$' >"$TMP/pty.txt"
  expect_eq "db2summary on a terminal: the summary reads as without one (no progress text in its lines)" \
    "$(grep -v '^$' "$TMP/plain.txt")" "$(grep -v '^db2summary: ' "$TMP/pty.txt")"
  expect_eq "... and its first line starts the terminal line" "$(head -1 "$TMP/plain.txt")" "$(head -1 "$TMP/pty.txt")"
  expect_eq "... the progress total is the hub's rows (sqlite3)" "of $rows rows" \
    "$(grep -o "of [~0-9]* rows" "$TMP/pty.raw" | head -1)"
else
  fail "script(1) (util-linux) is needed to give the tools a terminal"
fi
err=$(db2json --progress "$TMP/big.db" -o "$TMP/a.json" 2>&1 >/dev/null)
expect_eq "an unfiltered export: the exact total, no ~" "of $rows rows" "$(grep -o "of [~0-9]* rows" <<<"$err" | head -1)"
expect_eq "... ending at every row read" "db2json: $rows rows (100%)" "$(tr '\r' '\n' <<<"$err" | grep -o "^db2json: [0-9]* rows (100%)")"
err=$(db2json --progress "$TMP/big.db" --category 'kernel*' -o "$TMP/a.json" 2>&1 >/dev/null)
expect_eq "a filtered export: the total is an estimate (~)" "of ~$rows rows" "$(grep -o "of [~0-9]* rows" <<<"$err" | head -1)"
err=$(db2json --progress --threads 1 "$TMP/big.db" --max-part-size 4M -o "$TMP/s.json" 2>&1 >/dev/null)
phases=$(tr '\r' '\n' <<<"$err" | sed -n 's/^db2json: \(planning\|balancing\|writing\): .*/\1/p' | uniq | xargs)
expect_eq "a size split names its passes, in order" "planning balancing writing" "$phases"
expect_eq "... the writing pass ends at every row" "db2json: writing: $rows rows (100%)" \
  "$(tr '\r' '\n' <<<"$err" | grep -o "^db2json: writing: [0-9]* rows (100%)")"
f="$FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
mb=$(stat -c %s "$f" | awk '{printf "%.1f", $1 / 1e6}')
err=$(kineto2db --progress "$f" -o "$TMP/k.db" 2>&1)
expect_eq "import progress in MB of the file's size (stat)" "of $mb MB (" "$(grep -o "of [0-9.]* MB (" <<<"$err" | head -1)"
[[ "$err" =~ [0-9]{6,}\ bytes ]] && fail "import progress still in raw bytes: [$err]" || pass "no raw byte counts in the import progress"
