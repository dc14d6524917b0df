#!/usr/bin/python3
"""A hostile peer on the VM's third controller (issue 14 §3; Docs/reliability.md "Hostile peers"), built only from
third-party parts: the system python3-dbus talking to bluetoothd for hci2, btmgmt for raw advertising, and kernel
L2CAP sockets opened through ctypes. It never imports or runs handoff code. Each command prints what it did and
one "FIGURE name value" line per figure; it exits non-zero when the daemon gave the hostile peer something it
must not have (a payload byte, a pairing answer, an accepted share), or when the attack itself could not run.

    hostile-peer.py gatt TARGET [--writes N]     garbage to every characteristic, out-of-bounds read offsets and
                                                 long writes, garbage SDUs on the PSM the ABDD3056 characteristic
                                                 gives; collects every notification and SDU the daemon sends back
    hostile-peer.py hold TARGET SECONDS [--channels N]   one link and N L2CAP channels to the PSM, held open
    hostile-peer.py pair-guess TARGET COUNT      COUNT pairing HELLOs, each with a fresh session, answer awaited
    hostile-peer.py pair-session TARGET SECONDS  waits for pairing mode, runs the exchange up to the code (which it
                                                 prints), then tries 50 more sessions while the user decides
    hostile-peer.py flood SECONDS                btmgmt add-adv on hci2, as fast as the kernel acknowledges: 24-byte
                                                 beacons under company 0xFFFF, version 1, random (1 in 5
                                                 pairing-beacon shaped with a random name)
    hostile-peer.py capture TARGET SECONDS [N]   prints every distinct beacon TARGET advertised (hex), from hci2's
                                                 scan, until it has N of them
    hostile-peer.py replay SECONDS HEX...        re-advertises captured beacons from hci2 (btmgmt), round robin
    hostile-peer.py replay-frames TARGET CAPTURE --note FILE --secret S...
                                                 takes the real receiver's last REQUEST and DONE from a btmon
                                                 capture (privacy-capture.py's parser), writes the REQUEST again on
                                                 the path the real continue used (L2CAP channel or GATT write),
                                                 FETCHes the whole stream the OPEN names, writes a made-up DONE and
                                                 the recorded one; fails unless the whole sealed stream came back
                                                 and none of the secrets is in any byte of it

    hostile-peer.py live TARGET SECONDS [--capture FILE]... [--note FILE]
                                                 during a real transfer: subscribed to the data characteristic and
                                                 on a channel to the PSM, writes garbage frames, zero-context
                                                 ERRORs, `01 7F`, and every client frame (REQUEST, FETCH, DONE,
                                                 PROVE, share PUSH, DATA, PROOF) the captures hold, round after
                                                 round on both paths until SECONDS or SIGTERM; fails on a forbidden
                                                 frame on its own channel, or the note's text in any byte back

TARGET is the victim adapter's address (the laptop, hci0), as a stranger would take it from the advertisement.
"""

import ctypes
import hashlib
import os
import pty
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time

import dbus

# The stranger's adapter: the single VM's third controller, or HOSTILE_ADAPTER/HOSTILE_INDEX (a machine of its own in
# the many-machine tier, scripts/vm2/flow-many.sh, where it is hci0).
ADAPTER = os.environ.get("HOSTILE_ADAPTER", "hci2")
HOSTILE_INDEX = int(os.environ.get("HOSTILE_INDEX", "2"))
REQUEST_UUID = "6c1a0001-6e6f-4c8f-9d5e-68616e646f66"
DATA_UUID = "6c1a0002-6e6f-4c8f-9d5e-68616e646f66"
PSM_UUID = "abdd3056-28fa-441d-a470-55a75a52553a"
WIRE = 2  # WireProtocol.version: the first byte of every frame and beacon
# Server frames that would mean the daemon gave an unpaired peer something: OPEN (the header of a transfer), DATA
# (payload bytes), a pairing answer or rekey acknowledgement outside pairing, an accepted share.
FORBIDDEN = {0x81: "OPEN", 0x82: "DATA", 0xA0: "PAIR answer", 0xA1: "REKEY applied", 0xB0: "SHARE accept",
             0xB3: "SHARE challenge", 0x84: "REQUEST challenge"}
KINDS = {0x83: "ERROR", 0xB2: "SHARE error", **FORBIDDEN}
rng = random.Random(int.from_bytes(os.urandom(8), "big"))


def say(*parts):
    print("hostile:", *parts, flush=True)


def figure(name, value):
    print(f"FIGURE {name} {value}", flush=True)


class Bluez:
    def __init__(self):
        self.bus = dbus.SystemBus()
        self.adapter_path = f"/org/bluez/{ADAPTER}"
        self.adapter = dbus.Interface(self.bus.get_object("org.bluez", self.adapter_path), "org.bluez.Adapter1")
        self.manager = dbus.Interface(self.bus.get_object("org.bluez", "/"), "org.freedesktop.DBus.ObjectManager")

    def objects(self):
        return self.manager.GetManagedObjects()

    def start_discovery(self):
        self.adapter.SetDiscoveryFilter(dbus.Dictionary({"Transport": "le", "DuplicateData": True}, signature="sv"))
        self.adapter.StartDiscovery()

    def restart_discovery(self):
        # btvirt reports an advertiser only when scanning is enabled (Docs/bluez.md).
        try:
            self.adapter.StopDiscovery()
        except dbus.DBusException:
            pass
        for _ in range(5):
            try:
                self.start_discovery()
                return
            except dbus.DBusException:
                time.sleep(0.3)

    def stop_discovery(self):
        try:
            self.adapter.StopDiscovery()
        except dbus.DBusException:
            pass

    def device(self, address, seconds=30):
        """Finds TARGET from hci2's own scan (a stranger learns it from the advertisement)."""
        path = f"{self.adapter_path}/dev_{address.upper().replace(':', '_')}"
        if path in self.objects():
            # Forget what an earlier run cached of TARGET (its GATT database above all: handles change when a
            # daemon registers its application again), as a stranger meeting it for the first time would.
            call("remove", self.adapter.RemoveDevice, dbus.ObjectPath(path), timeout=10)
        self.start_discovery()
        deadline = time.monotonic() + seconds
        next_restart = time.monotonic() + 3
        try:
            while time.monotonic() < deadline:
                if path in self.objects():
                    return path
                if time.monotonic() > next_restart:
                    self.restart_discovery()
                    next_restart = time.monotonic() + 3
                time.sleep(0.2)
        finally:
            self.stop_discovery()
        raise SystemExit(f"hostile: {address} never appeared in {ADAPTER}'s scan")

    def connect(self, address):
        path = self.device(address)
        device = dbus.Interface(self.bus.get_object("org.bluez", path), "org.bluez.Device1")
        props = dbus.Interface(self.bus.get_object("org.bluez", path), "org.freedesktop.DBus.Properties")
        for attempt in range(4):
            try:
                device.Connect(timeout=30)
                break
            except dbus.DBusException as error:
                say(f"Connect attempt {attempt + 1}: {error.get_dbus_name()} {error.get_dbus_message()}")
                time.sleep(1)
        deadline = time.monotonic() + 30
        while not bool(props.Get("org.bluez.Device1", "ServicesResolved")):
            if time.monotonic() > deadline:
                raise SystemExit("hostile: services never resolved")
            time.sleep(0.2)
        address_type = str(props.Get("org.bluez.Device1", "AddressType"))
        say(f"connected to {address} ({address_type}) from {ADAPTER}")
        return path, device, address_type

    def characteristics(self, device_path):
        found = {}
        for path, interfaces in self.objects().items():
            if path.startswith(device_path + "/") and "org.bluez.GattCharacteristic1" in interfaces:
                ch = interfaces["org.bluez.GattCharacteristic1"]
                found[path] = (str(ch["UUID"]), [str(f) for f in ch["Flags"]])
        return found

    def char(self, path):
        return dbus.Interface(self.bus.get_object("org.bluez", path), "org.bluez.GattCharacteristic1")


def call(what, fn, *args, **kwargs):
    """Runs one D-Bus call; returns (result, None) or (None, error name)."""
    try:
        return fn(*args, **kwargs), None
    except dbus.DBusException as error:
        return None, f"{error.get_dbus_name().split('.')[-1]}: {error.get_dbus_message()}"


class Notifications:
    """The data characteristic's notifications through AcquireNotify: a socket that delivers one value per read."""

    def __init__(self, bluez, path):
        self.frames = []
        self.cursor = 0     # wait_pair's position: frames before it are consumed
        self.fd = None
        try:
            fd, mtu = bluez.char(path).AcquireNotify(dbus.Dictionary({}, signature="sv"))
            self.fd = fd.take()
            os.set_blocking(self.fd, False)
        except dbus.DBusException as error:
            # Without AcquireNotify: StartNotify, and the cached Value read back (it keeps only the latest).
            say(f"AcquireNotify refused ({error.get_dbus_message()}); polling Value instead (lossy)")
            bluez.char(path).StartNotify()
            self.props = dbus.Interface(bluez.bus.get_object("org.bluez", path), "org.freedesktop.DBus.Properties")
            self.last = None

    def drain(self, seconds=0.0):
        if self.fd is None:
            deadline = time.monotonic() + seconds
            while True:
                try:
                    value = bytes(self.props.Get("org.bluez.GattCharacteristic1", "Value"))
                except dbus.DBusException:
                    value = None
                if value and value != self.last:
                    self.frames.append(value)
                    self.last = value
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.05)
        deadline = time.monotonic() + seconds
        while True:
            left = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                if time.monotonic() >= deadline:
                    return
                continue
            try:
                value = os.read(self.fd, 4096)
            except BlockingIOError:
                continue
            if not value:
                return
            self.frames.append(bytes(value))

    def close(self):
        if self.fd is not None:
            os.close(self.fd)


class Session:
    """A stranger's GATT session to TARGET that connects again when the target drops it: the gate drops a central
    that writes what no client of ours writes, and a real attacker comes back. Notifications from every connection
    are kept in `frames`; `drops` counts the drops. After `max_drops` it stops coming back (raises Dropped)."""

    class Dropped(Exception):
        pass

    def __init__(self, bluez, target, max_drops=40):
        self.bluez, self.target, self.max_drops = bluez, target, max_drops
        self.drops = 0
        self.earlier = []     # notifications of the connections before this one
        self.attach()

    def attach(self):
        self.device_path, self.device, self.target_type = self.bluez.connect(self.target)
        self.chars = self.bluez.characteristics(self.device_path)
        self.props = dbus.Interface(self.bluez.bus.get_object("org.bluez", self.device_path),
                                    "org.freedesktop.DBus.Properties")
        data = find(self.chars, DATA_UUID)
        self.notes = Notifications(self.bluez, data) if data else None

    @property
    def frames(self):
        return self.earlier + (self.notes.frames if self.notes else [])

    def connected(self):
        try:
            return bool(self.props.Get("org.bluez.Device1", "Connected"))
        except dbus.DBusException:
            return False

    def come_back(self):
        """After a failed operation: when the target dropped us, count it and connect again; True when it did."""
        if self.connected():
            return False
        self.drops += 1
        if self.notes:
            self.notes.drain(0.0)
            self.earlier += self.notes.frames
            self.notes.close()
        if self.drops > self.max_drops:
            raise Session.Dropped(f"dropped {self.drops} times")
        say(f"dropped by the target (drop {self.drops}); connecting again")
        self.attach()
        return True

    def write(self, path, value, options):
        """One WriteValue; on a drop, connects again and writes once more. Returns the error or None."""
        for _ in range(2):
            _, error = call("write", self.bluez.char(path).WriteValue, dbus.Array(value, signature="y"),
                            dbus.Dictionary(options, signature="sv"), timeout=10)
            if not error or not self.come_back():
                return error
        return error

    def read(self, path, offset):
        for _ in range(2):
            value, error = call("read", self.bluez.char(path).ReadValue,
                                dbus.Dictionary({"offset": dbus.UInt16(offset)}, signature="sv"), timeout=10)
            if not error or not self.come_back():
                return value, error
        return value, error

    def drain(self, seconds=0.0):
        if self.notes:
            self.notes.drain(seconds)

    def close(self):
        if self.notes:
            self.notes.close()
        call("disconnect", self.device.Disconnect, timeout=10)


def classify(frames, where):
    """Counts server frames by kind; returns the forbidden ones."""
    counts, codes, bad = {}, {}, []
    for frame in frames:
        kind = frame[1] if len(frame) > 1 else -1
        name = KINDS.get(kind, f"0x{kind:02x}" if kind >= 0 else "short")
        counts[name] = counts.get(name, 0) + 1
        if kind == 0x83 and len(frame) >= 12:
            code = int.from_bytes(frame[10:12], "big")
            codes[code] = codes.get(code, 0) + 1
        if kind in FORBIDDEN:
            bad.append(frame)
    say(f"{where}: {len(frames)} frames back: {counts}; ERROR codes {codes}")
    for frame in bad[:5]:
        say(f"{where}: FORBIDDEN {FORBIDDEN[frame[1]]}: {frame[:40].hex()}")
    return bad, codes


def garbage_frames(count):
    """Values to write: every kind byte, both versions, every length class, and crafted nonsense."""
    values = [b"", b"\x01", b"\x00", b"\xff" * 512]
    for kind in range(256):
        values.append(bytes([WIRE, kind]) + rng.randbytes(rng.choice([0, 1, 8, 16, 17, 28, 40, 100])))
    values += [
        bytes([WIRE + 1, 0x01]) + rng.randbytes(28),                           # another version's REQUEST
        bytes([WIRE, 0x01]) + rng.randbytes(28),                                  # REQUEST with a forged MAC
        bytes([WIRE, 0x02]) + rng.randbytes(8) + (0).to_bytes(4, "big") + (0xFFFFFFFF).to_bytes(4, "big"),
        bytes([WIRE, 0x02]) + rng.randbytes(8) + (0xFFFFFFF0).to_bytes(4, "big") + (16).to_bytes(4, "big"),
        bytes([WIRE, 0x03]) + rng.randbytes(24),                                  # DONE for nothing
        bytes([WIRE, 0x20]) + rng.randbytes(8) + bytes([254, 255]) + rng.randbytes(400),  # fragment 254 of 255
        bytes([WIRE, 0x20]) + rng.randbytes(8) + bytes([0, 0]) + rng.randbytes(10),        # count 0
        bytes([WIRE, 0x21]) + rng.randbytes(8) + bytes([0, 1]) + b"{\"not\": \"a rekey\"}",
        bytes([WIRE, 0x30]) + rng.randbytes(200),                                 # a share push from a stranger
        bytes([WIRE, 0x31]) + rng.randbytes(500),
    ]
    while len(values) < count:
        values.append(rng.randbytes(rng.randrange(0, 513)))
    return values[:count]


def sockaddr_l2(address, psm, address_type):
    class SockaddrL2(ctypes.Structure):
        _fields_ = [("family", ctypes.c_ushort), ("psm", ctypes.c_ushort), ("bdaddr", ctypes.c_ubyte * 6),
                    ("cid", ctypes.c_ushort), ("bdaddr_type", ctypes.c_ubyte)]
    raw = bytes(reversed(bytes.fromhex(address.replace(":", ""))))
    return SockaddrL2(socket.AF_BLUETOOTH, psm, (ctypes.c_ubyte * 6)(*raw), 0, address_type)


libc = ctypes.CDLL(None, use_errno=True)


def open_channel(own, target, target_type, psm):
    """An LE credit-based channel from hci2 to TARGET's PSM, through the kernel (socket, bind, connect)."""
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_SEQPACKET, socket.BTPROTO_L2CAP)
    local = sockaddr_l2(own, 0, 1)
    if libc.bind(sock.fileno(), ctypes.byref(local), ctypes.sizeof(local)) != 0:
        err = ctypes.get_errno()
        sock.close()
        raise OSError(err, f"bind: {os.strerror(err)}")
    remote = sockaddr_l2(target, psm, 1 if target_type == "public" else 2)
    if libc.connect(sock.fileno(), ctypes.byref(remote), ctypes.sizeof(remote)) != 0:
        err = ctypes.get_errno()
        sock.close()
        raise OSError(err, f"connect: {os.strerror(err)}")
    return sock


def receive_all(sock, seconds, frames):
    """Appends to frames every SDU the channel delivers until it has been quiet for seconds or closes."""
    sock.settimeout(seconds)
    try:
        while True:
            got = sock.recv(65536)
            if not got:
                return
            frames.append(got)
    except (socket.timeout, BlockingIOError, OSError):
        pass


def own_address(bluez):
    props = dbus.Interface(bluez.bus.get_object("org.bluez", bluez.adapter_path), "org.freedesktop.DBus.Properties")
    return str(props.Get("org.bluez.Adapter1", "Address"))


def find(chars, uuid):
    return next((path for path, (u, _) in chars.items() if u == uuid), None)


def read_psm(bluez, chars):
    path = find(chars, PSM_UUID)
    if path is None:
        return None
    value, error = call("psm", bluez.char(path).ReadValue, dbus.Dictionary({}, signature="sv"), timeout=10)
    if error:
        say(f"PSM read refused: {error}")
        return None
    return int.from_bytes(bytes(value), "little")


def cmd_gatt(target, writes):
    bluez = Bluez()
    session = Session(bluez, target)
    chars = session.chars
    say(f"{len(chars)} characteristics: " + ", ".join(f"{u} {','.join(f)}" for u, f in chars.values()))
    if find(chars, DATA_UUID) is None or find(chars, REQUEST_UUID) is None:
        raise SystemExit("hostile: the transfer service is not there")
    started = time.monotonic()
    outcomes = {}
    sent = 0
    for path, (uuid, flags) in sorted(chars.items()):
        short = uuid.split("-")[0]
        if any(f in flags for f in ("write", "write-without-response")):
            kind = "request" if "write" in flags else "command"
            budget = writes if uuid == REQUEST_UUID else 40
            for value in garbage_frames(budget):
                error = session.write(path, value, {"type": kind})
                outcomes[f"{short} write: {error or 'accepted'}"] = outcomes.get(f"{short} write: {error or 'accepted'}", 0) + 1
                sent += 1
                if sent % 50 == 0:
                    session.drain()
            # Writes at offsets (prepared, long writes), in and out of bounds.
            for offset in (1, 100, 511, 512, 513, 4096, 65535):
                error = session.write(path, rng.randbytes(40), {"offset": dbus.UInt16(offset), "type": "request"})
                key = f"{short} write@{offset}: {error or 'accepted'}"
                outcomes[key] = outcomes.get(key, 0) + 1
                sent += 1
        else:
            # Not writable: the write must be refused (by bluetoothd or by the daemon), never crash anything.
            error = session.write(path, rng.randbytes(20), {})
            outcomes[f"{short} write (not writable): {error or 'accepted'}"] = 1
            sent += 1
        if "read" in flags:
            for offset in (0, 1, 2, 3, 100, 511, 512, 513, 600, 65535):
                value, error = session.read(path, offset)
                key = f"{short} read@{offset}: {error or f'{len(value)} bytes'}"
                outcomes[key] = outcomes.get(key, 0) + 1
    session.drain(3)
    took = time.monotonic() - started
    for key in sorted(outcomes):
        say(f"  {outcomes[key]:4d} × {key}")
    figure("gatt_operations", sent)
    figure("gatt_seconds", f"{took:.1f}")
    figure("gatt_drops", session.drops)
    bad, codes = classify(session.frames, "GATT")
    figure("gatt_frames_back", len(session.frames))
    figure("gatt_forbidden_frames", len(bad))
    notes = session
    if not session.connected():
        session.come_back()
    device, target_type = session.device, session.target_type

    # The L2CAP channel the PSM characteristic points to: garbage SDUs, then the same crafted frames.
    psm_path = find(chars, PSM_UUID)
    psm_value, psm_error = session.read(psm_path, 0) if psm_path else (None, "no PSM characteristic")
    psm = int.from_bytes(bytes(psm_value), "little") if psm_value is not None else None
    if psm_error:
        say(f"PSM read: {psm_error}")
    channel_frames, channel_bad = [], []
    if psm is None:
        say("no PSM characteristic: the target offers no L2CAP channel")
    else:
        own = own_address(bluez)
        say(f"PSM 0x{psm:04x}: opening channels from {own}")
        sdus = [rng.randbytes(rng.choice([1, 2, 18, 30, 100, 1000, 4096, 8000])) for _ in range(150)]
        sdus += garbage_frames(300)
        sdus = [s for s in sdus if s]
        sent_sdus = refused = channels = 0
        for round_ in range(3):
            try:
                sock = open_channel(own, target, target_type, psm)
            except OSError as error:
                say(f"channel {round_ + 1}: {error}")
                continue
            channels += 1
            sock.settimeout(5)
            for sdu in sdus[round_::3]:
                try:
                    sock.send(sdu)
                    sent_sdus += 1
                except OSError as error:
                    refused += 1
                    if refused <= 3:
                        say(f"send of {len(sdu)} bytes: {error}")
                    if error.errno in (107, 104, 32):   # not connected, reset, broken pipe: the peer hung up
                        break
                receive_all(sock, 0.05, channel_frames)
            receive_all(sock, 2, channel_frames)
            sock.close()
        figure("l2cap_channels", channels)
        figure("l2cap_sdus_sent", sent_sdus)
        figure("l2cap_sdus_refused_by_kernel", refused)
        channel_bad, _ = classify(channel_frames, "L2CAP")
        figure("l2cap_frames_back", len(channel_frames))
        figure("l2cap_forbidden_frames", len(channel_bad))
        if channels == 0:
            notes.close()
            raise SystemExit("hostile: no L2CAP channel could be opened to the PSM")
    notes.close()
    call("disconnect", device.Disconnect, timeout=10)
    if bad or channel_bad:
        say("the daemon sent an unpaired peer a frame it must never get")
        return 1
    return 0


def cmd_hold(target, seconds, channels):
    bluez = Bluez()
    device_path, device, target_type = bluez.connect(target)
    chars = bluez.characteristics(device_path)
    data = find(chars, DATA_UUID)
    notes = Notifications(bluez, data) if data else None
    psm = read_psm(bluez, chars)
    own = own_address(bluez)
    held = []
    errors = {}
    if psm is not None:
        for _ in range(channels):
            try:
                held.append(open_channel(own, target, target_type, psm))
            except OSError as error:
                errors[str(error)] = errors.get(str(error), 0) + 1
                if len(errors) > 3 or sum(errors.values()) > 5:
                    break
    say(f"holding 1 LE link, the GATT subscription and {len(held)} L2CAP channels to PSM {psm}; refused: {errors}")
    figure("held_channels", len(held))
    print("holding", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    deadline = time.monotonic() + seconds
    received = 0
    while not stop and time.monotonic() < deadline:
        ready, _, _ = select.select(held, [], [], 0.5)
        for sock in ready:
            try:
                got = sock.recv(65536)
            except OSError:
                got = b""
            if not got:
                held.remove(sock)
                sock.close()
                continue
            received += 1
            if len(got) > 1 and got[1] in FORBIDDEN:
                say(f"FORBIDDEN on a held channel: {got[:40].hex()}")
    alive = 0
    for sock in held:
        alive += 1
        sock.close()
    # Subscribed notifications may carry the real transfer's frames (server frames are sent to subscribers; they
    # are sealed end to end): they are counted, and must not be readable; the channels must carry nothing.
    if notes:
        notes.drain(0.5)
        say(f"GATT notifications seen while holding: {len(notes.frames)} (sealed, for the real receiver)")
        notes.close()
    figure("held_channels_at_end", alive)
    figure("held_channel_frames", received)
    call("disconnect", device.Disconnect, timeout=10)
    return 0


def pair_fragment(session, message):
    return bytes([WIRE, 0x20]) + session + bytes([0, 1]) + message


def wait_pair(notes, session, seconds):
    """Waits for the responder's fragment (kind 0xA0) or ERROR for this session."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        notes.drain(0.2)
        while notes.cursor < len(notes.frames):
            frame = notes.frames[notes.cursor]
            notes.cursor += 1
            if len(frame) >= 10 and frame[2:10] == session:
                if frame[1] == 0xA0:
                    return "answer", frame[12:]
                if frame[1] == 0x83:
                    return "error", frame
    return "silence", None


def cmd_pair_guess(target, count, seconds=60.0):
    """COUNT pairing HELLOs, each a fresh session, as fast as GATT allows, for at most SECONDS. Outside pairing mode
    each is refused (ERROR 4618), and the gate drops the stranger's link a moment after the first: it connects
    again each time and goes on, so its rate of tries is what a persistent stranger gets."""
    bluez = Bluez()
    session = Session(bluez, target, max_drops=1000)
    request = find(session.chars, REQUEST_UUID)
    started = time.monotonic()
    sessions = []
    link_of = {}          # each HELLO → the link it went out on (0 the first, n after the n-th drop)
    answers = write_errors = 0
    while len(sessions) < count and time.monotonic() - started < seconds:
        hello = rng.randbytes(8)
        # HELLO: ver ‖ 0x10 ‖ an ephemeral public key (32 random bytes: a guess at nothing, as every try is).
        error = session.write(request, pair_fragment(hello, bytes([WIRE, 0x10]) + rng.randbytes(32)),
                              {"type": "request"})
        if error:
            write_errors += 1
        else:
            sessions.append(hello)
            link_of[hello] = session.drops
        session.drain()
    session.drain(3)
    took = time.monotonic() - started
    # The link the last HELLOs went out on counts as dropped too when the target closed it during the wait.
    live_link = session.drops if session.connected() else None
    wanted = set(sessions)
    refused = {}
    refused_sessions = set()
    for frame in session.frames:
        if len(frame) >= 12 and frame[2:10] in wanted:
            if frame[1] == 0x83:
                code = int.from_bytes(frame[10:12], "big")
                message = frame[12:].decode("utf-8", "replace")
                refused[(code, message)] = refused.get((code, message), 0) + 1
                refused_sessions.add(frame[2:10])
            elif frame[1] == 0xA0:
                answers += 1
    for (code, message), n in refused.items():
        say(f"  {n} × ERROR {code} '{message}'")
    # A HELLO the target took but never refused is one of two things. Its link was dropped before the ERROR went
    # out (the gate closes a stranger's link with replies still queued), or the target went silent on a link it
    # kept: the first is the gate at work, the second a fault.
    unrefused = [hello for hello in sessions if hello not in refused_sessions]
    silent_on_live_link = sum(1 for hello in unrefused if link_of[hello] == live_link)
    figure("pair_attempts", len(sessions))
    figure("pair_seconds", f"{took:.1f}")
    figure("pair_attempts_per_second", f"{len(sessions) / took:.1f}")
    figure("pair_refused", sum(refused.values()))
    figure("pair_answered", answers)
    figure("pair_write_errors", write_errors)
    figure("pair_drops", session.drops)
    figure("pair_lost_to_drops", len(unrefused) - silent_on_live_link)
    figure("pair_unrefused_on_live_link", silent_on_live_link)
    session.close()
    return 1 if answers else 0


def cmd_pair_session(target, seconds):
    """The best a stranger can do in pairing mode: run the exchange and hope the user confirms a code that no
    device of theirs shows."""
    bluez = Bluez()
    device_path, device, _ = bluez.connect(target)
    chars = bluez.characteristics(device_path)
    notes = Notifications(bluez, find(chars, DATA_UUID))
    request = bluez.char(find(chars, REQUEST_UUID))

    def write(frame):
        return call("write", request.WriteValue, dbus.Array(frame, signature="y"),
                    dbus.Dictionary({"type": "request"}, signature="sv"), timeout=10)[1]

    deadline = time.monotonic() + seconds
    tries = 0
    while time.monotonic() < deadline:
        session = rng.randbytes(8)
        pk_i = rng.randbytes(32)
        write(pair_fragment(session, bytes([WIRE, 0x10]) + pk_i))
        tries += 1
        state, body = wait_pair(notes, session, 3)
        if state != "answer":
            time.sleep(0.5)
            continue
        say(f"pairing mode found after {tries} HELLOs; the responder committed")
        pk_r = body[2:34]
        n_i = rng.randbytes(16)
        write(pair_fragment(session, bytes([WIRE, 0x11]) + n_i))
        state, body = wait_pair(notes, session, 10)
        if state != "answer":
            say(f"no reveal: {state}")
            return 1
        n_r = body[2:18]
        h = hashlib.blake2b(b"handoff.v1.pair" + pk_i + pk_r + n_i + n_r, digest_size=32).digest()
        code = int.from_bytes(h[:4], "big") % 1_000_000
        print(f"code {code:06d}", flush=True)
        figure("pair_session_code", f"{code:06d}")
        # While the user looks at a code none of their devices shows: more sessions, and a forged confirm.
        others, refused_busy = [rng.randbytes(8) for _ in range(50)], 0
        for other in others:
            write(pair_fragment(other, bytes([WIRE, 0x10]) + rng.randbytes(32)))
        write(pair_fragment(session, bytes([WIRE, 0x12]) + rng.randbytes(24) + rng.randbytes(120)))
        state, frame = wait_pair(notes, session, seconds)
        notes.drain(1)
        for f in notes.frames:
            if len(f) >= 12 and f[1] == 0x83 and f[2:10] in others:
                refused_busy += 1
        figure("pair_sessions_refused_while_busy", f"{refused_busy}/{len(others)}")
        if state == "error":
            code_back = int.from_bytes(frame[10:12], "big")
            say(f"the session ended: ERROR {code_back} '{frame[12:].decode('utf-8', 'replace')}'")
            figure("pair_session_outcome", f"ERROR-{code_back}")
            notes.close()
            call("disconnect", device.Disconnect, timeout=10)
            return 0 if code_back == 4618 else 1
        say(f"the session ended with {state}: a pairing answer to a stranger" if state == "answer" else "no answer")
        return 1
    say("the target never entered pairing mode")
    return 1


class Advertiser:
    """One long-running btmgmt on hci2 (MGMT Add Advertising straight to the kernel), paced by its replies."""

    def __init__(self, window=4):
        # Its output goes to a pseudo-terminal, so that it is line-buffered and each reply is seen at once.
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(["stdbuf", "-oL", "btmgmt", "--index", str(HOSTILE_INDEX)],
                                     stdin=subprocess.PIPE, stdout=slave, stderr=slave, text=True, bufsize=1)
        os.close(slave)
        self.master = master
        self.acks = 0
        self.failures = 0
        self.cleared = threading.Event()
        self.window = threading.Semaphore(window)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        pending = b""
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if b"Instance added" in line:
                    self.acks += 1
                    self.window.release()
                elif b"Add Advertising failed" in line:
                    self.failures += 1
                    if self.failures <= 3:
                        say(line.decode("utf-8", "replace").strip())
                    self.window.release()
                elif b"Instance removed" in line or b"Remove Advertising failed" in line:
                    self.cleared.set()

    def add(self, beacon, instance):
        ad = bytes([3 + len(beacon), 0xFF, 0xFF, 0xFF]) + beacon
        # A reply frees the slot; a lost one is given up on after 0.5 s, so the flood never stalls.
        self.window.acquire(timeout=0.5)
        self.proc.stdin.write(f"add-adv -d {ad.hex()} {instance}\n")
        self.proc.stdin.flush()

    def close(self):
        # btmgmt's quit ends its main loop at once, before a queued MGMT command is written: wait for the
        # removal's reply first, or the last instances (some pairing-shaped, with made-up names) stay on the air
        # and spoil the next scenario's pairing.
        try:
            self.proc.stdin.write("clr-adv\n")
            self.proc.stdin.flush()
            if not self.cleared.wait(timeout=5):
                say("btmgmt did not confirm clr-adv within 5 s")
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def random_beacon():
    if rng.random() < 0.2:
        name = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randrange(1, 17)))
        return b"\x01PAIRho!" + name.ljust(16, b"\x00")
    return b"\x01" + rng.randbytes(23)


def cmd_flood(seconds):
    adv = Advertiser()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    started = time.monotonic()
    sent = 0
    print("flooding", flush=True)
    while not stop and time.monotonic() - started < seconds:
        adv.add(random_beacon(), 1 + sent % 3)
        sent += 1
    took = time.monotonic() - started
    time.sleep(1)
    adv.close()
    say(f"{sent} beacons sent in {took:.1f} s, {adv.acks} acknowledged by the kernel, {adv.failures} refused")
    figure("flood_seconds", f"{took:.1f}")
    figure("flood_beacons", sent)
    figure("flood_acknowledged", adv.acks)
    figure("flood_per_second", f"{adv.acks / took:.1f}")
    return 0 if adv.acks > 0 else 1


def cmd_capture(target, seconds, want):
    bluez = Bluez()
    path = bluez.device(target, seconds=30)
    props = dbus.Interface(bluez.bus.get_object("org.bluez", path), "org.freedesktop.DBus.Properties")
    seen = []
    bluez.start_discovery()
    deadline = time.monotonic() + seconds
    next_restart = time.monotonic() + 2
    try:
        while time.monotonic() < deadline:
            try:
                data = props.Get("org.bluez.Device1", "ManufacturerData")
            except dbus.DBusException:
                data = {}
            value = bytes(data.get(dbus.UInt16(0xFFFF), b"")) if data else b""
            if len(value) == 24 and value not in seen:
                seen.append(value)
                print(f"beacon {value.hex()}", flush=True)
                if len(seen) >= want:
                    break
            if time.monotonic() > next_restart:
                bluez.restart_discovery()
                next_restart = time.monotonic() + 2
            time.sleep(0.1)
    finally:
        bluez.stop_discovery()
    return 0 if seen else 1


def cmd_replay(seconds, beacons):
    adv = Advertiser()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    started = time.monotonic()
    sent = 0
    print("replaying", flush=True)
    while not stop and time.monotonic() - started < seconds:
        adv.add(beacons[sent % len(beacons)], 1 + sent % 3)
        sent += 1
        time.sleep(0.02)
    adv.close()
    say(f"{sent} replays of {len(beacons)} captured beacons, {adv.acks} acknowledged")
    figure("replay_sent", sent)
    figure("replay_acknowledged", adv.acks)
    return 0 if adv.acks > 0 else 1


def load_capture_parser():
    """privacy-capture.py's btsnoop parser (a file name with a dash: loaded by path)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "privacy-capture.py")
    spec = importlib.util.spec_from_file_location("privacy_capture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded_frames(parser, capture_path):
    """The receiver's REQUEST and DONE frames in the capture, each with the path it took ("l2cap": an SDU on a
    credit-based channel; "gatt": an ATT write, over ATT or EATT)."""
    capture = parser.Capture(parser.read_btsnoop(capture_path))
    found = []
    for ts, _index, direction, op, payload in capture.att:
        if direction == "tx" and op in (parser.ATT_WRITE_REQ, parser.ATT_WRITE_CMD):
            value = payload[2:]
            if len(value) >= 2 and value[0] == WIRE and value[1] in (0x01, 0x03):
                found.append((ts, "gatt", bytes(value)))
    for ts, _index, direction, frame in capture.direct:
        if direction == "tx" and frame[1] in (0x01, 0x03):
            found.append((ts, "l2cap", bytes(frame)))
    found.sort(key=lambda f: f[0])
    return found, len(capture.records)


class GattPath:
    """Client frames as writes to the request characteristic, server frames as the data characteristic's
    notifications (AcquireNotify)."""
    name = "gatt"

    def __init__(self, bluez, chars):
        self.request = bluez.char(find(chars, REQUEST_UUID))
        self.notes = Notifications(bluez, find(chars, DATA_UUID))
        self.errors = 0

    def send(self, frame):
        _, error = call("write", self.request.WriteValue, dbus.Array(frame, signature="y"),
                        dbus.Dictionary({"type": "request"}, signature="sv"), timeout=10)
        if error:
            self.errors += 1
            say(f"gatt write of {frame[:2].hex()}: {error}")

    def receive(self, seconds):
        """Up to seconds for the first notification, then whatever follows it without a pause of 0.5 s."""
        start = len(self.notes.frames)
        deadline = time.monotonic() + seconds
        while len(self.notes.frames) == start and time.monotonic() < deadline:
            self.notes.drain(0.2)
        while True:
            seen = len(self.notes.frames)
            self.notes.drain(0.5)
            if len(self.notes.frames) == seen:
                return self.notes.frames[start:]

    def close(self):
        self.notes.close()


class ChannelPath:
    """Client frames as SDUs on an LE credit-based channel to the published PSM, server frames as the SDUs back."""
    name = "l2cap"

    def __init__(self, own, target, target_type, psm):
        self.sock = open_channel(own, target, target_type, psm)
        self.errors = 0

    def send(self, frame):
        try:
            self.sock.send(frame)
        except OSError as error:
            self.errors += 1
            say(f"channel send of {frame[:2].hex()}: {error}")

    def receive(self, seconds):
        """Up to seconds for the first SDU, then whatever follows it without a pause of 0.5 s."""
        frames = []
        self.sock.settimeout(seconds)
        try:
            first = self.sock.recv(65536)
        except (socket.timeout, BlockingIOError, OSError):
            return frames
        if first:
            frames.append(first)
            receive_all(self.sock, 0.5, frames)
        return frames

    def close(self):
        self.sock.close()


def take_stream(path, request, quiet=5.0, limit=60.0):
    """Writes REQUEST, answers a CHALLENGE with a made-up PROVE (wire version 2: the stranger has no key), then
    FETCHes the whole stream an OPEN names, if one comes; returns (every frame back, the OPEN header (transfer id,
    stream length) or None, the bytes of the stream covered)."""
    frames, header, covered = [], None, 0
    path.send(request)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        got = path.receive(quiet if header is None or covered < header[1] else 1.0)
        if not got:
            break
        frames += got
        for frame in got:
            if len(frame) >= 30 and frame[1] == 0x81 and header is None:
                tid = frame[10:18]
                meta, payload, record = (int.from_bytes(frame[22:24], "big"), int.from_bytes(frame[24:28], "big"),
                                         int.from_bytes(frame[28:30], "big"))
                length = meta + payload + ((payload + record - 1) // record) * 16 if record else meta
                header = (tid, length)
                say(f"{path.name}: OPEN transfer {tid.hex()}, stream {length} bytes (metadata {meta}, payload "
                    f"{payload}, records of {record}); FETCH 0..{length}")
                path.send(bytes([WIRE, 0x02]) + tid + (0).to_bytes(4, "big") + length.to_bytes(4, "big"))
            elif len(frame) >= 26 and frame[1] == 0x84:
                say(f"{path.name}: CHALLENGE for request {frame[2:10].hex()}; answering with a made-up PROVE")
                path.send(bytes([WIRE, 0x04]) + frame[2:10] + rng.randbytes(16))
            elif len(frame) >= 14 and frame[1] == 0x82 and header is not None and frame[2:10] == header[0]:
                covered = max(covered, int.from_bytes(frame[10:14], "big") + len(frame) - 14)
            elif len(frame) >= 12 and frame[1] == 0x83:
                say(f"{path.name}: ERROR {int.from_bytes(frame[10:12], 'big')} "
                    f"'{frame[12:].decode('utf-8', 'replace')}'")
        if header is not None and covered >= header[1]:
            break
    return frames, header, covered


def cmd_replay_frames(target, capture_path, note_path, secrets):
    parser = load_capture_parser()
    recorded, records = recorded_frames(parser, capture_path)
    requests = [f for f in recorded if f[2][1] == 0x01]
    dones = [f for f in recorded if f[2][1] == 0x03]
    say(f"capture {capture_path}: {records} records; the receiver's frames: "
        + ", ".join(f"{'REQUEST' if v[1] == 1 else 'DONE'} over {p}" for _, p, v in recorded))
    if not requests or not dones:
        raise SystemExit("hostile: the capture holds no REQUEST or no DONE of the real continue")
    _, recorded_path, request = requests[-1]
    done = dones[-1][2]
    figure("recorded_request_path", recorded_path)
    say(f"replaying REQUEST {request.hex()} (sequence {int.from_bytes(request[2:6], 'big')}) and DONE {done.hex()}")

    bluez = Bluez()
    device_path, device, target_type = bluez.connect(target)
    chars = bluez.characteristics(device_path)
    if find(chars, DATA_UUID) is None or find(chars, REQUEST_UUID) is None:
        raise SystemExit("hostile: the transfer service is not there")
    gatt = GattPath(bluez, chars)   # subscribed to the data characteristic from the start, on either path
    if recorded_path == "l2cap":
        psm = read_psm(bluez, chars)
        if psm is None:
            raise SystemExit("hostile: the real continue used a channel, but the laptop publishes no PSM now")
        path = ChannelPath(own_address(bluez), target, target_type, psm)
        say(f"channel open to PSM 0x{psm:04x}")
    else:
        path = gatt
    started = time.monotonic()
    frames, header, covered = take_stream(path, request)
    took = time.monotonic() - started
    challenged = any(len(f) >= 26 and f[1] == 0x84 for f in frames)
    # A DONE the stranger makes up (it has no transfer key), the recorded one (its transfer is the real, finished
    # one), then a FETCH of nothing as a probe: its ERROR shows both DONEs were handled before it.
    made_up = bytes([WIRE, 0x03]) + (header[0] if header else rng.randbytes(8)) + rng.randbytes(16)
    path.send(made_up)
    path.send(done)
    path.send(bytes([WIRE, 0x02]) + bytes(8) + (0).to_bytes(4, "big") + (1).to_bytes(4, "big"))
    after = path.receive(5.0)
    frames += after
    probe_answered = any(len(f) >= 12 and f[1] == 0x83 and f[2:10] == bytes(8) for f in after)
    gatt_frames = gatt.receive(1.0) if path is not gatt else []
    frames += gatt_frames
    kinds = {}
    for frame in frames:
        name = KINDS.get(frame[1], f"0x{frame[1]:02x}") if len(frame) > 1 else "short"
        kinds[name] = kinds.get(name, 0) + 1
    received = b"".join(frames)
    say(f"{len(frames)} frames back ({kinds}), {len(received)} bytes, in {took:.1f} s; "
        f"{len(gatt_frames)} of them as GATT notifications while on the channel")

    # Any secret, as UTF-8, UTF-16BE or UTF-16LE: a title, name or type whole; the note's text by 16-byte windows
    # (32 for UTF-16), so a leaked run of 24 bytes is caught.
    note = open(note_path, encoding="utf-8").read()
    leaks = []
    for label, text in [("note text", note)] + [(f"'{s}'", s) for s in secrets]:
        for encoding, raw in parser.encodings(text).items():
            size = 16 if encoding == "UTF-8" else 32
            pieces = parser.windows(raw, size, size // 2) if label == "note text" else [raw]
            if any(piece in received for piece in pieces):
                leaks.append(f"{label} as {encoding}")
    for leak in leaks:
        say(f"FORBIDDEN: {leak} is in what the stranger received")
    figure("replay_frames_back", len(frames))
    figure("replay_bytes_back", len(received))
    figure("replay_challenged", "yes" if challenged else "no")
    figure("replay_stream_bytes", f"{covered}/{header[1] if header else 0}")
    figure("replay_seconds", f"{took:.1f}")
    figure("replay_forbidden_plaintext", len(leaks))
    figure("replay_done_probe_answered", "yes" if probe_answered else "no")
    for p in {path, gatt}:
        p.close()
    call("disconnect", device.Disconnect, timeout=10)
    if not challenged:
        say("the replayed REQUEST got no CHALLENGE: cannot tell it reached the source")
        return 1
    if header is not None or covered:
        say(f"FORBIDDEN: the replayed REQUEST got an OPEN and {covered} stream bytes; version 2 answers it with a "
            "challenge only")
        return 1
    if not probe_answered:
        say("the probe after the DONEs was not answered: cannot tell the DONEs were handled")
        return 1
    return 1 if leaks else 0


def recorded_client_frames(parser, capture_path, kinds):
    """Every frame of `kinds` the capturing machine sent as a client (ATT writes, channel SDUs), oldest first."""
    capture = parser.Capture(parser.read_btsnoop(capture_path))
    found = []
    for ts, _index, direction, op, payload in capture.att:
        if direction == "tx" and op in (parser.ATT_WRITE_REQ, parser.ATT_WRITE_CMD):
            value = bytes(payload[2:])
            if len(value) >= 2 and value[0] == WIRE and value[1] in kinds:
                found.append((ts, value))
    for ts, _index, direction, frame in capture.direct:
        if direction == "tx" and len(frame) >= 2 and frame[0] == WIRE and frame[1] in kinds:
            found.append((ts, bytes(frame)))
    found.sort(key=lambda f: f[0])
    return [frame for _, frame in found]


def cmd_live(target, seconds, captures, note_path):
    """Attacks TARGET's transfer service while real transfers run on it: see the module's doc. A stranger that is
    dropped (the gate drops a central that writes what no client writes) connects again and goes on, for as long as
    it attacks: each drop is counted (FIGURE live_drops)."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    replays = []
    if captures:
        parser = load_capture_parser()
        for path in captures:
            try:
                got = recorded_client_frames(parser, path, {0x01, 0x02, 0x03, 0x04, 0x30, 0x31, 0x32})
            except Exception as error:   # a capture still being written may end mid-record
                say(f"capture {path}: unreadable ({error}); no replays from it")
                continue
            say(f"capture {path}: {len(got)} client frames to replay "
                + str({KINDS.get(f[1], f"0x{f[1]:02x}"): 0 for f in got}.keys()).replace("dict_keys", ""))
            replays += got[-200:]
    bluez = Bluez()
    zero_errors = [bytes([WIRE, 0x83]) + bytes(8) + code.to_bytes(2, "big") for code in (4609, 4618, 4612, 1, 0xFFFF)]
    malformed = [b"\x01\x7f", bytes([WIRE, 0x7F]), bytes([WIRE, 0xB2]) + bytes(8) + bytes(2)]
    deadline = time.monotonic() + seconds
    sent = {"gatt": 0, "l2cap": 0}
    channel_frames, notifications = [], []
    rounds = drops = refused = 0
    first = True

    def attach():
        """Connects (again), resolves the service and opens the paths; None when the target cannot be reached."""
        device_path, device, target_type = bluez.connect(target)
        chars = bluez.characteristics(device_path)
        if find(chars, DATA_UUID) is None or find(chars, REQUEST_UUID) is None:
            return None
        props = dbus.Interface(bluez.bus.get_object("org.bluez", device_path), "org.freedesktop.DBus.Properties")
        gatt = GattPath(bluez, chars)
        channel = None
        psm = read_psm(bluez, chars)
        if psm is not None:
            try:
                channel = ChannelPath(own_address(bluez), target, target_type, psm)
            except OSError as error:
                say(f"no channel to PSM 0x{psm:04x}: {error}")
        return device, props, gatt, channel, psm

    def connected(props):
        try:
            return bool(props.Get("org.bluez.Device1", "Connected"))
        except dbus.DBusException:
            return False

    attached = None
    while not stop and time.monotonic() < deadline:
        if attached is None:
            try:
                attached = attach()
            except (SystemExit, dbus.DBusException) as error:
                # Services never resolved, or this machine's bluetoothd was slow to answer (two strangers share it):
                # the target may be busy; try again.
                say(f"reconnect: {error}")
                time.sleep(1)
                continue
            if attached is None:
                if first:
                    raise SystemExit("hostile: the transfer service is not there")
                time.sleep(1)
                continue
            device, props, gatt, channel, psm = attached
            if first:
                say(f"attacking {target} on gatt" + (f" and the channel to PSM 0x{psm:04x}" if channel else "")
                    + f": {len(replays)} recorded frames, zero-context ERRORs, garbage")
                print("attacking", flush=True)
                first = False
        device, props, gatt, channel, psm = attached
        rounds += 1
        batch = zero_errors + malformed + replays + garbage_frames(40)
        rng.shuffle(batch)
        for frame in batch:
            if stop or time.monotonic() >= deadline:
                break
            before = gatt.errors
            gatt.send(frame)
            sent["gatt"] += 1
            if channel is not None:
                channel.send(frame)
                sent["l2cap"] += 1
                receive_all(channel.sock, 0.0, channel_frames)
                if channel.errors:   # the target closed it: no more sends on it until this stranger is back
                    channel.close()
                    attached = (device, props, gatt, None, psm)
                    channel = None
            gatt.notes.drain(0.0)
            if gatt.errors > before and not connected(props):
                break
        if not connected(props):
            drops += 1
            refused += gatt.errors + (channel.errors if channel else 0)
            notifications += gatt.notes.frames
            say(f"dropped by the target (drop {drops}); connecting again")
            for p in (gatt, channel):
                if p is not None:
                    p.close()
            attached = None
    if attached is not None:
        device, props, gatt, channel, psm = attached
        if channel is not None:
            receive_all(channel.sock, 1.0, channel_frames)
        gatt.notes.drain(1.0)
        refused += gatt.errors + (channel.errors if channel else 0)
        notifications += gatt.notes.frames
    say(f"{rounds} rounds: {sent['gatt']} GATT writes, {sent['l2cap']} SDUs ({refused} refused or unsent), "
        f"dropped {drops} times")
    # A recorded REQUEST or PUSH carries a genuine MAC, so the source answers its replay with a CHALLENGE for that
    # nonce or transfer (Docs/protocol.md: the gate's freshness rule); without the key nothing follows it. Any other
    # CHALLENGE would mean the target took a MAC the stranger made up.
    answered = {(0x84, bytes(f[6:14])) for f in replays if len(f) >= 30 and f[1] == 0x01}
    answered |= {(0xB3, bytes(f[2:10])) for f in replays if len(f) >= 62 and f[1] == 0x30}
    challenges, others = [], []
    for f in channel_frames:
        (challenges if len(f) >= 10 and (f[1], bytes(f[2:10])) in answered else others).append(f)
    if challenges:
        say(f"channel: {len(challenges)} CHALLENGEs to replayed REQUESTs or PUSHes (the designed answer; no PROVE can follow)")
    bad, _ = classify(others, "channel")
    figure("live_replays_challenged", len(challenges))
    # Notifications go to every subscriber, so the real transfer's own frames (sealed) may be among them: they are
    # counted, and must hold nothing readable.
    say(f"GATT notifications seen: {len(notifications)} (any real transfer's are sealed)")
    leaks = []
    if note_path:
        parser = load_capture_parser()
        note = open(note_path, encoding="utf-8").read()
        received = b"".join(channel_frames + notifications)
        for encoding, raw in parser.encodings(note).items():
            size = 16 if encoding == "UTF-8" else 32
            if any(piece in received for piece in parser.windows(raw, size, size // 2)):
                leaks.append(encoding)
    for leak in leaks:
        say(f"FORBIDDEN: the note's text as {leak} is in what the stranger received")
    figure("live_gatt_writes", sent["gatt"])
    figure("live_channel_sdus", sent["l2cap"])
    figure("live_replayed_frames", len(replays))
    figure("live_drops", drops)
    figure("live_forbidden", len(bad) + len(leaks))
    if attached is not None:
        device, props, gatt, channel, psm = attached
        for p in (gatt, channel):
            if p is not None:
                p.close()
        call("disconnect", device.Disconnect, timeout=10)
    return 1 if bad or leaks else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    option = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
    if cmd == "gatt":
        return cmd_gatt(args[0], option("--writes", 300))
    if cmd == "hold":
        return cmd_hold(args[0], float(args[1]), option("--channels", 32))
    if cmd == "pair-guess":
        return cmd_pair_guess(args[0], int(args[1]))
    if cmd == "pair-session":
        return cmd_pair_session(args[0], float(args[1]))
    if cmd == "flood":
        return cmd_flood(float(args[0]))
    if cmd == "capture":
        return cmd_capture(args[0], float(args[1]), int(args[2]) if len(args) > 2 else 1_000_000)
    if cmd == "replay-frames":
        secrets = [args[i + 1] for i, a in enumerate(args) if a == "--secret"]
        return cmd_replay_frames(args[0], args[1], args[args.index("--note") + 1], secrets)
    if cmd == "live":
        captures = [args[i + 1] for i, a in enumerate(args) if a == "--capture"]
        note = args[args.index("--note") + 1] if "--note" in args else None
        return cmd_live(args[0], float(args[1]), captures, note)
    if cmd == "replay":
        return cmd_replay(float(args[0]), [bytes.fromhex(h) for h in args[1:]])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
