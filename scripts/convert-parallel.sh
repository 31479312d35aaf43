#!/usr/bin/env bash
# convert-parallel.sh [-j JOBS] TOOL [TOOL OPTIONS] DB... -o OUTPUT --split MODE ...
#
# Writes every part of an exporter's split as separate jobs running in
# parallel on this machine: GNU parallel when installed, else xargs -P.
# Each job is the same command line plus --part K, so the parts are the
# files a serial run writes, byte for byte. JOBS defaults to the number of
# processors. The number of parts is asked of the tool itself (it names it
# when --part is out of range). Exits non-zero when any part failed; a
# failed part leaves no file (every tool writes under a temporary name).
set -euo pipefail

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case $1 in
    -j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) usage 0 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
case $jobs in ''|*[!0-9]*) echo "convert-parallel.sh: -j: not a count: '$jobs'" >&2; exit 2 ;; esac
tool=$1
shift
split=0
for a in "$@"; do
  case $a in --split|--split=*|--max-part-size|--max-part-size=*) split=1 ;; --part|--part=*)
    echo "convert-parallel.sh: give the split, not --part: every part is run" >&2; exit 2 ;;
  esac
done
[ $split -eq 1 ] || { echo "convert-parallel.sh: $tool needs --split process|window or --max-part-size" >&2; exit 2; }

# The tool says how many parts there are when asked for one beyond them.
probe=$("$tool" "$@" -q --part 999999999 2>&1 >/dev/null) && true
if [[ $probe =~ the\ split\ has\ ([0-9]+) ]]; then
  parts=${BASH_REMATCH[1]}
else
  echo "$probe" >&2
  echo "convert-parallel.sh: $tool did not say how many parts the split has" >&2
  exit 1
fi
[ "$parts" -gt 0 ] || { echo "convert-parallel.sh: the split has no parts" >&2; exit 1; }

if command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  # -q: the arguments are passed as they are (no shell re-splitting);
  # --halt now,fail=1: the first failure stops the others.
  seq 0 $((parts - 1)) | parallel -q --will-cite --halt now,fail=1 -j "$jobs" "$tool" "$@" --part '{}'
else
  seq 0 $((parts - 1)) | xargs -P "$jobs" -I{} "$tool" "$@" --part {}
fi
