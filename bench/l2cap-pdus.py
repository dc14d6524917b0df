#!/usr/bin/env python3
"""Counts LE data PDUs in a btmon capture: ACL packets and L2CAP K-frames of LE credit-based channels, against the
minimum the link's MPS and LE ACL packet length allow.

    bench/l2cap-pdus.py FILE [--from T0] [--to T1] [--json]

FILE is a btsnoop file in btmon's monitor format (`btmon -w`, the VM's scenarios/NAME.btsnoop). It is parsed
directly (btmon 5.66's own `-r` segfaults decoding ATT Read By Type requests, see Docs/l2cap.md). --from/--to
(Unix epoch seconds, e.g. `date +%s.%N` inside the VM; btsnoop records carry the same wall clock) limit the count
to the records between two marks; channels opened before --from are still known, since the whole file is read.
--psm keeps one PSM's channels (bluetoothd's own EATT channels use 0x0027).

For each LE CoC channel (from the LE Credit Based Connection Request/Response on the LE signalling channel) and
each direction that carried data, it prints one line:

    channel hci1->hci0 psm 0x0080 cid 0x0040->0x0041 mtu 65535 mps 247: sdus 256 bytes 1048576 kframes 4352
        (min 4250, x1.02) acl 4352 (min 4352, acl_len 251) credits 40

- kframes: K-frames (L2CAP PDUs) the sender transmitted; min = sum over SDUs of ceil((len + 2) / MPS), the
  2-byte SDU length riding in the first K-frame; x = kframes / min (1.00: no wasted frame).
- acl: the sender's ACL data packets for that channel's K-frames; min = sum of ceil((kframe + 4) / acl_len)
  with the controller's LE ACL data packet length (LE Read Buffer Size).
- credits: LE Flow Control Credit packets the receiver sent back.
- notifications: ATT Handle Value Notifications among those SDUs (the GATT path over EATT), and their value bytes.
- INCOMPLETE capture: K-frames that cannot follow the ones before (an SDU longer than the MTU, a K-frame longer than
  the MPS or than what its SDU still lacks): btmon lost packets (under TCG its socket buffer overflows), so the
  counts of that flow are low. kframes below min says the same.

ATT on the fixed channel (CID 0x0004, the GATT path without EATT) gets a line of its own per sender, its PDUs
counted as K-frames are (each B-frame one PDU, min = PDUs), with the ATT MTU the Exchange MTU agreed:

    channel hci0->hci1 att cid 0x0004 mtu 517: pdus 40 notifications 38 (bytes 19000) acl 120 (min 120, ...)

Only what the sender's controller transmitted is counted (the TX side of its index), so the twin RX record of the
same packet on the other index is not counted twice. --json prints a list of objects with the same fields.
--btmon-safe writes a copy of FILE without those ATT requests, which `btmon -r` then reads to the end.
Exit status: 0, or 2 for an unreadable or non-monitor file. Its own check: python3 bench/test_l2cap_pdus.py.
"""

import argparse
import json
import struct
import sys

EPOCH_OFFSET_US = 0x00DCDDB30F2F8000  # btsnoop: microseconds since 0000-01-01; this is 1970-01-01

OP_NEW_INDEX, OP_DEL_INDEX, OP_COMMAND, OP_EVENT, OP_ACL_TX, OP_ACL_RX = 0, 1, 2, 3, 4, 5


def records(path):
    data = open(path, "rb").read()
    if len(data) < 16 or data[:8] != b"btsnoop\0":
        raise ValueError(f"{path}: not a btsnoop file")
    version, datalink = struct.unpack(">II", data[8:16])
    if datalink != 2001:
        raise ValueError(f"{path}: datalink {datalink}, expected 2001 (btmon's monitor format)")
    offset = 16
    while offset + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        body = data[offset + 24:offset + 24 + included]
        if len(body) < included:
            break  # a capture cut mid-record (btmon killed): keep what is whole
        offset += 24 + included
        yield (stamp - EPOCH_OFFSET_US) / 1e6, flags >> 16, flags & 0xFFFF, body


EATT_PSM = 0x0027


def notifications(att):
    """The notifications in one ATT PDU and their value bytes: Handle Value Notification (0x1B: opcode, handle,
    value) or Multiple Handle Value Notification (0x23: opcode, then handle, length, value per tuple), which
    bluetoothd 5.66 sends over EATT to batch what a server notified at once."""
    if att[:1] == b"\x1b" and len(att) >= 3:
        return 1, len(att) - 3
    if att[:1] != b"\x23":
        return 0, 0
    count = value = 0
    pos = 1
    while pos + 4 <= len(att):
        length = struct.unpack("<H", att[pos + 2:pos + 4])[0]
        count, value, pos = count + 1, value + min(length, len(att) - pos - 4), pos + 4 + length
    return count, value


class Channel:
    def __init__(self, index, handle, psm, scid, mtu, mps):
        self.index, self.handle, self.psm = index, handle, psm
        self.scid, self.mtu, self.mps = scid, mtu, mps  # the requester's: its CID, what it can receive
        self.dcid = None
        self.peer_mtu = self.peer_mps = None


class Flow:
    """What one sender transmitted on one channel (its destination CID) within the window."""

    def __init__(self, label, psm, cids, mtu, mps):
        self.label, self.psm, self.cids, self.mtu, self.mps = label, psm, cids, mtu, mps
        self.sdus = self.sdu_bytes = self.kframes = self.min_kframes = 0
        self.acl = self.min_acl = self.credits = 0
        self.remaining = 0  # bytes of the current SDU still to come
        self.index = None  # the sender's controller
        self.pdu_sizes = []  # each K-frame with its L2CAP header, for the ACL minimum
        self.acl_len = 27
        self.notifications = self.notified_bytes = 0  # ATT Handle Value Notifications among the SDUs
        self.sdu = None  # the EATT SDU being reassembled (its ATT PDU)
        self.desync = 0  # K-frames that cannot follow the ones before: the capture lost some

    def line(self):
        if self.psm == 0:  # the fixed ATT channel
            return (f"channel {self.label} att cid 0x0004 mtu {self.mtu}: pdus {self.kframes} notifications "
                    f"{self.notifications} (bytes {self.notified_bytes}) acl {self.acl} (min {self.min_acl}, "
                    f"acl_len {self.acl_len})")
        ratio = self.kframes / self.min_kframes if self.min_kframes else 0
        return (f"channel {self.label} psm 0x{self.psm:04x} cid 0x{self.cids[0]:04x}->0x{self.cids[1]:04x} "
                f"mtu {self.mtu} mps {self.mps}: sdus {self.sdus} bytes {self.sdu_bytes} kframes {self.kframes} "
                f"(min {self.min_kframes}, x{ratio:.2f}) acl {self.acl} (min {self.min_acl}, acl_len {self.acl_len}) "
                f"credits {self.credits} notifications {self.notifications} (bytes {self.notified_bytes})"
                + (f" INCOMPLETE capture: {self.desync} K-frame(s) out of step" if self.desync else ""))


def count(path, start=None, end=None, acl_override=None, psm=None):
    names = {}  # index -> hciN
    acl_len = {}  # index -> LE ACL data packet length (LE Read Buffer Size, at controller bring-up)
    largest = {}  # index -> the largest ACL fragment sent: the packet length when the capture missed bring-up
    pending = {}  # (index, handle, ident) -> Channel awaiting its response
    channels = []
    by_cid = {}  # (index, handle, cid this index sends to) -> (Channel, Flow)
    partial = {}  # (index, direction, handle) -> [expected, bytes]
    flows = []
    att_mtu = {}  # (handle) -> [client MTU, server MTU] from ATT Exchange MTU on the fixed channel
    att_flows = {}  # (index, handle) -> Flow of ATT PDUs that index sent on CID 0x0004

    def flow_for(index, handle, cid):
        return by_cid.get((index, handle, cid))

    def signalling(index, direction, handle, payload):
        # LE signalling: code, ident, length, data (several commands may share a PDU).
        pos = 0
        while pos + 4 <= len(payload):
            code, ident, length = payload[pos], payload[pos + 1], struct.unpack("<H", payload[pos + 2:pos + 4])[0]
            body = payload[pos + 4:pos + 4 + length]
            pos += 4 + length
            if code == 0x14 and len(body) >= 10 and direction == OP_ACL_TX:  # LE Credit Based Connection Request
                psm, scid, mtu, mps, _ = struct.unpack("<HHHHH", body[:10])
                pending[(handle, ident)] = Channel(index, handle, psm, scid, mtu, mps)
            elif code == 0x15 and len(body) >= 10 and direction == OP_ACL_TX:  # ... Response, sent by the acceptor
                dcid, mtu, mps, _, result = struct.unpack("<HHHHH", body[:10])
                channel = pending.pop((handle, ident), None)
                if channel is None or result != 0:
                    continue
                channel.dcid, channel.peer_mtu, channel.peer_mps = dcid, mtu, mps
                channels.append(channel)
                requester, acceptor = channel.index, index
                # The requester sends to the acceptor's CID with the acceptor's MTU/MPS, and the other way round.
                up = Flow(f"{names.get(requester, requester)}->{names.get(acceptor, acceptor)}", channel.psm,
                          (channel.scid, dcid), mtu, mps)
                down = Flow(f"{names.get(acceptor, acceptor)}->{names.get(requester, requester)}", channel.psm,
                            (dcid, channel.scid), channel.mtu, channel.mps)
                by_cid[(requester, handle, dcid)] = (channel, up)
                by_cid[(acceptor, handle, channel.scid)] = (channel, down)
                flows.extend([up, down])
            elif code == 0x16 and len(body) >= 4 and direction == OP_ACL_TX and counting:  # LE Flow Control Credit
                cid = struct.unpack("<H", body[:2])[0]
                # The credit names the sender's own CID; the flow it feeds is the one towards that CID.
                for (idx, hdl, dest), (_, flow) in by_cid.items():
                    if hdl == handle and idx != index and dest == cid:
                        flow.credits += 1

    counting = False
    for stamp, index, opcode, body in records(path):
        counting = (start is None or stamp >= start) and (end is None or stamp <= end)
        if opcode == OP_NEW_INDEX and len(body) >= 16:
            names[index] = body[8:16].split(b"\0")[0].decode(errors="replace")
        elif opcode == OP_EVENT and len(body) >= 2:
            code = body[0]
            if code == 0x0E and len(body) >= 6:  # Command Complete
                op = struct.unpack("<H", body[3:5])[0]
                if op in (0x2002, 0x2060) and body[5] == 0 and len(body) >= 8:  # LE Read Buffer Size [v2]
                    acl_len[index] = struct.unpack("<H", body[6:8])[0]
        elif opcode in (OP_ACL_TX, OP_ACL_RX) and len(body) >= 4:
            header, length = struct.unpack("<HH", body[:4])
            handle, boundary = header & 0x0FFF, (header >> 12) & 0x3
            data = body[4:4 + length]
            if opcode == OP_ACL_TX:
                largest[index] = max(largest.get(index, 0), length)
            key = (index, opcode, handle)
            if boundary != 0x1:  # the start of an L2CAP PDU
                if len(data) < 4:
                    continue
                pdu_len = struct.unpack("<H", data[:2])[0]
                partial[key] = [pdu_len + 4, bytearray(data), 1]
            elif key in partial:
                partial[key][1] += data
                partial[key][2] += 1
            else:
                continue
            expected, pdu, fragments = partial[key]
            if len(pdu) < expected:
                continue
            del partial[key]
            cid = struct.unpack("<H", pdu[2:4])[0]
            payload = bytes(pdu[4:expected])
            if cid == 0x0005:
                signalling(index, opcode, handle, payload)
                continue
            if opcode != OP_ACL_TX:
                continue
            if cid == 0x0004 and payload:  # ATT on the fixed channel
                if payload[0] in (0x02, 0x03) and len(payload) >= 3:  # Exchange MTU Request / Response
                    att_mtu.setdefault(handle, [23, 23])[payload[0] - 2] = struct.unpack("<H", payload[1:3])[0]
                if not counting:
                    continue
                flow = att_flows.get((index, handle))
                if flow is None:
                    others = [name for idx, name in names.items() if idx != index]
                    peer = others[0] if len(others) == 1 else "peer"  # two controllers: the other one
                    flow = Flow(f"{names.get(index, index)}->{peer}", 0, (0x0004, 0x0004), 23, 0)
                    att_flows[(index, handle)] = flow
                    flows.append(flow)
                flow.mtu = min(att_mtu.get(handle, [23, 23])) if handle in att_mtu else 23
                flow.kframes += 1
                flow.min_kframes += 1
                flow.acl += fragments
                flow.index = index
                flow.pdu_sizes.append(expected)
                notified, value = notifications(payload)
                flow.notifications += notified
                flow.notified_bytes += value
                continue
            found = flow_for(index, handle, cid)
            if found is None:
                continue
            _, flow = found
            if flow.remaining == 0:  # the first K-frame of an SDU: its length first
                if len(payload) < 2:
                    continue
                sdu_len = struct.unpack("<H", payload[:2])[0]
                if counting and (sdu_len > flow.mtu or len(payload) - 2 > sdu_len or len(payload) > flow.mps):
                    flow.desync += 1
                flow.remaining = sdu_len - (len(payload) - 2)
                flow.sdu = bytearray(payload[2:]) if flow.psm == EATT_PSM else None
                if counting:
                    flow.sdus += 1
                    flow.sdu_bytes += sdu_len
                    flow.min_kframes += -(-(sdu_len + 2) // flow.mps)
            else:
                if counting and (len(payload) > flow.remaining or len(payload) > flow.mps):
                    flow.desync += 1
                flow.remaining -= len(payload)
                if flow.sdu is not None:
                    flow.sdu += payload
            flow.remaining = max(flow.remaining, 0)
            if flow.remaining == 0 and flow.sdu is not None:  # a whole EATT SDU: one ATT PDU
                if counting:
                    notified, value = notifications(bytes(flow.sdu))
                    flow.notifications += notified
                    flow.notified_bytes += value
                flow.sdu = None
            if counting:
                flow.kframes += 1
                flow.acl += fragments
                flow.index = index
                flow.pdu_sizes.append(expected)
    for flow in flows:
        # The controller's LE ACL packet length: from LE Read Buffer Size if the capture has the bring-up, else
        # the largest fragment the sender sent (fragmentation fills packets to that length).
        flow.acl_len = (acl_override or acl_len.get(flow.index) or max(acl_len.values(), default=0)
                        or max(largest.values(), default=0) or 27)
        flow.min_acl = sum(-(-size // flow.acl_len) for size in flow.pdu_sizes)
    return [f for f in flows if (f.kframes or f.credits) and (psm is None or f.psm == psm)]


def btmon_safe(path, out):
    """Copies a capture without the ATT Read By Type Requests that make btmon 5.66's `-r` segfault."""
    data = open(path, "rb").read()
    kept, dropped, offset = [data[:16]], 0, 16
    while offset + 24 <= len(data):
        _, included, flags = struct.unpack(">III", data[offset:offset + 12])
        record = data[offset:offset + 24 + included]
        body = record[24:]
        offset += 24 + included
        # ACL TX/RX, a whole L2CAP PDU on the ATT channel (CID 4) whose opcode is Read By Type Request (0x08).
        acl = flags & 0xFFFF in (OP_ACL_TX, OP_ACL_RX)
        if acl and len(body) >= 9 and body[6:8] == b"\x04\x00" and body[8] == 0x08:
            dropped += 1
            continue
        kept.append(record)
    open(out, "wb").write(b"".join(kept))
    return dropped


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--from", dest="start", type=float)
    parser.add_argument("--to", dest="end", type=float)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--psm", type=lambda text: int(text, 0), help="only this PSM (EATT is 0x27)")
    parser.add_argument("--btmon-safe", metavar="OUT",
                        help="only write a copy without ATT Read By Type Requests, for `btmon -r OUT`")
    parser.add_argument("--acl-len", type=int, help="the LE ACL data packet length, if the capture lacks it")
    args = parser.parse_args()
    if args.btmon_safe:
        try:
            dropped = btmon_safe(args.file, args.btmon_safe)
        except OSError as error:
            print(f"l2cap-pdus: {error}", file=sys.stderr)
            return 2
        print(f"l2cap-pdus: wrote {args.btmon_safe} without {dropped} ATT Read By Type Request(s)")
        return 0
    try:
        flows = count(args.file, args.start, args.end, args.acl_len, args.psm)
    except (OSError, ValueError) as error:
        print(f"l2cap-pdus: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([dict(channel=f.label, psm=f.psm, cids=list(f.cids), mtu=f.mtu, mps=f.mps, sdus=f.sdus,
                               bytes=f.sdu_bytes, kframes=f.kframes, min_kframes=f.min_kframes, acl=f.acl,
                               min_acl=f.min_acl, acl_len=f.acl_len, credits=f.credits,
                               notifications=f.notifications, notified_bytes=f.notified_bytes, desync=f.desync)
                          for f in flows]))
    else:
        for flow in flows:
            print(flow.line())
        if not flows:
            print("no LE CoC data in the window")
    return 0


if __name__ == "__main__":
    sys.exit(main())
