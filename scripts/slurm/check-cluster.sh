#!/usr/bin/env bash
# `make check-cluster`: convert-array.sbatch under a real one-node Slurm.
# Writes a slurm.conf for this host (proctrack/linuxproc, task/none, no
# accounting) and a munge key into a temporary directory, starts munged,
# slurmctld and slurmd from it (private ports and sockets: nothing of the
# system's configuration is used or changed), submits a 200-hub window
# split as an array job plus the dependent db2summary job, waits, checks
# the parts byte-identical to a serial run and the summary identical to
# db2summary's, and stops exactly the daemons it started.
# Needs Debian's slurmd, slurmctld, slurm-client and munge, and root (the
# daemons run as the current user, which slurm.conf names).
# Prints PASS:/FAIL: lines like tests/*.sh.
set -u
cd "$(dirname "$0")/../.."
: "${BUILD:=build}"
ROOT=$(pwd)
export PATH="$ROOT/$BUILD/bin:/usr/sbin:$PATH"
for b in munged slurmctld slurmd sbatch squeue; do
  command -v $b >/dev/null || { echo "check-cluster: $b not found (apt-get install slurmd slurmctld slurm-client munge)" >&2; exit 2; }
done
D=$(mktemp -d "${TMPDIR:-/tmp}/tt-slurm.XXXXXX")
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
stop() {
  for p in slurmd slurmctld munged; do
    [ -s "$D/$p.pid" ] && kill "$(cat "$D/$p.pid")" 2>/dev/null
  done
  sleep 1
  rm -rf "$D"
}
trap stop EXIT

host=$(hostname -s)
user=$(id -un)
port=$((20000 + RANDOM % 20000))
mkdir -p "$D/state" "$D/spool" "$D/munge" "$D/work"
chmod 700 "$D/munge"
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$D/munge/munge.key"
cat >"$D/slurm.conf" <<EOF
ClusterName=tt-check
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MaxArraySize=1001
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$D/slurm.conf"
munged --force --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
  --pid-file="$D/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/seed" ||
  { echo "check-cluster: munged did not start" >&2; exit 1; }
slurmctld -f "$SLURM_CONF" || { cat "$D/slurmctld.log" >&2; exit 1; }
slurmd -f "$SLURM_CONF" || { cat "$D/slurmd.log" >&2; exit 1; }
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
if sinfo -h -o %T | grep -q idle; then pass "a one-node Slurm is up ($host)"; else
  fail "the node never became idle: $(sinfo 2>&1)"; tail -5 "$D/slurmctld.log" "$D/slurmd.log"; exit 1; fi

# 200 hubs, a 9-window split, 4 array tasks at most 2 running, the summary afterok.
W="$D/work"
mkdir "$W/hubs" "$W/serial" "$W/array"
/usr/bin/python3 tests/data/make_rocprof_hub.py --many "$W/hubs" 200 8
db2json -q "$W"/hubs/h*.db --split window --windows 9 -o "$W/serial/run.json"
db2summary -q "$W"/hubs/h*.db -o "$W/serial/run.summary.txt"
out=$(cd "$W" && bash "$ROOT/scripts/slurm/convert-array.sbatch" --submit --tasks 4 --max-running 2 \
  db2json -q "$W"/hubs/h*.db --split window --windows 9 -o "$W/array/run.json" 2>&1)
if [[ $out =~ array\ job\ ([0-9]+).*summary\ job\ ([0-9]+) ]]; then
  array=${BASH_REMATCH[1]} summary=${BASH_REMATCH[2]}
  pass "submitted: $out"
else
  fail "submission: $out"; exit 1
fi
for _ in $(seq 300); do
  [ -z "$(squeue -h -j "$array,$summary" 2>/dev/null)" ] && break
  sleep 1
done
[ -z "$(squeue -h 2>/dev/null)" ] && pass "the array and the summary job ran to the end" ||
  fail "jobs still queued after 300 s: $(squeue 2>&1)"
a=$(cd "$W/serial" && sha256sum run.w*.json)
b=$(cd "$W/array" && sha256sum run.w*.json 2>/dev/null)
[ "$a" == "$b" ] && pass "9 parts written by 4 array tasks, byte-identical to a serial run" ||
  fail "parts differ: serial [$a] array [$b]; logs: $(cat "$W"/tt-convert-*.log 2>/dev/null | head -20)"
cmp -s "$W/serial/run.summary.txt" "$W/array/run.summary.txt" &&
  pass "the afterok summary job wrote db2summary over the same hubs" ||
  fail "summary missing or different: $(cat "$W"/tt-summary-*.log 2>/dev/null | head -5)"
logs=$(ls "$W"/tt-convert-*.log 2>/dev/null | wc -l)
[ "$logs" -eq 4 ] && pass "4 array tasks ran (one log each)" || fail "$logs task logs, expected 4"
echo
echo "check-cluster: $fails failed"
[ $fails -eq 0 ]
