"""What is playing (org.handoff.media) between the two machines of tests/machines.py, with the real mpv and its
MPRIS plugin (mpv-mpris), headless (no video, audio to null), each machine with its own session bus.

The laptop's mpv plays a minute of sound the test writes; handoff-media (the bridge) offers it; the desktop's
`handoff continue` opens it in the desktop's idle mpv at the laptop's position, within a second; a seek on the
laptop updates the offer; a pause withdraws it; `handoff continue --pause-source` pauses the laptop's mpv."""

from __future__ import annotations

import math
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import wave
from typing import Optional

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from handoff_client import Handoff
from handoff_client.media import MEDIA_TYPE, Players

from .machines import REPO, rig, wait_until

MPRIS_PLUGIN = pathlib.Path("/usr/lib/mpv-mpris/mpris.so")
PLAYER = "org.mpris.MediaPlayer2.mpv"


def write_sound(path: pathlib.Path, seconds: int) -> None:
    """A quiet 440 Hz tone, 8 kHz mono 16-bit: a file any player opens."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        frame = [struct.pack("<h", int(2000 * math.sin(2 * math.pi * 440 * i / 8000))) for i in range(8000)]
        out.writeframes(b"".join(frame) * seconds)


class Session:
    """A private session bus and an mpv on it."""

    def __init__(self, folder: pathlib.Path, play: Optional[pathlib.Path] = None, start: float = 0) -> None:
        self.bus_process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1", f"--address=unix:path={folder}/session"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.bus_process.stdout is not None
        self.address = self.bus_process.stdout.readline().strip()
        command = ["mpv", "--no-config", "--no-video", "--ao=null", "--no-terminal", f"--script={MPRIS_PLUGIN}",
                   "--idle=yes", "--keep-open=yes"]
        if play is not None:
            command += [f"--start={start}", str(play)]
        self.mpv = subprocess.Popen(command, env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.address),
                                    stdout=subprocess.DEVNULL, stderr=(folder / "mpv.log").open("w"))
        self.connection: DBusConnection = open_dbus_connection(bus=self.address)
        self.players = Players(self.connection)
        wait_until(lambda: PLAYER in self.players.names(), 10, f"mpv did not come on the session bus at {folder}")

    def player(self) -> dict[str, object]:
        return self.players.properties(PLAYER, "org.mpris.MediaPlayer2.Player")

    def position(self) -> float:
        value = self.player()["Position"]
        assert isinstance(value, int)
        return value / 1_000_000

    def control(self, method: str, signature: Optional[str] = None, body: tuple[object, ...] = ()) -> None:
        address = DBusAddress("/org/mpris/MediaPlayer2", bus_name=PLAYER, interface="org.mpris.MediaPlayer2.Player")
        self.connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=5)

    def stop(self) -> None:
        self.connection.close()
        for process in (self.mpv, self.bus_process):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


class MediaTests(unittest.TestCase):
    def setUp(self) -> None:
        for program in ("mpv", "dbus-daemon"):
            if shutil.which(program) is None:
                self.fail(f"{program} is missing: run scripts/deps.sh test")   # an error, never a skip
        if not MPRIS_PLUGIN.exists():
            self.fail(f"{MPRIS_PLUGIN} is missing: run scripts/deps.sh test (package mpv-mpris)")
        self.rig = rig()
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="handoff-media-"))
        self.addCleanup(shutil.rmtree, self.folder, True)
        self.sound = self.folder / "a minute.wav"
        write_sound(self.sound, 60)
        (self.folder / "laptop").mkdir()
        (self.folder / "desktop").mkdir()
        self.source = Session(self.folder / "laptop", play=self.sound, start=20)
        self.addCleanup(self.source.stop)
        self.target = Session(self.folder / "desktop")
        self.addCleanup(self.target.stop)
        self.laptop = Handoff(self.rig.laptop.bus)
        self.addCleanup(self.laptop.close)
        self.desktop = Handoff(self.rig.desktop.bus)
        self.addCleanup(self.desktop.close)
        self.bridge = subprocess.Popen(
            [sys.executable, "-m", "handoff_client.media", "--bus", self.rig.laptop.bus, "--session-bus",
             self.source.address], cwd=REPO / "clients" / "python", stdout=(self.folder / "bridge.log").open("w"),
            stderr=subprocess.STDOUT)
        self.addCleanup(self._stop_bridge)

    def _stop_bridge(self) -> None:
        self.bridge.terminate()
        self.bridge.wait(10)

    def offered(self, other_than: Optional[str] = None) -> str:
        def find() -> object:
            ids = [a.id for a in self.desktop.available_activities() if a.type == MEDIA_TYPE and a.id != other_than]
            return ids[0] if ids else None
        return str(wait_until(find, 20, "the desktop did not see what the laptop plays"))

    def continue_on_desktop(self, *options: str) -> None:
        result = self.rig.desktop.handoff("continue", "--type", MEDIA_TYPE, *options,
                                          env=self.rig.desktop.env(DBUS_SESSION_BUS_ADDRESS=self.target.address))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("playing a minute.wav from laptop in mpv at", result.stderr)

    def assert_same_place(self) -> None:
        source, target = self.source.position(), self.target.position()
        print(f"\nmedia: the laptop at {source:.3f} s, the desktop at {target:.3f} s: {abs(source - target):.3f} s apart",
              file=sys.stderr)
        self.assertLess(abs(source - target), 1.0, f"the laptop is at {source:.2f} s, the desktop at {target:.2f} s")

    def test_what_plays_is_continued_at_the_same_place_updated_and_withdrawn(self) -> None:
        first = self.offered()
        status = self.laptop.status()
        assert status.current_activity is not None
        self.assertEqual(status.current_activity.type, MEDIA_TYPE)
        self.assertEqual(status.current_activity.title, "a minute.wav (mpv)")
        time.sleep(1.5)   # the source plays on: the continue must add the time since the position was read

        self.continue_on_desktop()
        self.assert_same_place()
        # It plays (mpv-mpris says Stopped for a track opened from idle, so the position says it).
        before = self.target.position()
        time.sleep(0.5)
        self.assertGreater(self.target.position(), before + 0.2)
        metadata = self.target.player()["Metadata"]
        assert isinstance(metadata, dict)
        self.assertEqual(metadata["xesam:url"][1], self.sound.as_uri())

        # A seek on the laptop updates the offer; continuing again follows it.
        self.source.control("SetPosition", "ox", ("/0", 40_000_000))
        self.offered(other_than=first)
        self.continue_on_desktop()
        self.assert_same_place()
        self.assertGreater(self.target.position(), 39)

        # Paused: nothing plays, so nothing is offered.
        self.source.control("Pause")
        wait_until(lambda: self.laptop.status().current_activity is None, 10,
                   "the laptop still offers what no longer plays")

    def test_pause_source_pauses_the_laptops_player_and_the_song_plays_on_the_desktop(self) -> None:
        self.offered()
        self.continue_on_desktop("--pause-source")
        wait_until(lambda: self.source.player()["PlaybackStatus"] == "Paused", 10,
                   "the laptop's mpv still plays after continue --pause-source")
        paused_at = self.source.position()
        target = self.target.position()
        print(f"\nmedia: the laptop paused at {paused_at:.3f} s, the desktop plays at {target:.3f} s", file=sys.stderr)
        self.assertLess(abs(paused_at - target), 1.0, f"the laptop paused at {paused_at:.2f} s, "
                                                       f"the desktop is at {target:.2f} s")
        before = self.target.position()
        time.sleep(0.5)
        self.assertGreater(self.target.position(), before + 0.2, "the desktop does not play")
        wait_until(lambda: self.laptop.status().current_activity is None, 10,
                   "the laptop still offers what it paused")
        self.assertIn("which asked to pause: mpv paused", (self.folder / "bridge.log").read_text())


if __name__ == "__main__":
    unittest.main()
