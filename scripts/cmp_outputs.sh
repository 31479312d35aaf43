#!/usr/bin/env bash
# cmp_outputs.sh OLD_BIN NEW_BIN HUB...: runs every exporter of both builds
# (e.g. main's build/bin and a branch's) on each hub with each option set
# (plain, --no-args, window split, one window, process split, a time range,
# category and name filters, size splits) and on all hubs at once (the
# same, aligned or not, and read in passes under a small descriptor
# limit), and compares the
# outputs byte for byte (an OTF2 archive's anchor file, which records its
# creation time, excepted). Prints each difference; exits 1 if any.
# A speed change to the reader or an exporter must leave every output as it was.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_BIN NEW_BIN HUB..." >&2; exit 2; }
A=$1 B=$2; shift 2
O=$(mktemp -d "${TMPDIR:-/tmp}/tt-cmp.XXXXXX")
trap 'rm -rf "$O"' EXIT
mkdir -p "$O/a" "$O/b"
same=0 differ=0
run() { # TOOL TAG ARGS...
  local tool=$1 tag=$2 ext=.json
  shift 2
  case $tool in db2perfetto) ext=.pftrace ;; db2otf2) ext=.otf2 ;; db2summary) ext=.txt ;; esac
  local bin
  for bin in a b; do
    local dir=$A
    [ $bin = b ] && dir=$B
    ( [ -z "${LIMIT:-}" ] || ulimit -n "$LIMIT"
      exec "$dir/$tool" -q "$@" -o "$O/$bin/$tag$ext" ) >"$O/$bin/$tag.stdout" 2>"$O/$bin/$tag.err"
    echo $? >>"$O/$bin/$tag.err"
  done
  if diff -r -x traces.otf2 "$O/a" "$O/b" >/dev/null; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFF $tool $*${LIMIT:+ (ulimit -n $LIMIT)}"
  fi
  rm -rf "$O"/a/* "$O"/b/*
}
for tool in db2json db2perfetto db2summary db2otf2; do
  for h in "$@"; do
    n=$(basename "$h" .db)
    run $tool "$n" "$h"
    run $tool "$n" "$h" --no-args
    run $tool "$n" "$h" --split window --windows 5
    run $tool "$n" "$h" --split window --windows 5 --part 2
    run $tool "$n" "$h" --split process
    run $tool "$n" "$h" --start 20% --end 70%
    run $tool "$n" "$h" --category 'kernel*' --category '*api*' --category 'cuda*'
    run $tool "$n" "$h" --exclude-category 'kernel*'
    run $tool "$n" "$h" --name '*a*'
    # The size split (db2summary writes no parts): one CPU and two, a part
    # alone, a range and a filter, which each plan and write their stream.
    if [ $tool != db2summary ]; then
      run $tool "$n" "$h" --max-part-size 16K
      run $tool "$n" "$h" --max-part-size 16K --threads 1
      run $tool "$n" "$h" --max-part-size 16K --part 1
      run $tool "$n" "$h" --max-part-size 12K --start 10% --end 80%
      run $tool "$n" "$h" --max-part-size 8K --gpu
    fi
  done
  if [ $# -gt 1 ]; then
    for LIMIT in "" 24; do # 24 descriptors: read in passes
      run $tool all "$@"
      run $tool all "$@" --align none
      run $tool all "$@" --split window --windows 3
      run $tool all "$@" --split process
      if [ $tool != db2summary ]; then
        run $tool all "$@" --max-part-size 64K
        run $tool all "$@" --max-part-size 64K --threads 1
      fi
    done
    LIMIT=
  fi
done
echo "cmp_outputs: $same same, $differ differ"
[ "$differ" = 0 ]
