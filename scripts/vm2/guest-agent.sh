#!/usr/bin/env bash
# Inside a two-machine test VM (scripts/vm2/run-pair.sh), as handoff-agent.service: runs the commands the host
# leaves in the 9p share "run". Not for a real machine: whoever writes to that share is root in the VM.
#
# Protocol, all files in the share's cmd/ folder:
#   host writes N.sh, then N.go          the agent runs `bash N.sh` as root, in the background (several at once),
#                                        stdin /dev/null, stdout+stderr to N.out, then writes the status to N.rc
#   the agent writes ../agent-up         guest uptime when it started (the host waits for it)
#   host writes ../poweroff              the agent saves the journal to ../journal.txt and powers the VM off
set -uo pipefail
# A unit's environment has no HOME; the commands run as root would in a login shell.
export HOME=/root USER=root LOGNAME=root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
share=/run/handoff-host
mkdir -p "$share"
mountpoint -q "$share" || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 run "$share" \
    || { echo "handoff-vm-agent: cannot mount the 9p share 'run'" >&2; exit 1; }
mkdir -p "$share/cmd"
cut -d' ' -f1 /proc/uptime >"$share/agent-up.tmp" && mv "$share/agent-up.tmp" "$share/agent-up"
declare -A started=()
while :; do
    for go in "$share"/cmd/*.go; do
        [[ -e "$go" ]] || continue
        n=${go%.go}
        [[ -n "${started[$n]:-}" || -e "$n.rc" ]] && continue
        started[$n]=1
        ( cd /root && bash "$n.sh" </dev/null >"$n.out" 2>&1; echo $? >"$n.rc.tmp"; mv "$n.rc.tmp" "$n.rc" ) &
    done
    if [[ -e "$share/poweroff" ]]; then
        journalctl -b --no-pager -o short-monotonic >"$share/journal.txt" 2>&1
        sync
        systemctl poweroff --force
        sleep 30
    fi
    sleep 0.2
done
