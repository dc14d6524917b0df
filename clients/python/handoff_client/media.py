"""handoff-media: what is playing, offered to your other machines (``org.handoff.media``).

Watches the MPRIS media players on the session bus (mpv with mpv-mpris, VLC, Rhythmbox, browsers…). While one
plays, its track's URL, position and playing state are this machine's current activity; a seek, another track
or another player updates it, and it is withdrawn when nothing plays any more (paused, stopped, player gone).
On the other machine, ``handoff continue`` opens the URL in its own MPRIS player at the same position, and with
``--pause-source`` this machine's player pauses (the daemon signals ``CurrentActivityContinued``).

It sleeps on the bus between changes: no timer, no polling. Run it in your session::

    systemctl --user enable --now handoff-media      # or: handoff-media

userInfo of the activity: ``url`` (s), ``position`` (seconds, at ``capturedAt``), ``playing`` (b),
``capturedAt`` (seconds since 1970), ``title`` (s), ``player`` (the player's name, MPRIS ``Identity``).
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from jeepney import DBusAddress, MatchRule, MessageType, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from .client import Continued, Handoff, HandoffError

MEDIA_TYPE = "org.handoff.media"
MPRIS_PREFIX = "org.mpris.MediaPlayer2."
MPRIS_PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
#: Schemes worth offering: what the other machine's ``handoff continue`` opens.
OFFERED_SCHEMES = ("http://", "https://", "file://")


@dataclass(frozen=True)
class Track:
    """What one player plays, read at ``captured_at``."""

    player: str       # its bus name
    identity: str     # its name for people ("mpv")
    url: str
    title: str
    position: float   # seconds
    playing: bool
    captured_at: float

    def user_info(self) -> dict[str, Any]:
        return {"url": self.url, "position": round(self.position, 3), "playing": self.playing,
                "capturedAt": self.captured_at, "title": self.title, "player": self.identity}

    def activity_title(self) -> str:
        return f"{self.title or self.url} ({self.identity})"


class Players:
    """The MPRIS players on one session bus connection."""

    def __init__(self, session: DBusConnection, timeout: float = 2.0) -> None:
        self.session = session
        self.timeout = timeout
        self.bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                               interface="org.freedesktop.DBus")

    def call(self, address: DBusAddress, method: str, signature: Optional[str] = None,
             body: tuple[Any, ...] = ()) -> Optional[tuple[Any, ...]]:
        reply = self.session.send_and_get_reply(new_method_call(address, method, signature, body),
                                                timeout=self.timeout)
        if reply.header.message_type == MessageType.error:
            return None
        return tuple(reply.body)

    def names(self) -> list[str]:
        reply = self.call(self.bus, "ListNames")
        return sorted(n for n in (reply[0] if reply else []) if isinstance(n, str) and n.startswith(MPRIS_PREFIX))

    def properties(self, name: str, interface: str) -> dict[str, Any]:
        address = DBusAddress(MPRIS_PATH, bus_name=name, interface="org.freedesktop.DBus.Properties")
        reply = self.call(address, "GetAll", "s", (interface,))
        if not reply or not isinstance(reply[0], dict):
            return {}
        return {k: v[1] for k, v in reply[0].items() if isinstance(v, tuple) and len(v) == 2}

    def track(self, name: str, clock: Callable[[], float] = time.time) -> Optional[Track]:
        """What ``name`` plays now, if it plays something with a URL worth offering."""
        player = self.properties(name, PLAYER)
        metadata = player.get("Metadata")
        if not isinstance(metadata, dict):
            return None
        values = {k: v[1] for k, v in metadata.items() if isinstance(v, tuple) and len(v) == 2}
        url = values.get("xesam:url")
        if not isinstance(url, str) or not url.startswith(OFFERED_SCHEMES):
            return None
        title = values.get("xesam:title")
        position = player.get("Position")
        identity = self.properties(name, "org.mpris.MediaPlayer2").get("Identity")
        return Track(player=name, identity=identity if isinstance(identity, str) else name[len(MPRIS_PREFIX):],
                     url=url, title=title if isinstance(title, str) else "",
                     position=position / 1_000_000 if isinstance(position, int) else 0.0,
                     playing=player.get("PlaybackStatus") == "Playing", captured_at=clock())

    def playing(self) -> Optional[Track]:
        """The first player (by bus name) that plays a track worth offering."""
        for name in self.names():
            track = self.track(name)
            if track is not None and track.playing:
                return track
        return None


class MediaBridge:
    """Keeps the current activity equal to what plays: offered, updated, withdrawn."""

    def __init__(self, handoff: Handoff, players: Players, log: Callable[[str], None] = lambda _: None) -> None:
        self.handoff = handoff
        self.players = players
        self.log = log
        self.activity_id: Optional[str] = None
        self.offered: Optional[Track] = None

    def sync(self, moved: bool = False) -> None:
        """Reads the players and brings the offer up to date. ``moved``: a player seeked (its position jumped)."""
        track = self.players.playing()
        if track is None:
            self.withdraw()
            return
        same = self.offered is not None and (self.offered.player, self.offered.url, self.offered.playing) == (
            track.player, track.url, track.playing)
        if same and not moved:
            return
        try:
            if self.activity_id is None:
                self.activity_id = self.handoff.set_current_activity(MEDIA_TYPE, track.activity_title(),
                                                                     track.user_info())
                self.log(f"offering {track.activity_title()} at {track.position:.1f} s")
            else:
                self.handoff.update_current_activity(self.activity_id, track.activity_title(), track.user_info())
                self.log(f"updated: {track.activity_title()} at {track.position:.1f} s")
            self.offered = track
        except HandoffError as error:
            if error.short_name == "NotCurrent":   # another app took the current activity: offer anew next time
                self.activity_id, self.offered = None, None
            self.log(f"cannot offer {track.url}: {error}")

    def continued(self, events: list[Continued]) -> None:
        """A paired device continued what this bridge offers: when it asked, the player pauses (and the offer is
        then withdrawn, as for any pause)."""
        for event in events:
            if self.activity_id is None or event.activity_id != self.activity_id or self.offered is None:
                continue
            if not event.pause_source:
                self.log(f"continued on another device: {self.offered.activity_title()}")
                continue
            player = DBusAddress(MPRIS_PATH, bus_name=self.offered.player, interface=PLAYER)
            if self.players.call(player, "Pause") is None:
                self.log(f"continued on another device, which asked to pause, but {self.offered.identity} "
                         "did not pause")
            else:
                self.log(f"continued on another device, which asked to pause: {self.offered.identity} paused")

    def withdraw(self) -> None:
        if self.activity_id is None:
            return
        try:
            self.handoff.clear_current_activity(self.activity_id)
            self.log("nothing plays: withdrawn")
        except HandoffError as error:
            if error.short_name != "NotCurrent":
                self.log(f"cannot withdraw: {error}")
        self.activity_id, self.offered = None, None

    def run(self, stop: Callable[[], bool] = lambda: False) -> None:
        """Syncs now, then on every change the players signal and on every continue of the offer, until
        ``stop()`` says so (checked each second)."""
        session = self.players.session
        rules = [MatchRule(type="signal", interface="org.freedesktop.DBus.Properties", member="PropertiesChanged",
                           path=MPRIS_PATH),
                 MatchRule(type="signal", interface=PLAYER, member="Seeked", path=MPRIS_PATH),
                 MatchRule(type="signal", sender="org.freedesktop.DBus", interface="org.freedesktop.DBus",
                           member="NameOwnerChanged")]
        rules[2].add_arg_condition(0, "org.mpris.MediaPlayer2", "namespace")
        with session.filter(rules[0], bufsize=256) as changes, session.filter(rules[1], bufsize=256) as seeks, \
                session.filter(rules[2], bufsize=256) as owners, self.handoff.listen_continued() as continues:
            for rule in rules:
                self.players.call(self.players.bus, "AddMatch", "s", (rule.serialise(),))
            self.sync()
            while not stop():
                # Both connections are read dry before sleeping on their sockets: a call's reply may have brought
                # a whole message more with it, which no socket would announce.
                _drain(session)
                self.continued(continues.poll(0.0))
                if changes or seeks or owners:
                    moved = bool(seeks)
                    changes.clear()
                    seeks.clear()
                    owners.clear()
                    self.sync(moved=moved)
                    continue
                select.select([session.sock, continues], [], [], 1.0)
        self.withdraw()


def _drain(connection: DBusConnection) -> None:
    """Hands every message ready on ``connection`` to its filters, without waiting."""
    try:
        while True:
            connection.recv_messages(timeout=0.0)
    except TimeoutError:
        pass


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="handoff-media",
        description="Offer what your MPRIS media player plays to your other machines (org.handoff.media); "
                    "'handoff continue' there opens it at the same position.")
    parser.add_argument("--bus", help="the handoff daemon's bus (default: $HANDOFF_BUS_ADDRESS, else the system bus)")
    parser.add_argument("--session-bus", help="the session bus of the players (default: $DBUS_SESSION_BUS_ADDRESS)")
    parser.add_argument("--quiet", action="store_true", help="say nothing but errors")
    arguments = parser.parse_args(argv)

    def log(line: str) -> None:
        if not arguments.quiet:
            print(f"handoff-media: {line}", flush=True)

    try:
        handoff = Handoff(arguments.bus)
    except HandoffError as error:
        print(f"handoff-media: error: {error}", file=sys.stderr)
        return 69
    session_address = arguments.session_bus or os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not session_address:
        print("handoff-media: error: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)", file=sys.stderr)
        return 69
    try:
        session = open_dbus_connection(bus=session_address)
    except OSError as error:
        print(f"handoff-media: error: cannot reach the session bus: {error}", file=sys.stderr)
        return 69
    bridge = MediaBridge(handoff, Players(session), log)
    stopping: list[int] = []
    # systemctl --user stop sends SIGTERM: withdraw the offer before leaving, as on Ctrl-C.
    signal.signal(signal.SIGTERM, lambda number, _frame: stopping.append(number))
    try:
        bridge.run(stop=lambda: bool(stopping))
    except KeyboardInterrupt:
        bridge.withdraw()
    except HandoffError as error:
        print(f"handoff-media: error: {error}", file=sys.stderr)
        return 1
    finally:
        session.close()
        handoff.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["MEDIA_TYPE", "MediaBridge", "Players", "Track", "main"]
