#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for CI and for trying the
# `rocesim sweep --slurm` path without a cluster.
#
#   scripts/slurm-local.sh start              install Slurm + munge from Debian's packages
#                                             if missing, start munged, slurmctld and slurmd,
#                                             wait until the node is idle
#   scripts/slurm-local.sh run SCRIPT.sbatch  submit a (job-array) batch script, wait for it,
#                                             print each task's state and exit code; non-zero
#                                             exit if any task did not complete with 0
#   scripts/slurm-local.sh selftest           run a 4-task array, check each task's output
#   scripts/slurm-local.sh status             sinfo + squeue
#   scripts/slurm-local.sh stop               stop the daemons this script started, remove
#                                             its state directory
#   scripts/slurm-local.sh is-up              exit 0 if slurmctld and slurmd are running
#   scripts/slurm-local.sh env                print `export SLURM_CONF=...` for running
#                                             sinfo/sbatch/squeue by hand
#
# Needs root (apt-get, munge key, daemons). No systemd: the daemons run in the
# background with their pid files and logs in the state directory. No cgroups:
# proctrack/linuxproc and task/none, so it works where cgroups cannot be set up.
#
# Environment:
#   SLURM_LOCAL_DIR       state directory (default /tmp/rocesim-slurm): slurm.conf, logs,
#                         pid files, StateSaveLocation, SlurmdSpoolDir
#   SLURM_LOCAL_TIMEOUT   seconds `run` waits for the job before cancelling it (default 1800)
#   SLURM_LOCAL_START_TIMEOUT  seconds `start` waits for the node to be idle (default 60)
set -euo pipefail

STATE=${SLURM_LOCAL_DIR:-/tmp/rocesim-slurm}
CONF=$STATE/slurm.conf
RUN_TIMEOUT=${SLURM_LOCAL_TIMEOUT:-1800}
START_TIMEOUT=${SLURM_LOCAL_START_TIMEOUT:-60}
NODE=$(hostname -s)
export SLURM_CONF=$CONF

say() { echo "slurm-local: $*" >&2; }
die() {
    say "ERROR: $*"
    exit 1
}

need_root() {
    [ "$(id -u)" = 0 ] || die "must run as root (apt-get, munge key, Slurm daemons)"
}

# ---------------------------------------------------------------- install

install_packages() {
    local missing=()
    command -v slurmctld >/dev/null 2>&1 || missing+=(slurmctld)
    command -v slurmd >/dev/null 2>&1 || missing+=(slurmd)
    command -v sbatch >/dev/null 2>&1 || missing+=(slurm-client)
    command -v munged >/dev/null 2>&1 || missing+=(munge)
    if [ ${#missing[@]} -eq 0 ]; then
        say "Slurm and munge already installed ($(slurmctld -V 2>/dev/null || true))"
        return
    fi
    say "installing ${missing[*]} from Debian's packages"
    # Keep the packages' maintainer scripts from starting the daemons through
    # init scripts: we start them ourselves below with our own configuration.
    local own_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        own_policy=1
    fi
    local rc=0
    {
        timeout 300 apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
                --no-install-recommends "${missing[@]}"
    } || rc=$?
    [ $own_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
    [ $rc = 0 ] || die "apt-get failed (exit $rc)"
    say "installed: $(slurmctld -V)"
}

# ---------------------------------------------------------------- munge

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    if munge_ok; then
        say "munged already running"
        return
    fi
    local key=/etc/munge/munge.key
    local user=root
    id munge >/dev/null 2>&1 && user=munge
    mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -s "$key" ]; then
        say "creating munge key $key"
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile="$key" --force
        else
            dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
        fi
    fi
    chown "$user:" /etc/munge "$key" /run/munge /var/lib/munge /var/log/munge
    chmod 700 /etc/munge
    chmod 400 "$key"
    chmod 755 /run/munge
    say "starting munged as $user"
    if [ "$user" = munge ]; then
        runuser -u munge -- munged
    else
        munged --force
    fi
    touch "$STATE/munged.ours"
    local i
    for i in $(seq 50); do
        munge_ok && {
            say "munged is up"
            return
        }
        sleep 0.2
    done
    tail -n 30 /var/log/munge/munged.log >&2 2>/dev/null || true
    die "munged did not come up"
}

# ---------------------------------------------------------------- config

write_conf() {
    local cpus mem
    cpus=$(nproc)
    # RealMemory must not exceed what slurmd measures, or the node is drained.
    mem=$(free -m | awk '/^Mem:/ {print $2}')
    mem=$((mem > 2048 ? mem - 1024 : mem / 2))
    say "writing $CONF (node $NODE: CPUs=$cpus RealMemory=$mem)"
    cat >"$CONF" <<EOF
# Generated by scripts/slurm-local.sh: a single-node cluster for CI.
ClusterName=rocesim-local
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: this must work in containers and sandboxes.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Keep finished jobs visible to "scontrol show job" for an hour (no slurmdbd).
MinJobAge=3600
MaxArraySize=100001
InactiveLimit=0
KillWait=10
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

# ---------------------------------------------------------------- daemons

# A process that is running (not a zombie waiting to be reaped).
proc_alive() {
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
pid_alive() { [ -s "$1" ] && proc_alive "$(cat "$1")"; }

show_logs() {
    local f
    for f in "$STATE/slurmctld.log" "$STATE/slurmd.log" /var/log/munge/munged.log; do
        [ -f "$f" ] || continue
        echo "----- last lines of $f" >&2
        tail -n 40 "$f" >&2
    done
}

node_state() { sinfo -h -n "$NODE" -o %T 2>/dev/null | head -n1; }

cmd_start() {
    need_root
    local t0=$SECONDS
    install_packages
    mkdir -p "$STATE/ctld" "$STATE/d"
    start_munge
    if pid_alive "$STATE/slurmctld.pid" && pid_alive "$STATE/slurmd.pid" &&
        scontrol ping 2>/dev/null | grep -q UP; then
        say "slurmctld and slurmd already running (state in $STATE)"
    else
        # Half-started or left over from an earlier run: stop what is left and
        # start from empty state (no stale jobs come back).
        stop_daemon slurmd
        stop_daemon slurmctld
        rm -rf "$STATE/ctld" "$STATE/d" "$STATE/selftest" "$STATE"/*.log
        mkdir -p "$STATE/ctld" "$STATE/d"
        write_conf
        say "starting slurmctld"
        # -i: ignore saved state that does not match (a re-run after a crash).
        slurmctld -f "$CONF" -i || {
            show_logs
            die "slurmctld failed to start"
        }
        say "starting slurmd"
        slurmd -f "$CONF" -N "$NODE" || {
            show_logs
            die "slurmd failed to start"
        }
    fi
    say "waiting up to ${START_TIMEOUT}s for node $NODE to be idle"
    local deadline=$((SECONDS + START_TIMEOUT)) st=""
    while [ $SECONDS -lt $deadline ]; do
        st=$(node_state || true)
        case "$st" in
        idle | mixed | allocated) break ;;
        esac
        if ! pid_alive "$STATE/slurmctld.pid" || ! pid_alive "$STATE/slurmd.pid"; then
            show_logs
            die "slurmctld or slurmd exited (logs above)"
        fi
        sleep 1
    done
    case "$st" in
    idle | mixed | allocated) ;;
    *)
        sinfo -N -l >&2 || true
        scontrol show node "$NODE" >&2 || true
        show_logs
        die "node $NODE is '${st:-unreachable}' after ${START_TIMEOUT}s"
        ;;
    esac
    sinfo
    say "cluster up in $((SECONDS - t0))s; SLURM_CONF=$CONF"
}

stop_daemon() {
    local name=$1 pidf=$STATE/$1.pid pid i
    [ -s "$pidf" ] || return 0
    pid=$(cat "$pidf")
    if proc_alive "$pid"; then
        say "stopping $name (pid $pid)"
        kill "$pid" 2>/dev/null || true
        for i in $(seq 100); do
            proc_alive "$pid" || break
            sleep 0.1
        done
        if proc_alive "$pid"; then
            say "$name did not stop in 10s; killing it"
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidf"
}

cmd_stop() {
    need_root
    # Jobs outlive a stopped slurmd (their slurmstepd goes on): cancel them first.
    if pid_alive "$STATE/slurmctld.pid" && pid_alive "$STATE/slurmd.pid" &&
        [ -n "$(squeue -h -o %A 2>/dev/null)" ]; then
        say "cancelling the jobs still in the queue"
        scancel -p debug 2>/dev/null || true
        for _ in $(seq 30); do
            [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    stop_daemon slurmd
    stop_daemon slurmctld
    # slurmstepd processes of cancelled jobs, if any, are children of slurmd's
    # session; they end with their jobs. Stop munged only if we started it.
    if [ -e "$STATE/munged.ours" ]; then
        local pidf=/run/munge/munged.pid pid
        if [ -s "$pidf" ]; then
            pid=$(cat "$pidf")
            say "stopping munged (pid $pid)"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do
                proc_alive "$pid" || break
                sleep 0.1
            done
            if proc_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
        fi
    fi
    if [ -d "$STATE" ]; then
        say "removing $STATE"
        rm -rf "$STATE"
    fi
    say "stopped"
}

# ---------------------------------------------------------------- run

cmd_run() {
    local script=${1:-}
    if [ -z "$script" ] || [ ! -f "$script" ]; then die "usage: $0 run SCRIPT.sbatch"; fi
    [ -f "$CONF" ] || die "no cluster: run '$0 start' first"
    local jobid rc=0
    say "submitting $script"
    jobid=$(sbatch --parsable "$script") || die "sbatch failed"
    jobid=${jobid%%;*}
    say "job $jobid submitted; waiting up to ${RUN_TIMEOUT}s"
    echo "job $jobid"
    local deadline=$((SECONDS + RUN_TIMEOUT)) n
    while :; do
        n=$(squeue -h -j "$jobid" -o %i 2>/dev/null | wc -l)
        [ "$n" = 0 ] && break
        if [ $SECONDS -ge $deadline ]; then
            say "job $jobid not done after ${RUN_TIMEOUT}s; cancelling"
            squeue -j "$jobid" >&2 || true
            scancel "$jobid" || true
            rc=1
            # Bounded wait for the cancelled tasks to be gone (KillWait=10).
            for _ in $(seq 30); do
                [ "$(squeue -h -j "$jobid" -o %i 2>/dev/null | wc -l)" = 0 ] && break
                sleep 1
            done
            break
        fi
        sleep 1
    done
    # Without slurmdbd, sacct has nothing: ask slurmctld, which keeps finished
    # jobs for MinJobAge. One line per array task.
    local lines
    lines=$(scontrol -o show job "$jobid" 2>/dev/null) || die "scontrol show job $jobid failed"
    local total=0 bad=0 line task state code rows=""
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        task=$(grep -o 'ArrayTaskId=[^ ]*' <<<"$line" | cut -d= -f2 || true)
        state=$(grep -o 'JobState=[^ ]*' <<<"$line" | cut -d= -f2)
        code=$(grep -o ' ExitCode=[^ ]*' <<<"$line" | cut -d= -f2)
        total=$((total + 1))
        rows+=$(printf 'task %-6s %-12s exit %s' "${task:--}" "$state" "$code")$'\n'
        if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
            bad=$((bad + 1))
        fi
    done <<<"$lines"
    printf '%s' "$rows" | sort -k2,2n
    echo "job $jobid: $total task(s), $((total - bad)) completed, $bad failed"
    [ $bad = 0 ] && [ $total -gt 0 ] && [ $rc = 0 ]
}

# ---------------------------------------------------------------- selftest

# A 4-task array, each writing its task id and host name; checks all four.
cmd_selftest() {
    [ -f "$CONF" ] || die "no cluster: run '$0 start' first"
    local dir=$STATE/selftest i f
    rm -rf "$dir"
    mkdir -p "$dir"
    cat >"$dir/array.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=selftest
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --output=$dir/slurm-%A_%a.out
echo "task=\$SLURM_ARRAY_TASK_ID host=\$(hostname -s)" >"$dir/result-\$SLURM_ARRAY_TASK_ID.txt"
EOF
    cmd_run "$dir/array.sbatch"
    for i in 0 1 2 3; do
        f=$dir/result-$i.txt
        [ "$(cat "$f" 2>/dev/null)" = "task=$i host=$NODE" ] ||
            die "selftest: $f is '$(cat "$f" 2>/dev/null)', expected 'task=$i host=$NODE'"
    done
    say "selftest passed: 4 array tasks ran on $NODE"
}

# ---------------------------------------------------------------- main

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
run)
    shift
    cmd_run "$@"
    ;;
selftest) cmd_selftest ;;
is-up) pid_alive "$STATE/slurmctld.pid" && pid_alive "$STATE/slurmd.pid" ;;
status)
    sinfo
    squeue
    ;;
env) echo "export SLURM_CONF=$CONF" ;;
*)
    echo "usage: $0 start|run SCRIPT.sbatch|selftest|status|stop|is-up|env" >&2
    exit 2
    ;;
esac
