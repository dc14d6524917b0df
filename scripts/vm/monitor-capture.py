#!/usr/bin/env python3
"""Captures the kernel's Bluetooth monitor channel to a btsnoop file, decoding nothing.

    monitor-capture.py FILE [--rcvbuf BYTES]

What `btmon -w FILE` writes (btsnoop, datalink 2001 "Linux monitor"), without btmon's decoder: BlueZ 5.66's btmon
decodes every record even with -w, falls behind under TCG, and crashes in its ATT decoder on some of our
sessions (SIGSEGV, in privacy-capture on both tries). Runs until SIGTERM or SIGINT, then flushes and exits 0.
The drops field is 0: the monitor channel does not say what the kernel dropped, so a reader checks coverage itself
(privacy-capture.py does).
"""
import ctypes
import os
import select
import signal
import socket
import struct
import sys
import time

AF_BLUETOOTH = 31
BTPROTO_HCI = 1
HCI_DEV_NONE = 0xFFFF
HCI_CHANNEL_MONITOR = 2
BTSNOOP_MAGIC = b"btsnoop\x00"
BTSNOOP_VERSION = 1
BTSNOOP_MONITOR = 2001
# Microseconds from 0000-01-01 to 1970-01-01, btsnoop's epoch.
BTSNOOP_EPOCH_DELTA = 0x00DCDDB30F2F8000


class SockaddrHCI(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("dev", ctypes.c_ushort), ("channel", ctypes.c_ushort)]


def open_monitor(rcvbuf):
    """The monitor socket's descriptor. Plain libc calls: Python's socket object asks the kernel for the socket's
    name, which an HCI monitor socket does not have (EBADFD)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(AF_BLUETOOTH, socket.SOCK_RAW | socket.SOCK_CLOEXEC, BTPROTO_HCI)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)")
    if rcvbuf:
        # SO_RCVBUFFORCE (root) goes past net.core.rmem_max; a burst of notifications then waits in the socket
        # instead of being dropped while this process is descheduled.
        value = ctypes.c_int(rcvbuf)
        for option in (33, socket.SO_RCVBUF):   # SO_RCVBUFFORCE, then SO_RCVBUF
            if libc.setsockopt(fd, socket.SOL_SOCKET, option, ctypes.byref(value), ctypes.sizeof(value)) == 0:
                break
    address = SockaddrHCI(AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_MONITOR)
    if libc.bind(fd, ctypes.byref(address), ctypes.sizeof(address)) != 0:
        raise OSError(ctypes.get_errno(), "bind(HCI_CHANNEL_MONITOR)")
    return fd


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    path = args[0]
    rcvbuf = 32 << 20
    if len(args) == 3 and args[1] == "--rcvbuf":
        rcvbuf = int(args[2])
    fd = open_monitor(rcvbuf)
    stop = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.append(True))
    with open(path, "wb") as out:
        out.write(BTSNOOP_MAGIC + struct.pack(">II", BTSNOOP_VERSION, BTSNOOP_MONITOR))
        out.flush()
        records = 0
        while not stop:
            try:
                ready, _, _ = select.select([fd], [], [], 0.25)   # so a SIGTERM is seen while the air is quiet
                if not ready:
                    continue
                packet = os.read(fd, 65536 + 6)
            except InterruptedError:
                continue
            if len(packet) < 6:
                continue
            opcode, index, length = struct.unpack_from("<HHH", packet)
            payload = packet[6:6 + length]
            stamp = int(time.time() * 1_000_000) + BTSNOOP_EPOCH_DELTA
            flags = (index << 16) | opcode
            out.write(struct.pack(">IIIIq", len(payload), len(payload), flags, 0, stamp) + payload)
            records += 1
            if records % 64 == 0:
                out.flush()
        out.flush()
    print(f"monitor-capture: {records} records in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
