#!/usr/bin/env bash
# Turns a fuzzer finding into a tests/data/bad case, once the defect is fixed:
#   scripts/fuzz-to-case.sh ARTIFACT [HARNESS]
# ARTIFACT is an input libFuzzer saved (build-fuzz/artifacts/<harness>-crash-
# ..., -leak-, -timeout-); HARNESS defaults to the part of its name before
# the first '-'. The input (for the exporter harnesses: the hub their event
# stream builds, via $BUILD/fuzz/stream_hub, repacked in 1 KiB pages) is
# copied to tests/data/bad/fuzz/<harness>-<sha1:8>.<ext>, the tool of $BUILD/bin
# is run on it as the harness runs it, and one line
#   bad TOOL[,OPTIONS] NAME EXIT PATTERN copy_of "$BAD/fuzz/NAME"
# is appended to tests/data/bad/fuzz.cases, with the exit code it gave and its
# first message as the expected place. A tool that still crashes (signal,
# sanitizer report, 120 s timeout) gives no case: fix it first.
# Environment: BUILD (build), FUZZ_CASES_DIR (tests/data/bad: where fuzz.cases
# and fuzz/ go), TT_BIN (the tools' directory, $BUILD/bin).
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
: "${BUILD:=build}" "${FUZZ_CASES_DIR:=$ROOT/tests/data/bad}"
BIN="${TT_BIN:-$ROOT/$BUILD/bin}"
die() { echo "fuzz-to-case: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: fuzz-to-case.sh ARTIFACT [HARNESS]"
art=$1
[ -f "$art" ] || die "$art: no such file"
harness=${2:-$(basename "$art")}
harness=${harness%%-*}
# How each harness runs its tool: TOOL[,OPTIONS] and the input's extension.
case $harness in
  fuzz_kineto2db) spec=kineto2db ext=json ;;
  fuzz_etprof2db_legacy) spec=etprof2db,--format,legacy,--lenient,--summary ext=bin ;;
  fuzz_etprof2db_etdump) spec=etprof2db,--format,etdump,--lenient,--summary ext=etdp ;;
  fuzz_rpd2db) spec=rpd2db ext=rpd ;;
  fuzz_nvvp2db) spec=nvvp2db ext=nvvp ;;
  fuzz_nsys2db) spec=nsys2db ext=sqlite ;;
  fuzz_db2json | fuzz_db2perfetto | fuzz_db2otf2) spec=${harness#fuzz_} ext=db ;;
  *) die "$harness: not a harness of fuzz/ (fuzz_<tool>[_<part>])" ;;
esac
tool=${spec%%,*}
IFS=, read -ra opts <<<"${spec#"$tool"}"
[ -x "$BIN/$tool" ] || die "$BIN/$tool: not built (make all)"

sha=$(sha1sum "$art" | cut -c1-8)
name="${harness#fuzz_}-$sha.$ext"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tt-fuzz-case.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/in" "$tmp/out"
if [ "$ext" = db ]; then
  "$ROOT/$BUILD/fuzz/stream_hub" "$art" "$tmp/hub.db" || die "$art: stream_hub wrote no hub"
  # The same rows in small pages: a few KiB to commit instead of 600.
  sqlite3 -batch "$tmp/hub.db" "PRAGMA page_size=1024; VACUUM;" || die "repacking the hub failed"
  cp "$tmp/hub.db" "$tmp/in/$name"
else
  cp "$art" "$tmp/in/$name"
fi

out="$tmp/out/out.$(case $tool in db2json) echo json ;; db2perfetto) echo pftrace ;; db2otf2) echo otf2 ;; *) echo db ;; esac)"
timeout 120 "$BIN/$tool" "${opts[@]:1}" "$tmp/in/$name" -o "$out" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 124 ] || [ $rc -ge 128 ] || grep -qE 'Sanitizer|runtime error:' "$tmp/err"; then
  head -n 20 "$tmp/err" >&2
  die "$tool still fails on $art (exit $rc): fix it first, then make the case"
fi
# The expected place: the first line naming the input, from the file name
# on, cut to 100 characters and escaped as a bash regex.
msg=$(grep -m1 -F "$name" "$tmp/err" | sed "s|.*$name||" | cut -c1-100)
pattern=""
[ -n "$msg" ] && pattern=$(printf '%s' "$msg" | sed 's/[][\.*^$+?(){}|/]/\\&/g')

mkdir -p "$FUZZ_CASES_DIR/fuzz"
cp "$tmp/in/$name" "$FUZZ_CASES_DIR/fuzz/$name"
cases="$FUZZ_CASES_DIR/fuzz.cases"
[ -f "$cases" ] || printf '%s\n' "# Inputs the fuzzers (fuzz/, make fuzz) found defects with, each made a case" \
  "# by scripts/fuzz-to-case.sh once fixed. Sourced by tests/tools/test_bad_inputs.sh." >"$cases"
grep -qF " $name " "$cases" && die "$name: already a case in $cases"
printf 'bad %s %s %s %q copy_of "$BAD/fuzz/%s"\n' "$spec" "$name" "$rc" "$pattern" "$name" >>"$cases"
echo "fuzz-to-case: $cases: $(tail -n 1 "$cases")" >&2
