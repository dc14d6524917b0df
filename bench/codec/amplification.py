#!/usr/bin/env python3
"""Writes the shared-reference userInfo inputs of issue 25 §2 to the directory given: the issue's 512 KiB list
(refused), and the worst ones the reader accepts under its 32 MiB decoded budget. plistlib reads every one."""
import plistlib, struct, sys

def shared(refs, length, marker=0x50):
    """{"k": [o, o, ...]}: refs references to one object o, a string of length bytes (or the integer 1)."""
    def sized(m, n):
        return bytes([m | n]) if n < 15 else bytes([m | 0xF, 0x12]) + struct.pack('>I', n)
    target = sized(0x50, length) + b'a' * length if marker == 0x50 else bytes([0x10, 1])
    objs = [bytes([0xD1, 1, 2]), bytes([0x51, 0x6B]), sized(0xA0, refs) + bytes([3]) * refs, target]
    out = bytearray(b'bplist00'); offsets = []
    for o in objs:
        offsets.append(len(out)); out += o
    table = len(out)
    for o in offsets: out += struct.pack('>I', o)
    out += bytes([0, 0, 0, 0, 0, 0, 4, 1]) + struct.pack('>QQQ', len(objs), 0, table)
    return bytes(out)

inputs = {
    "issue-512k-64g": shared(262144, 256 << 10),          # refused: 64 GiB of copies
    "accepted-127x256k-strings": shared(127, 256 << 10),  # 31.8 MiB of strings, just under the budget
    "accepted-1m-integers": shared(1_000_000, 0, 0x10),   # a 1 MB userInfo of a million references to one integer
    "accepted-1m-short-strings": shared(1_000_000, 15),   # the same to one 15-byte string: 31 MB charged
}
for name, data in inputs.items():
    plistlib.loads(data)
    open(f"{sys.argv[1]}/{name}.bplist", "wb").write(data)
    print(name, len(data))
