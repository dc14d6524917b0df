#!/usr/bin/python3
"""Foreign advertisers for the crowded-room benchmark (bench/crowded-room.sh), inside the VM.

    crowd.py COUNT PERIOD CONTROLLER...      e.g. crowd.py 40 5 2 3 4 5 6 7 8 9 10 11 12 13 14 15

COUNT advertising identities spread round-robin over the given controller indexes (btvirt's extra controllers;
each takes up to 3 advertising sets, its limit), each with phone-like manufacturer data (company 0x004C, a
changing payload) that changes every PERIOD seconds, the updates spread evenly over the period. Everything goes
through one long-running `btmgmt` fed on stdin (MGMT Add Advertising straight to the kernel, not through
bluetoothd, so bluetoothd's CPU time is its scanning work only). Each identity is a non-connectable advertisement:
the kernel gives it a non-resolvable private address, a fresh one at every update (phones rotate theirs every 15
minutes or so, so this is harsher than a real room in that respect). Runs until SIGTERM, then removes them.
"""

import os
import random
import signal
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    count, period = int(sys.argv[1]), float(sys.argv[2])
    controllers = [int(c) for c in sys.argv[3:]]
    if count > 3 * len(controllers):
        print(f"crowd: {count} identities need {(count + 2) // 3} controllers", file=sys.stderr)
        return 2
    identities = [(controllers[i % len(controllers)], 1 + i // len(controllers)) for i in range(count)]
    mgmt = subprocess.Popen(["btmgmt"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)
    stopping = False

    def stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def send(line: str) -> None:
        mgmt.stdin.write(line + "\n")
        mgmt.stdin.flush()

    rng = random.Random(count)
    selected = None

    def advertise(controller: int, instance: int) -> None:
        nonlocal selected
        if selected != controller:
            send(f"select {controller}")
            selected = controller
        payload = bytes([0x10, 0x05]) + rng.randbytes(4)
        ad = bytes([1 + 2 + len(payload), 0xFF, 0x4C, 0x00]) + payload
        send(f"add-adv -d {ad.hex()} {instance}")

    for controller, instance in identities:
        advertise(controller, instance)
    print(f"crowd: {count} identities on controllers {sorted(set(c for c, _ in identities))}", flush=True)
    updates = 0
    step = period / count if count else period
    while not stopping:
        for controller, instance in identities:
            if stopping:
                break
            time.sleep(step)
            advertise(controller, instance)
            updates += 1
        if not identities:
            time.sleep(period)
    for controller in sorted(set(c for c, _ in identities)):
        send(f"select {controller}")
        send("clr-adv")
    send("quit")
    try:
        mgmt.stdin.close()
        mgmt.wait(timeout=5)
    except Exception:
        mgmt.kill()
    print(f"crowd: stopped after {updates} updates", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
