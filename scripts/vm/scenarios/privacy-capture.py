#!/usr/bin/env python3
"""What a stranger learns: checks a btmon capture (btsnoop, monitor format) of a whole handoff session.

    privacy-capture.py CAPTURE --decoded TEXT --note FILE --secret S... --pairing-name N... --gap-name N...
                       --public-address A... --privacy off|device
    privacy-capture.py --self-test      (a synthetic capture that leaks a note line must fail the check)

It reads every record of the capture (HCI commands and events of both controllers, ACL data, bluetoothd's log
lines, the management channel), reassembles L2CAP, decodes ATT, and asserts:

1. secrets: the note's text (every 16-byte window, 8 bytes apart, so any leaked run of 24 bytes is caught), its
   title, its name and the activity type occur nowhere in the capture, as UTF-8, UTF-16LE or UTF-16BE (a binary
   plist stores a string with a non-ASCII character as UTF-16BE), nor in btmon's decoded text (TEXT);
2. coverage: the capture holds the pairing (its fragments) and the whole continue (a REQUEST, DATA notifications
   carrying at least the note's size, a DONE), so an empty or truncated capture cannot pass;
3. device names: handoff's device names (--pairing-name) go on the air only inside pairing beacons, and no
   pairing beacon is on the air once the note is requested; the adapters' GAP names (--gap-name) go on the air
   only in ATT read responses (bluetoothd's GAP service, read by the peer's bluetoothd when it connects), never in
   an advertisement;
4. addresses: with --privacy off the adverts carry the public address (reported: the leak `handoff doctor`
   flags); with --privacy device no address on the air is a public one, every advertising address is a resolvable
   private address, and no public address appears in any ACL payload.

"On the air" means what a radio would carry: advertising data (the Set Advertising/Scan Response Data commands
and the Advertising Report events), connection addresses, and ACL data. Host-only traffic (Write Local Name, the
management channel, bluetoothd's log) is allowed to hold names and addresses, but not secrets (point 1 covers
every record). Exit 0 when everything holds; the report goes to stdout.
"""
import argparse
import struct
import sys
from collections import Counter, defaultdict

# btmon monitor opcodes (src/shared/btsnoop.h)
COMMAND, EVENT, ACL_TX, ACL_RX = 2, 3, 4, 5
OPCODE_NAMES = {0: "new-index", 1: "del-index", 2: "command", 3: "event", 4: "acl-tx", 5: "acl-rx", 8: "open-index",
                9: "close-index", 10: "index-info", 12: "system-note", 13: "user-logging", 14: "ctrl-open",
                15: "ctrl-close", 16: "ctrl-command", 17: "ctrl-event"}
# HCI commands whose parameters go on the air
ADV_DATA_COMMANDS = {0x2008: "LE Set Advertising Data", 0x2009: "LE Set Scan Response Data",
                     0x2037: "LE Set Extended Advertising Data", 0x2038: "LE Set Extended Scan Response Data"}
# LE meta subevent: (name, bytes before the data, where the address type is (the address follows it), where the
# data length is, bytes after the data) of one report; the legacy report ends with the RSSI, the extended one has
# it before the data.
ADVERTISING_REPORTS = {0x02: ("LE Advertising Report", 9, 1, 8, 1), 0x0D: ("LE Extended Advertising Report", 24, 2, 23, 0)}
RANDOM_ADDRESS_COMMANDS = {0x2005: "LE Set Random Address", 0x2035: "LE Set Advertising Set Random Address"}
# ATT opcodes
ATT_READ_RESPONSES = {0x0B: "Read Response", 0x0D: "Read Blob Response", 0x09: "Read By Type Response",
                      0x0F: "Read Multiple Response"}
ATT_WRITE_REQ, ATT_WRITE_CMD, ATT_NOTIFY, ATT_INDICATE = 0x12, 0x52, 0x1B, 0x1D
ATT_MULTIPLE_NOTIFY = 0x23   # handle(2) length(2) value, repeated; bluetoothd sends it over EATT
# handoff transfer frame kinds (Docs/protocol.md, section 3 and 6)
FRAME_KINDS = {0x01: "REQUEST", 0x02: "FETCH", 0x03: "DONE", 0x81: "OPEN", 0x82: "DATA", 0x83: "ERROR",
               0x20: "PAIR-I", 0xA0: "PAIR-R", 0x1F: "PAIR-REJECT", 0x21: "REKEY", 0xA1: "REKEY-ACK"}
PAIRING_MARKER = b"PAIRho!"
COMPANY_ID = 0xFFFF


def read_btsnoop(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"btsnoop\0":
        sys.exit(f"privacy-capture: {path} is not a btsnoop file")
    version, datalink = struct.unpack(">II", data[8:16])
    if datalink != 2001:
        sys.exit(f"privacy-capture: {path} has datalink {datalink}, not 2001 (btmon monitor format)")
    records, offset = [], 16
    while offset + 24 <= len(data):
        orig, incl, flags, _drops, ts = struct.unpack(">IIIIq", data[offset:offset + 24])
        body = data[offset + 24:offset + 24 + incl]
        offset += 24 + incl
        records.append((ts, flags >> 16, flags & 0xFFFF, body))
    return records


def ad_structures(data):
    """(type, value) of each AD structure."""
    out, i = [], 0
    while i < len(data):
        length = data[i]
        if length == 0 or i + 1 + length > len(data):
            break
        out.append((data[i + 1], data[i + 2:i + 1 + length]))
        i += 1 + length
    return out


def address_text(raw):
    return ":".join(f"{b:02X}" for b in reversed(raw))


def is_rpa(raw):
    return (raw[5] >> 6) == 0b01


class Capture:
    def __init__(self, records):
        self.records = records
        self.air_chunks = []          # (kind, index, ts, bytes) of everything a radio carries
        self.adverts = []             # (ts, index, source, address or None, address type, data)
        self.addresses = []           # (ts, index, what, address type, raw address)
        self.att = []                 # (ts, index, direction, opcode, payload)
        self.coc_bytes = Counter()    # credit-based channel (cid) -> SDU bytes sent
        self.direct = []              # (ts, index, direction, frame) of handoff frames sent on such a channel as is
        self._acl = defaultdict(bytearray)
        self._sdus = {}
        for ts, index, opcode, body in records:
            if opcode == COMMAND:
                self._command(ts, index, body)
            elif opcode == EVENT:
                self._event(ts, index, body)
            elif opcode in (ACL_TX, ACL_RX):
                self._acl_packet(ts, index, opcode, body)

    def _command(self, ts, index, body):
        if len(body) < 3:
            return
        op, plen = struct.unpack("<HB", body[:3])
        params = body[3:3 + plen]
        if op in (0x2008, 0x2009) and params:
            data = params[1:1 + params[0]]
            self.adverts.append((ts, index, ADV_DATA_COMMANDS[op], None, None, data))
            self.air_chunks.append(("advertising data", index, ts, data))
        elif op in (0x2037, 0x2038) and len(params) >= 4:
            data = params[4:4 + params[3]]
            self.adverts.append((ts, index, ADV_DATA_COMMANDS[op], None, None, data))
            self.air_chunks.append(("advertising data", index, ts, data))
        elif op == 0x2005 and len(params) >= 6:
            self.addresses.append((ts, index, RANDOM_ADDRESS_COMMANDS[op], 1, params[:6]))
        elif op == 0x2035 and len(params) >= 7:
            self.addresses.append((ts, index, RANDOM_ADDRESS_COMMANDS[op], 1, params[1:7]))

    def _event(self, ts, index, body):
        if len(body) >= 6 and body[0] == 0x05 and body[2] == 0:   # Disconnection Complete: forget partial PDUs
            handle = struct.unpack("<H", body[3:5])[0] & 0x0FFF
            for key in [k for k in self._acl if k[0] == index and k[2] == handle]:
                del self._acl[key]
            for key in [k for k in self._sdus if k[0][0] == index and k[0][2] == handle]:
                del self._sdus[key]
            return
        if len(body) < 2 or body[0] != 0x3E:
            return
        params = body[2:2 + body[1]]
        sub = params[0] if params else None
        if sub in ADVERTISING_REPORTS:
            what, head, type_at, length_at, tail = ADVERTISING_REPORTS[sub]
            count, i = params[1], 2
            for _ in range(count):
                if i + head > len(params):
                    break
                addr_type, addr, length = params[i + type_at], params[i + type_at + 1:i + type_at + 7], params[i + length_at]
                data = params[i + head:i + head + length]
                self._report(ts, index, what, addr_type, addr, data)
                i += head + length + tail
        elif sub in (0x01, 0x0A) and len(params) >= 11 and params[1] == 0:   # (Enhanced) Connection Complete
            self.addresses.append((ts, index, "LE Connection Complete (peer)", params[5], params[6:12]))
            if sub == 0x0A and len(params) >= 24:
                for what, raw in (("local RPA", params[12:18]), ("peer RPA", params[18:24])):
                    if raw != b"\0" * 6:
                        self.addresses.append((ts, index, f"LE Enhanced Connection Complete ({what})", 1, raw))

    def _report(self, ts, index, what, addr_type, addr, data):
        self.adverts.append((ts, index, what, addr, addr_type, data))
        self.addresses.append((ts, index, what, addr_type, addr))
        self.air_chunks.append(("advertising report", index, ts, data))

    def _acl_packet(self, ts, index, opcode, body):
        if len(body) < 4:
            return
        handle_flags, length = struct.unpack("<HH", body[:4])
        handle, boundary = handle_flags & 0x0FFF, (handle_flags >> 12) & 0x3
        payload = body[4:4 + length]
        self.air_chunks.append(("acl", index, ts, payload))
        key = (index, opcode, handle)
        buffer = self._acl[key]
        if boundary in (0b00, 0b10):   # first fragment
            buffer.clear()
        buffer.extend(payload)
        while len(buffer) >= 4:
            l2len, cid = struct.unpack("<HH", buffer[:4])
            if len(buffer) < 4 + l2len:
                break
            sdu = bytes(buffer[4:4 + l2len])
            del buffer[:4 + l2len]
            self.air_chunks.append(("l2cap", index, ts, sdu))
            direction = "tx" if opcode == ACL_TX else "rx"
            if cid == 0x0004 and sdu:
                self.att.append((ts, index, direction, sdu[0], sdu[1:]))
            elif cid >= 0x0040:
                self._k_frame(ts, index, direction, (key, cid), sdu)

    def _k_frame(self, ts, index, direction, channel, frame):
        """A K-frame of an LE credit-based channel: the first of an SDU starts with the SDU's length. bluetoothd
        runs EATT (ATT over such channels, PSM 0x27) when both ends offer it, and the L2CAP transport would send
        handoff's frames over one directly; both are decoded."""
        pending = self._sdus.get(channel)
        if pending is None:
            if len(frame) < 2:
                return
            pending = (struct.unpack("<H", frame[:2])[0], bytearray(frame[2:]))
        else:
            pending[1].extend(frame)
        length, data = pending
        if len(data) < length:
            self._sdus[channel] = pending
            return
        self._sdus.pop(channel, None)
        sdu = bytes(data[:length])
        self.air_chunks.append(("l2cap", index, ts, sdu))
        if direction == "tx":
            self.coc_bytes[channel[1]] += len(sdu)
        if sdu and sdu[0] in {ATT_WRITE_REQ, ATT_WRITE_CMD, ATT_NOTIFY, ATT_INDICATE, ATT_MULTIPLE_NOTIFY} | set(
                ATT_READ_RESPONSES):
            self.att.append((ts, index, direction, sdu[0], sdu[1:]))
        elif len(sdu) >= 2 and sdu[0] == 0x02 and sdu[1] in FRAME_KINDS:
            self.direct.append((ts, index, direction, sdu))

    def transfer_frames(self):
        """(ts, kind name, value) of every handoff frame sent (TX side only: each PDU is in the capture twice)."""
        frames = []
        for ts, _index, direction, op, payload in self.att:
            if direction != "tx":
                continue
            if op in (ATT_WRITE_REQ, ATT_WRITE_CMD, ATT_NOTIFY, ATT_INDICATE):
                values = [payload[2:]]
            elif op == ATT_MULTIPLE_NOTIFY:
                values, i = [], 0
                while i + 4 <= len(payload):
                    length = struct.unpack("<H", payload[i + 2:i + 4])[0]
                    values.append(payload[i + 4:i + 4 + length])
                    i += 4 + length
            else:
                continue
            for value in values:
                if len(value) >= 2 and value[0] == 0x02 and value[1] in FRAME_KINDS:
                    frames.append((ts, FRAME_KINDS[value[1]], value))
        frames += [(ts, FRAME_KINDS[f[1]], f) for ts, _index, direction, f in self.direct if direction == "tx"]
        return sorted(frames, key=lambda frame: frame[0])


def encodings(text):
    return {"UTF-8": text.encode("utf-8"), "UTF-16LE": text.encode("utf-16-le"),
            "UTF-16BE": text.encode("utf-16-be")}


def windows(raw, size, step):
    if len(raw) <= size:
        return [raw]
    return [raw[i:i + size] for i in range(0, len(raw) - size + 1, step)] + [raw[-size:]]


def write_btsnoop(path, records):
    """Writes (index, opcode, body) records in btmon's format, for the self-test."""
    with open(path, "wb") as f:
        f.write(b"btsnoop\0" + struct.pack(">II", 1, 2001))
        for n, (index, opcode, body) in enumerate(records):
            f.write(struct.pack(">IIIIq", len(body), len(body), index << 16 | opcode, 0, 0x00E03AB44A676000 + n * 1000))
            f.write(body)


def self_test():
    """The checker must fail a capture that leaks: a synthetic session whose DATA frame carries a line of the note
    as UTF-16BE (as a binary plist would), with everything else in order. Exit 0 when it is caught."""
    import os
    import subprocess
    import tempfile
    note = "# Test note\n- 4471 quillwort brûlée №12\n"
    def acl(handle, cid, payload):
        l2 = struct.pack("<HH", len(payload), cid) + payload
        return struct.pack("<HH", handle, len(l2)) + l2
    def att_write(value):
        return acl(0x2A, 4, bytes([ATT_WRITE_REQ]) + struct.pack("<H", 0x19) + value)
    def att_notify(value):
        return acl(0x2A, 4, bytes([ATT_NOTIFY]) + struct.pack("<H", 0x19) + value)
    beacon = bytes([0x02]) + PAIRING_MARKER + b"laptop".ljust(16, b"\0")
    ad = bytes([27, 0xFF]) + struct.pack("<H", COMPANY_ID) + beacon
    report = bytes([0x3E, 0]) + bytes([0x02, 1, 0x00, 0x00]) + bytes.fromhex("000000 01AA00") + bytes([len(ad)]) + ad + b"\x7f"
    report = report[:1] + bytes([len(report) - 2]) + report[2:]
    leaked = "- 4471 quillwort brûlée №12".encode("utf-16-be")
    stream = leaked.ljust(600, b"\0")
    records = [
        (1, EVENT, report),
        (0, ACL_TX, att_write(b"\x02\x20" + bytes(10))), (1, ACL_TX, att_notify(b"\x02\xa0" + bytes(10))),
        (1, ACL_TX, att_write(b"\x02\x01" + struct.pack(">I", 7) + bytes(24))),
        (0, ACL_TX, att_notify(b"\x02\x81" + bytes(8) + struct.pack(">QIHIH", 1, 7, 0, len(stream), 4096))),
        (1, ACL_TX, att_write(b"\x02\x02" + struct.pack(">QII", 1, 0, len(stream)))),
        (0, ACL_TX, att_notify(b"\x02\x82" + struct.pack(">QI", 1, 0) + stream[:500])),
        (0, ACL_TX, att_notify(b"\x02\x82" + struct.pack(">QI", 1, 500) + stream[500:])),
        (1, ACL_TX, att_write(b"\x02\x03" + bytes(24))),
    ]
    with tempfile.TemporaryDirectory() as folder:
        capture, decoded, note_file = (os.path.join(folder, n) for n in ("c.btsnoop", "c.txt", "note.md"))
        write_btsnoop(capture, records)
        open(decoded, "w").write("")
        open(note_file, "w", encoding="utf-8").write(note)
        run = subprocess.run([sys.executable, __file__, capture, "--decoded", decoded, "--note", note_file,
                              "--secret", "Test note", "--pairing-name", "laptop", "--privacy", "off",
                              "--public-address", "00:AA:01:00:00:00"], capture_output=True, text=True)
    caught = run.returncode == 1 and "FAIL  note text is nowhere" in run.stdout and "UTF-16BE" in run.stdout
    covered = "ok    every byte of the 600-byte sealed stream" in run.stdout
    covered = covered and [line[:6] for line in run.stdout.splitlines()].count("FAIL  ") == 1
    print(("ok    " if caught and covered else "FAIL  ")
          + "self-test: a synthetic capture that leaks a note line as UTF-16BE fails the check, and only that")
    if not (caught and covered):
        print(run.stdout + run.stderr)
    return 0 if caught and covered else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser()
    parser.add_argument("capture")
    parser.add_argument("--decoded", required=True, help="btmon -r CAPTURE output")
    parser.add_argument("--note", required=True, help="the note's text as offered")
    parser.add_argument("--secret", action="append", default=[])
    parser.add_argument("--pairing-name", action="append", default=[])
    parser.add_argument("--gap-name", action="append", default=[])
    parser.add_argument("--public-address", action="append", default=[])
    parser.add_argument("--privacy", choices=["off", "device", "network"], required=True)
    args = parser.parse_args()

    failures = []

    def check(ok, message):
        print(("ok    " if ok else "FAIL  ") + message)
        if not ok:
            failures.append(message)

    records = read_btsnoop(args.capture)
    capture = Capture(records)
    decoded = open(args.decoded, encoding="utf-8", errors="replace").read()
    note = open(args.note, encoding="utf-8").read()
    span = (records[-1][0] - records[0][0]) / 1e6 if records else 0
    kinds = Counter(OPCODE_NAMES.get(op, str(op)) for _, _, op, _ in records)
    print(f"capture: {len(records)} records over {span:.1f} s: "
          + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))

    # 2. coverage first: a check of absence means nothing on a capture that missed the session.
    frames = capture.transfer_frames()
    counts = Counter(kind for _, kind, _ in frames)
    data_bytes = sum(len(v) - 14 for _, kind, v in frames if kind == "DATA")
    print("handoff frames sent (ATT, EATT or a credit-based channel): "
          + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f"; {data_bytes} stream bytes in DATA")
    if capture.coc_bytes:
        print("credit-based channels (SDU bytes sent): "
              + ", ".join(f"cid 0x{c:04x} {n}" for c, n in sorted(capture.coc_bytes.items())))
    transfer_bytes = data_bytes
    note_bytes = len(note.encode("utf-8"))
    check(counts["PAIR-I"] > 0 and counts["PAIR-R"] > 0,
          f"the pairing is in the capture ({counts['PAIR-I']} initiator and {counts['PAIR-R']} responder fragments)")
    check(counts["REQUEST"] > 0 and counts["DONE"] > 0,
          f"the continue is in the capture ({counts['REQUEST']} REQUEST, {counts['FETCH']} FETCH, "
          f"{counts['DATA']} DATA, {counts['DONE']} DONE)")
    # The capture must hold every byte of the sealed stream at least once (the source sends a range again when the
    # receiver FETCHes a gap), or a lossy capture would pass: the kernel's monitor socket drops what btmon does not
    # read in time.
    stream_length = max((struct.unpack(">I", v[14:18])[0] for _, kind, v in frames if kind == "FETCH"), default=0)
    covered, missing = sorted((struct.unpack(">I", v[10:14])[0], len(v) - 14) for _, kind, v in frames
                              if kind == "DATA"), 0
    reached = 0
    for offset, length in covered:
        missing += max(0, offset - reached)
        reached = max(reached, offset + length)
    missing += max(0, stream_length - reached)
    check(stream_length > note_bytes and missing == 0,
          f"every byte of the {stream_length}-byte sealed stream (the note is {note_bytes} bytes) is in the capture"
          + (f": {missing} bytes missing" if missing else f" ({transfer_bytes} DATA bytes with resends)"))

    # What a stranger who follows the link reads in clear in the frames (Docs/privacy.md): the REQUEST's sequence
    # and the OPEN header's lengths. Reported, not asserted: they are protocol v1's known limits.
    in_clear = []
    for ts, kind, value in frames:
        if kind == "REQUEST" and len(value) >= 6:
            line = f"in clear: REQUEST sequence {struct.unpack('>I', value[2:6])[0]}"
        elif kind == "OPEN" and len(value) >= 30:
            _tid, seq, meta, payload, record = struct.unpack(">QIHIH", value[10:30])
            line = (f"in clear: OPEN sequence {seq}, metadata length {meta}, payload length {payload}, "
                    f"record size {record}")
        else:
            continue
        if line not in in_clear:
            in_clear.append(line)
    print("\n".join(in_clear))

    # 1. secrets, in every record and every reassembled L2CAP SDU, and in btmon's decoded text.
    corpus = b"".join(body for _, _, _, body in records) + b"".join(c[3] for c in capture.air_chunks)
    probes = 0
    for label, text in [("note text", note)] + [(f"'{s}'", s) for s in args.secret]:
        found = []
        for encoding, raw in encodings(text).items():
            size = 16 if encoding == "UTF-8" else 32
            for piece in windows(raw, size, size // 2):
                probes += 1
                if piece in corpus:
                    found.append(f"{encoding} {piece!r}")
                    break
        check(not found, f"{label} is nowhere in the capture (UTF-8, UTF-16LE, UTF-16BE)"
              + (f": found {found}" if found else ""))
    tokens = list(args.secret) + [line.strip() for line in note.splitlines() if len(line.strip()) >= 8]
    in_text = [t for t in tokens if t in decoded]
    check(not in_text, f"none of {len(tokens)} secret strings (title, name, type, each note line) is in btmon's "
          f"decoded output ({len(decoded.splitlines())} lines)" + (f": found {in_text}" if in_text else ""))
    print(f"({probes} byte windows searched in {len(corpus)} bytes)")

    # 3a. handoff device names: only in pairing beacons, and none of those once the note is requested.
    pairing_adverts = []
    for ts, index, what, addr, addr_type, data in capture.adverts:
        for ad_type, value in ad_structures(data):
            if (ad_type == 0xFF and len(value) == 26 and struct.unpack("<H", value[:2])[0] == COMPANY_ID
                    and value[2] == 0x02 and value[3:10] == PAIRING_MARKER):
                pairing_adverts.append((ts, index, what, value))
    first_request = min((ts for ts, kind, _ in frames if kind == "REQUEST"), default=None)
    for name in args.pairing_name:
        raw = name.encode("utf-8")
        where = Counter()
        for kind, index, ts, chunk in capture.air_chunks:
            if raw not in chunk:
                continue
            if kind in ("advertising data", "advertising report") and PAIRING_MARKER in chunk:
                where["pairing beacon"] += 1
            else:
                where[kind] += 1
        others = {k: n for k, n in where.items() if k != "pairing beacon"}
        check(not others, f"device name '{name}' is on the air only in pairing beacons "
              f"({where['pairing beacon']} adverts)" + (f"; also in {others}" if others else ""))
    last_pairing = max((ts for ts, _, _, _ in pairing_adverts), default=None)
    check(bool(pairing_adverts) and first_request is not None and last_pairing < first_request,
          f"{len(pairing_adverts)} pairing-beacon adverts, the last "
          + (f"{(first_request - last_pairing) / 1e6:.1f} s before the note was requested"
             if pairing_adverts and first_request is not None and last_pairing < first_request
             else "not before the note was requested"))

    # 3b. GAP names: read over ATT by whoever connects; never advertised.
    for name in args.gap_name:
        raw = name.encode("utf-8")
        advertised = [c for c in capture.air_chunks if c[0].startswith("advertising") and raw in c[3]]
        att_reads = Counter(ATT_READ_RESPONSES[op] for _, _, d, op, p in capture.att
                            if op in ATT_READ_RESPONSES and raw in p and d == "tx")
        att_other = [op for _, _, d, op, p in capture.att if op not in ATT_READ_RESPONSES and raw in p]
        check(not advertised and not att_other,
              f"GAP name '{name}' is never advertised; it goes on the air in "
              + (", ".join(f"{n} ATT {k}" for k, n in att_reads.items()) or "no ATT read")
              + " (bluetoothd's GAP Device Name, served to anyone who connects)"
              + (f"; advertised {len(advertised)} times" if advertised else "")
              + (f"; in other ATT PDUs {att_other}" if att_other else ""))

    # 4. addresses.
    public = {a.upper(): a for a in args.public_address}
    seen = Counter()
    for ts, index, what, addr_type, raw in capture.addresses:
        text = address_text(raw)
        kind = "public" if text in public else ("RPA" if addr_type == 1 and is_rpa(raw) else
                                                 ("random" if addr_type == 1 else f"type {addr_type}"))
        seen[(what, kind)] += 1
    print("addresses on the air: " + "; ".join(f"{n}x {kind} in {what}" for (what, kind), n in sorted(seen.items())))
    public_on_air = sum(n for (what, kind), n in seen.items() if kind == "public")
    public_in_acl = [a for a in public if bytes(reversed(bytes.fromhex(a.replace(":", "")))) in
                     b"".join(c[3] for c in capture.air_chunks if c[0] in ("acl", "l2cap"))]
    if args.privacy == "off":
        check(public_on_air > 0, f"Privacy=off: the adapters' public addresses are on the air ({public_on_air} "
              "times): a stranger can follow this machine (handoff doctor flags it)")
    else:
        reports = [(kind) for (what, kind), n in seen.items() if "Report" in what]
        check(public_on_air == 0, f"Privacy={args.privacy}: no public address is on the air "
              f"({public_on_air} seen)")
        check(bool(reports) and all(k == "RPA" for k in reports),
              f"every advertising address is a resolvable private address ({sorted(set(reports))})")
        check(not public_in_acl, "no public address inside any ACL payload" +
              (f": {public_in_acl}" if public_in_acl else ""))

    print(f"privacy-capture: {'PASS' if not failures else 'FAIL'} ({len(failures)} failed)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
