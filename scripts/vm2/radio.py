#!/usr/bin/env python3
"""The shared emulated LE radio of the two-machine VM tier (scripts/vm2/run-pair.sh).

    radio.py [--acl-length N] [--log FILE] SOCKET...

One Bumble controller (bumble.controller.Controller) per SOCKET, all on one bumble.link.LocalLink, so that what one
controller advertises the others scan, and LE connections (ACL: L2CAP signalling, ATT/GATT, SMP, LE credit-based
channels) go from one to another. Each SOCKET is a Unix socket this process listens on; a VM's serial line
(qemu -chardev socket,path=SOCKET) connects to it and the guest attaches it with `btattach -P h4`. H4 framing.
Controller i gets the public address F0:F0:F0:F0:F0:<i+1>. Prints "radio: ready" once every socket listens.
Nothing leaves this machine: Unix sockets only.
"""
import argparse
import asyncio
import collections
import fcntl
import logging
import os
import signal
import struct
import sys
import termios

from bumble import core, hci, ll
from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport import open_transport


class Link(LocalLink):
    """LocalLink whose LE ACL data names the sender by the address of the connection it belongs to.

    Bumble 0.0.236's LocalLink.send_acl_data gives every LE ACL packet the sender controller's *random*
    address as source. BlueZ connects with its public address (Privacy off), so the receiving controller, which
    keys its connections by the peer's address, finds no connection for 00:00:00:00:00:00 and drops the packet
    ("!!! no connection for 00:00:00:00:00:00"): the link comes up but no ATT, SMP or L2CAP byte crosses it.
    """

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport != core.PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        connection = sender_controller.le_connections.get(destination_address)
        destination = self.find_le_controller(destination_address)
        if connection is None or destination is None:
            logging.getLogger("radio").warning("LE ACL to %s dropped: no connection/controller", destination_address)
            return
        source = connection.self_address
        asyncio.get_running_loop().call_soon(lambda: destination.on_link_acl_data(source, transport, data))

    def send_advertising_pdu(self, sender_controller, packet):
        """A CONNECT_IND reaches its advertiser at once, not on the loop's next turn: the advertiser takes it (or not)
        before any other central decides on the same advertisement (SpecController.create_le_connection)."""
        if isinstance(packet, ll.ConnectInd):
            advertiser = self.find_le_controller(packet.advertiser_address)
            if advertiser is not None and advertiser is not sender_controller:
                advertiser.on_ll_advertising_pdu(packet)
            return
        super().send_advertising_pdu(sender_controller, packet)


class SpecController(Controller):
    """Controller whose Reset, LE Create Connection Cancel and connection events do what the Core spec says (Vol 4,
    Part E, 7.3.2, 7.8.13 and 7.7.65.10).

    Bumble 0.0.236 answers a cancel SUCCESS and does nothing else: the attempt stays pending in the controller, and no
    LE Connection Complete (Unknown Connection Identifier) follows, which is the kernel's only sign that the attempt
    is over. The kernel then keeps its connection in BT_CONNECT and refuses every later LE connect with EBUSY
    (bluetoothd: "bt_io_connect(...): Device or resource busy", D-Bus: "Failed: Input/output error") for as long as
    16 s, and the stale attempt may still complete later as a connection nobody asked for. Here a cancel ends the
    pending attempt and reports it; with none pending it is Command Disallowed, as the spec says.
    """

    # LE event mask bit 9: LE Enhanced Connection Complete (Core Vol 4, Part E, 7.8.1).
    ENHANCED_CONNECTION_COMPLETE = 1 << 9
    # The connection handle given last (allocate_connection_handle); each controller's own once it gives one.
    last_handle = 0
    # Data a peer's host has not been given yet, above which this controller's host hears of no more of its own
    # packets completed (send_hci_packet).
    PEER_BACKLOG_LIMIT = 8192
    # Number Of Completed Packets events held back (send_hci_packet); each controller's own once it holds one.
    held_completions = ()

    def send_hci_packet(self, packet):
        """Sends LE Enhanced Connection Complete where the host unmasked it, as the Core spec says (Vol 4, Part E,
        7.7.65.10: when both are unmasked, only the enhanced event is sent). Bumble 0.0.236 always sends the legacy
        LE Connection Complete. Linux 6.12 unmasks the enhanced one on a controller with extended advertising and
        waits for exactly that event after LE Create Connection: it took the legacy one as the link (so the link
        worked), but its connect command ran on until the 20 s connection timeout, then sent a cancel the
        controller refused with Command Disallowed ("Opcode 0x200e failed: -16"). Every connect a Debian 13 VM made
        took about 22 s: the 24-29 s pairings the laptop started on trixie."""
        if isinstance(packet, hci.HCI_Number_Of_Completed_Packets_Event) and (self.held_completions or self.peer_backlogged(packet)):
            self.hold_completion(packet)
            return None
        if isinstance(packet, hci.HCI_LE_Connection_Complete_Event) and self.le_event_mask & self.ENHANCED_CONNECTION_COMPLETE:
            none = hci.Address("00:00:00:00:00:00")
            packet = hci.HCI_LE_Enhanced_Connection_Complete_Event(
                status=packet.status, connection_handle=packet.connection_handle, role=packet.role,
                peer_address_type=packet.peer_address_type, peer_address=packet.peer_address,
                local_resolvable_private_address=none, peer_resolvable_private_address=none,
                connection_interval=packet.connection_interval, peripheral_latency=packet.peripheral_latency,
                supervision_timeout=packet.supervision_timeout, central_clock_accuracy=packet.central_clock_accuracy)
        return super().send_hci_packet(packet)

    def peer_backlogged(self, packet):
        """Whether the host at the other end of a connection `packet` (Number Of Completed Packets) names still has
        more than PEER_BACKLOG_LIMIT bytes of data waiting in its HostLine.

        A real controller reports a packet completed once the peer's link layer acknowledged it, so a host can
        send no faster than the radio carries, and what it sent and is not yet across waits in its own kernel,
        where the sender sees it. Bumble reports every packet completed at once: the sending host took the whole
        transfer to be out in a moment (its writes all returned) while the data queued here for the receiving VM's
        slow UART, and its stall check (no progress for 8 s while waiting for the receiver's DONE) gave up on
        shares that were still arriving (flow-cross, Debian 13, 2026-12-07: 256 KiB shares 'stopped answering'
        with every byte delivered). Held back while the peer's host is behind, the completions pace the sender
        at the receiving host's rate, as a radio does."""
        for handle in packet.connection_handles:
            connection = self.find_connection_by_handle(handle)
            peer = self.link.find_le_controller(connection.peer_address) if connection and self.link else None
            if peer is not None and isinstance(peer.host, HostLine) and peer.host.held() > self.PEER_BACKLOG_LIMIT:
                return True
        return False

    def hold_completion(self, packet):
        if not self.held_completions:
            self.held_completions = collections.deque()
            asyncio.get_running_loop().call_later(0.002, self.release_completions)
        self.held_completions.append(packet)

    def release_completions(self):
        """Sends the held completions, in order, while their peers keep up; checks again 2 ms later otherwise."""
        while self.held_completions and not self.peer_backlogged(self.held_completions[0]):
            Controller.send_hci_packet(self, self.held_completions.popleft())
        if self.held_completions:
            asyncio.get_running_loop().call_later(0.002, self.release_completions)
        else:
            self.held_completions = ()

    def allocate_connection_handle(self):
        """The handle after the last one given, skipping those in use (Core Vol 4, Part E, 5.3.1 leaves the choice to
        the controller). Bumble 0.0.236 gives the lowest free one, so a link that closed had its handle reused by
        the next at once; Linux removes a closed link's device (hci0:N in sysfs) from a workqueue, and a connection
        completing under the same handle before that ran failed ("sysfs: cannot create duplicate filename
        .../hci0:1", "failed to register connection device"). The kernel's half-made link then kept every
        Device1.Connect to that peer "already in progress" for the rest of the run (flow-attack on trixie, the
        stranger dropped and back every few seconds, 2026-12-07)."""
        in_use = {connection.handle for connection in self.le_connections.values()}
        for step in range(1, 0xEFF + 1):
            handle = (self.last_handle + step - 1) % 0xEFF + 1
            if handle not in in_use:
                self.last_handle = handle
                return handle
        raise RuntimeError("no free connection handle")

    def create_le_connection(self, peer_address):
        """Connects only when the advertiser takes the connection. Bumble 0.0.236 reports the connection complete to
        its host as soon as it has sent CONNECT_IND, whether the advertiser took it or not; an advertiser takes one and
        stops advertising (Core Vol 6, Part B, 4.4.2), so when several centrals heard the same advertisement each
        reported a connection and only the first had one. In the nine-VM run six of eight receivers so held links the
        laptop never knew ("services … did not resolve within 20.0 seconds"). Here a central whose peer is no longer
        advertising connectably keeps initiating, as a real one does, and connects at its next advertisement."""
        advertiser = self.link.find_le_controller(peer_address) if self.link else None
        if advertiser is None or not advertises_connectably(advertiser, peer_address):
            return
        super().create_le_connection(peer_address)

    def on_hci_reset_command(self, command):
        """A reset drops this controller's links, as a real one's does: Bumble 0.0.236 keeps them (a TODO), so when
        a VM's controller is detached and attached again (`systemctl stop/start handoff-hci`, a dongle unplugged and
        back) the peer kept a link to a host that no longer knew it, and its next connects failed with EBUSY. The
        peers are told as they would be after the supervision timeout (Connection Timeout); a pending connect
        attempt ends with the reset.

        It also ends scanning and advertising (Core Vol 4, Part E, 7.3.2: the controller returns to its state after
        power-on). Bumble kept `le_scan_enable` set across a reset, so a controller attached again while its last
        host had it scanning refused the new host's LE Set Scan Parameters with Command Disallowed: the kernel logged
        "Opcode 0x200b failed: -16", every MGMT Start Discovery failed, and bluetoothd answered each StartDiscovery
        with `InProgress` (seen as "cannot scan on hci1" after a dongle came back under another index)."""
        self.le_scan_enable = False
        self.le_legacy_advertiser.stop()
        for advertising_set in self.advertising_sets.values():
            advertising_set.stop()
        self.advertising_sets.clear()
        for connection in list(self.le_connections.values()):
            peer = self.link.find_le_controller(connection.peer_address) if self.link else None
            peer_connection = peer.le_connections.get(connection.self_address) if peer else None
            if peer_connection is not None:
                peer.on_le_disconnected(peer_connection, hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR)
        self.le_connections.clear()
        self.pending_le_connection = None
        if isinstance(self.host, HostLine):
            self.host.data.clear()  # data of links the reset ended
        self.held_completions = ()  # their links are gone
        return super().on_hci_reset_command(command)

    def on_hci_le_create_connection_cancel_command(self, _command):
        pending = self.pending_le_connection
        if pending is None:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
        self.pending_le_connection = None
        event = hci.HCI_LE_Connection_Complete_Event(
            status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR, connection_handle=0,
            role=hci.Role.CENTRAL, peer_address_type=pending.peer_address.address_type,
            peer_address=pending.peer_address, connection_interval=0, peripheral_latency=0,
            supervision_timeout=0, central_clock_accuracy=0)
        # Sent after the Command Complete, which the dispatcher makes of the value returned here.
        asyncio.get_running_loop().call_soon(lambda: self.send_hci_packet(event))
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)


def advertises_connectably(controller, address):
    """Whether `controller` advertises as `address` now, as Controller.on_le_connect_ind decides whom it accepts."""
    legacy = controller.le_legacy_advertiser
    if legacy.address == address and legacy.enabled:
        return True
    return any(s.address == address and s.enabled for s in controller.advertising_sets.values())


class HostLine:
    """What a controller sends its host, with events ahead of data, as on a USB controller (Core Vol 4, Part B, 2.1:
    events on the interrupt endpoint, ACL data on the bulk endpoints, so neither waits for the other).

    A VM's host interface is an emulated UART, which under TCG drains at about the rate an LE link carries data
    (170 kB/s measured). Bumble writes everything for a host into one socket in order, so while a peer streamed a
    share to this VM, up to a socket buffer of ACL data (about 200 KiB, over a second) queued ahead of every event:
    the guest's commands timed out ("command 0x2039 tx timeout", "Opcode 0x200c failed: -110"), a connection
    completed after the kernel had given up on it ("ACL packet for unknown connection handle 1"), and a continue
    made while the other machine shared to this one took 18-22 s (flow-cross, trixie, 2026-12-07). A real
    controller's host interface is far faster than its radio, so no such queue forms there. Here data is held in
    this process and written only while less than `backlog` bytes wait unread in the socket; events go at once.
    L2CAP's credits bound what is held (the receiving kernel grants them as it reads). A Disconnection Complete waits
    behind the data, so no link's last packets arrive after the host was told it is gone."""

    DISCONNECTION_COMPLETE = 0x05

    def __init__(self, sink, backlog=2048):
        self.sink = sink
        self.backlog = backlog
        self.data = collections.deque()
        self.pumping = False

    def on_packet(self, packet):
        in_order = packet[0] == hci.HCI_ACL_DATA_PACKET or (
            packet[0] == hci.HCI_EVENT_PACKET and packet[1] == self.DISCONNECTION_COMPLETE)
        if in_order and (self.data or packet[0] == hci.HCI_ACL_DATA_PACKET):
            self.data.append(packet)
            if not self.pumping:
                self.pump()
        else:
            self.sink.on_packet(packet)

    def held(self):
        """Bytes of data held here for the host, not yet written to its socket."""
        return sum(len(packet) for packet in self.data)

    def unread(self, transport):
        sock = transport.get_extra_info("socket")
        queued = transport.get_write_buffer_size()
        if sock is None:
            return queued
        try:
            raw = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0))
        except OSError:
            return queued
        return queued + struct.unpack("i", raw)[0]

    def pump(self):
        self.pumping = False
        transport = self.sink.transport
        if transport is None:
            self.data.clear()   # no host attached: dropped, as the sink does with everything
            return
        while self.data and self.unread(transport) < self.backlog:
            self.sink.on_packet(self.data.popleft())
        if self.data and not self.pumping:
            self.pumping = True
            asyncio.get_running_loop().call_later(0.001, self.pump)


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--acl-length", type=int, default=251,
                    help="LE ACL data packet length the controllers announce (Bumble's default is 27)")
    ap.add_argument("sockets", nargs="+")
    args = ap.parse_args()

    link = Link()
    transports = []
    for i, path in enumerate(args.sockets):
        if os.path.exists(path):
            os.unlink(path)
        transport = await open_transport(f"unix-server:{path}")
        transports.append(transport)
        c = SpecController(f"C{i}", host_source=transport.source, host_sink=HostLine(transport.sink), link=link,
                       public_address=f"F0:F0:F0:F0:F0:{i + 1:02X}")
        c.le_acl_data_packet_length = args.acl_length
        c.supported_max_tx_octets = c.supported_max_rx_octets = min(args.acl_length, 251)
        c.suggested_max_tx_octets = min(args.acl_length, 251)
    print(f"radio: ready, {len(args.sockets)} controllers, LE ACL length {args.acl_length}", flush=True)

    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    await stop
    for t in transports:
        await t.close()
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("BUMBLE_LOGLEVEL", "WARNING").upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    sys.exit(asyncio.run(main()))
