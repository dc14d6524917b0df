#!/usr/bin/env python3
"""Counts the ACL data PDUs of one btsnoop capture (`btmon -r`), for make bench-ble.

    bench/ble-pdus.py FILE.btsnoop [--from hci0]

Prints one line: `acl_pdus=N acl_bytes=B max_dlen=D notifications=K lecoc_frames=F`, where the ACL counts are
the ACL Data TX packets of the sending controller (default hci0, the source), `max_dlen` the largest such
packet, `notifications` the ATT Handle Value Notifications it sent and `lecoc_frames` the LE credit-based
K-frames. The minimum for the link is ceil(acl_bytes / max_dlen): every PDU full.
"""
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path = args[0]
    sender = args[args.index("--from") + 1] if "--from" in args else "hci0"
    try:
        text = subprocess.run(["btmon", "-r", path, "-T"], capture_output=True, text=True, timeout=300,
                              env={"COLUMNS": "250", "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"ble-pdus: cannot read {path} with btmon: {error}", file=sys.stderr)
        return 1
    acl = acl_bytes = max_dlen = notifications = frames = 0
    in_tx = False
    tx = re.compile(r"^< ACL Data TX:.*?dlen (\d+)\s+#\d+ \[" + re.escape(sender) + r"\]")
    for line in text.splitlines():
        if line.startswith("<") or line.startswith(">") or line.startswith("@") or line.startswith("="):
            found = tx.match(line)
            in_tx = found is not None
            if found:
                dlen = int(found.group(1))
                acl += 1
                acl_bytes += dlen
                max_dlen = max(max_dlen, dlen)
            continue
        if not in_tx:
            continue
        stripped = line.strip()
        if stripped.startswith("ATT: Handle Value Notification"):
            notifications += 1
        elif "LE Flow Control" in stripped or "LE Credit" in stripped and "Channel:" in stripped:
            frames += 1
    print(f"acl_pdus={acl} acl_bytes={acl_bytes} max_dlen={max_dlen} notifications={notifications} "
          f"lecoc_frames={frames}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
