#!/usr/bin/env bash
# demo_once.sh SHARED: scripts/demo.sh run once into SHARED/demo (its log in
# SHARED/demo.log, its exit code in SHARED/demo.rc) for every test of one
# tests/run.sh run that reads the demo's output (lib.sh's demo_run): a
# caller that finds the run under way waits for it (flock) and runs nothing.
set -u
shared=$1
cd "$(dirname "$0")/../.." || exit 1
exec 9>"$shared/demo.lock"
flock 9
if [ ! -f "$shared/demo.rc" ]; then
  OUT="$shared/demo" BUILD="${BUILD:-build}" bash scripts/demo.sh >"$shared/demo.log" 2>&1
  echo $? >"$shared/demo.rc"
fi
