#!/usr/bin/env python3
"""Checks bench/l2cap-pdus.py on a synthetic btmon capture: `python3 bench/test_l2cap_pdus.py`."""

import importlib.util
import os
import struct
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("l2cap_pdus", os.path.join(HERE, "l2cap-pdus.py"))
pdus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pdus)


class Capture:
    """A monitor-format btsnoop file, written record by record, 1 ms apart."""

    def __init__(self):
        self.records, self.clock = [], 1_700_000_000.0

    def record(self, index, opcode, body):
        self.clock += 0.001
        stamp = int(self.clock * 1e6) + pdus.EPOCH_OFFSET_US
        self.records.append(struct.pack(">IIIIq", len(body), len(body), index << 16 | opcode, 0, stamp) + body)

    def acl(self, index, opcode, boundary, data, handle=42):
        self.record(index, opcode, struct.pack("<HH", handle | boundary << 12, len(data)) + data)

    def write(self, path):
        with open(path, "wb") as out:
            out.write(b"btsnoop\0" + struct.pack(">II", 1, 2001) + b"".join(self.records))


def l2cap(cid, payload):
    return struct.pack("<HH", len(payload), cid) + payload


def signal(code, ident, body):
    return l2cap(0x0005, bytes([code, ident]) + struct.pack("<H", len(body)) + body)


class CountTests(unittest.TestCase):
    def test_kframes_acl_and_credits_against_the_mps_minimum(self):
        capture = Capture()
        for index, name in ((0, b"hci0"), (1, b"hci1")):
            capture.record(index, pdus.OP_NEW_INDEX, bytes(8) + name.ljust(8, b"\0"))
        # LE Read Buffer Size: LE ACL data packets of 251 bytes.
        capture.record(1, pdus.OP_EVENT, bytes([0x0E, 7, 1]) + struct.pack("<HBHB", 0x2002, 0, 251, 8))
        # hci1 asks for PSM 0x80 from CID 0x40 (MTU 65535, MPS 247); hci0 answers with CID 0x41, MPS 247.
        capture.acl(1, pdus.OP_ACL_TX, 0, signal(0x14, 1, struct.pack("<5H", 0x80, 0x40, 65535, 247, 10)))
        capture.acl(0, pdus.OP_ACL_TX, 0, signal(0x15, 1, struct.pack("<5H", 0x41, 65535, 247, 10, 0)))
        start = capture.clock
        # A 1000-byte SDU: its 2-byte length and 1000 bytes in ceil(1002 / 247) = 5 K-frames; each twice in the
        # trace (hci1's TX, hci0's RX), counted once.
        stream = struct.pack("<H", 1000) + bytes(1000)
        while stream:
            frame, stream = stream[:247], stream[247:]
            capture.acl(1, pdus.OP_ACL_TX, 0, l2cap(0x41, frame))
            capture.acl(0, pdus.OP_ACL_RX, 2, l2cap(0x41, frame))
        # A 500-byte SDU in 3 K-frames (min 3: 502 / 247), one of them split in two ACL fragments (acl min 8, 9).
        first = l2cap(0x41, struct.pack("<H", 500) + bytes(198))
        capture.acl(1, pdus.OP_ACL_TX, 0, first)
        big = l2cap(0x41, bytes(247))
        capture.acl(1, pdus.OP_ACL_TX, 0, big[:200])
        capture.acl(1, pdus.OP_ACL_TX, 1, big[200:])
        capture.acl(1, pdus.OP_ACL_TX, 0, l2cap(0x41, bytes(55)))
        # hci0 gives 3 credits back, naming its own CID.
        capture.acl(0, pdus.OP_ACL_TX, 0, signal(0x16, 2, struct.pack("<HH", 0x41, 3)))
        end = capture.clock
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "capture.btsnoop")
            capture.write(path)
            [flow] = pdus.count(path, start, end, psm=0x80)
            self.assertEqual(flow.label, "hci1->hci0")
            self.assertEqual((flow.sdus, flow.sdu_bytes), (2, 1500))
            self.assertEqual((flow.kframes, flow.min_kframes), (8, 8))
            self.assertEqual((flow.acl, flow.min_acl, flow.acl_len), (9, 8, 251))
            self.assertEqual(flow.credits, 1)
            self.assertEqual(pdus.count(path, end + 1, None), [])


if __name__ == "__main__":
    unittest.main()
