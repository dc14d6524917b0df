#!/usr/bin/env python3
"""The private Ethernet of run-pair.sh --lan: a hub on Unix datagram sockets.

    lan-hub.py DIR A B ...

Binds DIR/hub.sock; each VM's qemu (-netdev dgram) sends its Ethernet frames there from DIR/<machine>.sock, and the
hub passes each frame to every other machine's socket, as a hub (or a switch that never learns) would. A frame for a
machine whose socket is not there yet, or whose queue is full, is dropped, as on a wire: TCP resends. Nothing is
routed and nothing leaves this machine.
"""
import os
import socket
import sys


def main() -> int:
    folder, machines = sys.argv[1], sys.argv[2:]
    hub = os.path.join(folder, "hub.sock")
    peers = [os.path.join(folder, m + ".sock") for m in machines]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(hub)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.setblocking(True)
    print(f"lan-hub: ready for {' '.join(machines)}", flush=True)
    frames = dropped = 0
    while True:
        data, source = s.recvfrom(65536)
        frames += 1
        for peer in peers:
            if peer == source:
                continue
            try:
                s.sendto(data, socket.MSG_DONTWAIT, peer)
            except (FileNotFoundError, ConnectionRefusedError, BlockingIOError):
                dropped += 1
        if frames % 100000 == 0:
            print(f"lan-hub: {frames} frames, {dropped} dropped", flush=True)


if __name__ == "__main__":
    sys.exit(main())
