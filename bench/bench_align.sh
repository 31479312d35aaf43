#!/usr/bin/env bash
# --align at scale (issue 38): BENCH_ALIGN_HOSTS (default 125) hosts of 8
# ranks each, one rocprofv3-shaped hub per rank (tests/data/gen_multinode.py,
# boot clocks hours to days apart), exported by db2json with --align
# collectives against --align none, taking turns, under `ulimit -n 1024`.
# Targets: the aligned export within 1.2x the unaligned one's time, and
# its peak RSS within 256 MB at 1000 hubs (issue 13's bound for one stream);
# every host placed within the collectives' end skew (the report's line).
set -eu
cd "$(dirname "$0")/.."
source bench/lib.sh
HOSTS=${BENCH_ALIGN_HOSTS:-125}
DIR="$WORK/align_${HOSTS}x8"
if [ ! -s "$DIR/truth.json" ]; then
  echo "bench_align: writing $((HOSTS * 8)) hubs into $DIR..." >&2
  $PY tests/data/gen_multinode.py "$DIR" --hosts "$HOSTS" --ranks-per-host 8 --formats rocprof \
    --max-drift-ppm 50
fi
HUBS=("$DIR"/rocprof/rank*.db)
events=$($PY -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t["events_per_rank"]["rocprof_kernels"] * len(sys.argv[2:]))' \
  "$DIR/truth.json" "${HUBS[@]}")
alternate sh -c 'ulimit -n 1024; exec "$@"' sh "$BIN/db2json" -q --align collectives "${HUBS[@]}" -o "$WORK/align.json" --- \
  sh -c 'ulimit -n 1024; exec "$@"' sh "$BIN/db2json" -q --align none "${HUBS[@]}" -o "$WORK/align.none.json"
printf '%-40s %8s %12s\n' "${#HUBS[@]} hubs on $HOSTS hosts" seconds "peak RSS MB"
printf '%-40s %8s %12s\n' "db2json --align collectives" "$A_S" "$((A_KIB / 1024))"
printf '%-40s %8s %12s\n' "db2json --align none" "$B_S" "$((B_KIB / 1024))"
skew=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives"]["max_end_skew_ns"])' "$DIR/truth.json")
$PY tests/checkers/align_truth.py "$DIR/truth.json" rocprof "$DIR/rocprof" "$WORK/align.json" "$skew" |
  $PY -c 'import json,sys; d=json.load(sys.stdin); print("largest error of a host: %d ns (bound %d ns)" % (max(d["max_error_ns"].values()), d["bound_ns"]))'
bench_row "db2json --align collectives" "${#HUBS[@]} hubs, $HOSTS hosts" "$events" "$A_S" 0 "$A_KIB" \
  "$(ratio "$A_S" "$B_S")" '<=' 1.2 "x --align none time"
bench_row "db2json --align collectives" "${#HUBS[@]} hubs, $HOSTS hosts" "$events" "$A_S" 0 "$A_KIB" \
  "$((A_KIB / 1024))" '<=' 256 "MB peak RSS"
rm -f "$WORK/align.json" "$WORK/align.none.json"
