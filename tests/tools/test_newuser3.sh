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
