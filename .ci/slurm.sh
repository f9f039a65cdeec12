#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm tests of issue 25
# (bench-suite/tests/slurm_cluster.rs), and the test run against it.
#
#   bash .ci/slurm.sh test   install, start, run the Slurm test (SSALAB_SLURM_TEST=1), stop
#   bash .ci/slurm.sh up     install and start; prints the SLURM_CONF to export
#   bash .ci/slurm.sh down   stop the daemons
#
# It installs Debian's slurm-wlm and munge with apt-get when they are missing, and writes
# every file under $SSALAB_SLURM_STATE (default /tmp/ssalab-slurm): a munge key and socket,
# and a slurm.conf for one node (this host, 2 CPUs) on ports 16817/16818. No system
# configuration is touched: the clients find the cluster through SLURM_CONF, and the daemons
# run as root (CI runs as root). SSALAB_SLURM_SCHEDULER_PARAMETERS, when set, becomes the
# SchedulerParameters line (the overhead measurement of docs/slurm.md uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
state=${SSALAB_SLURM_STATE:-/tmp/ssalab-slurm}
conf="$state/slurm.conf"
host=$(hostname -s)

install() {
  if command -v sbatch >/dev/null && command -v slurmctld >/dev/null \
     && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    return
  fi
  echo "slurm: installing slurm-wlm and munge"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge >/dev/null
}

write_conf() {
  mkdir -p "$state/ctld" "$state/d"
  chmod 700 "$state"
  cat > "$conf" <<CONF
ClusterName=ssalab
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge.sock
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MaxArraySize=100001
MaxJobCount=200000
MinJobAge=30
KillWait=5
${SSALAB_SLURM_SCHEDULER_PARAMETERS:+SchedulerParameters=$SSALAB_SLURM_SCHEDULER_PARAMETERS}
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

start_munge() {
  if [ ! -f "$state/munge.key" ]; then
    dd if=/dev/urandom of="$state/munge.key" bs=1024 count=1 status=none
    chmod 400 "$state/munge.key"
  fi
  munged --force --key-file="$state/munge.key" --socket="$state/munge.sock" \
    --pid-file="$state/munged.pid" --log-file="$state/munged.log" --seed-file="$state/munge.seed"
}

up() {
  install
  down quiet
  write_conf
  start_munge
  export SLURM_CONF="$conf"
  slurmctld -f "$conf"
  slurmd -f "$conf" -N "$host"
  # Wait for the node to be idle (up to 60 s).
  for _ in $(seq 120); do
    if [ "$(sinfo -h -N -o %t 2>/dev/null | head -1)" = idle ]; then
      echo "slurm: node $host idle; export SLURM_CONF=$conf"
      return
    fi
    sleep 0.5
  done
  echo "slurm: the node did not become idle" >&2
  sinfo -N -l >&2 || true
  tail -20 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
  return 1
}

# Stops the daemons started by `up` (by their pid files).
down() {
  if [ -f "$conf" ] && [ "${1:-}" != quiet ]; then
    SLURM_CONF="$conf" scancel --user=root >/dev/null 2>&1 || true
  fi
  for d in slurmd slurmctld munged; do
    local pidfile="$state/$d.pid"
    if [ -f "$pidfile" ]; then
      local pid
      pid=$(cat "$pidfile")
      if kill "$pid" 2>/dev/null; then
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      fi
      rm -f "$pidfile"
    fi
  done
  [ "${1:-}" = quiet ] || echo "slurm: stopped"
}

case "${1:-test}" in
  up) up ;;
  down) down ;;
  test)
    up
    trap down EXIT
    SLURM_CONF="$conf" SSALAB_SLURM_TEST=1 \
      cargo test --release -p ssalab --test slurm_cluster -- --test-threads=1 --nocapture
    ;;
  *) echo "usage: bash .ci/slurm.sh [test|up|down]" >&2; exit 2 ;;
esac
