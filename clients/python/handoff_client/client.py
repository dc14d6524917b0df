"""The handoff daemon's D-Bus API (org.handoff.Handoff1, Docs/dbus-api.md) from Python, on jeepney.

Every value that comes back from the bus is checked here before it becomes one of this module's types: the
daemon may be another version, and a caller may be on a bus where something else owns the name.
"""

from __future__ import annotations

import os
import plistlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Optional, Union

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

BUS_NAME = "org.handoff.Handoff1"
OBJECT_PATH = "/org/handoff/Handoff1"
INTERFACE = "org.handoff.Handoff1"

#: A property list value, as userInfo carries them (binary property lists, `bplist00`).
PlistValue = Union[str, int, float, bool, bytes, datetime, list[Any], dict[str, Any]]
UserInfo = Mapping[str, PlistValue]


class HandoffError(Exception):
    """An error the daemon answered (`org.handoff.Error.NoActivity`, …) or the bus did (`ServiceUnknown`)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}" if message else name)
        #: The D-Bus error name, e.g. ``org.handoff.Error.AccessDenied``.
        self.name = name
        #: The daemon's sentence.
        self.message = message

    @property
    def short_name(self) -> str:
        """The name without its prefix: ``AccessDenied``, ``NoActivity``, ``ServiceUnknown``."""
        return self.name.rsplit(".", 1)[-1]


class ProtocolError(HandoffError):
    """The daemon answered something of another shape than the API says."""

    def __init__(self, message: str) -> None:
        super().__init__("handoff_client.ProtocolError", message)


@dataclass(frozen=True)
class ActivitySummary:
    """``(ssssdt)``: what a paired device offers. A beacon carries no title or size: both are empty until the
    activity is continued."""

    id: str
    type: str
    title: str
    device: str
    age: float
    size: int

    @classmethod
    def from_bus(cls, value: object) -> ActivitySummary:
        if not (isinstance(value, tuple) and len(value) == 6):
            raise ProtocolError(f"an activity summary is (ssssdt), not {value!r:.80}")
        id_, type_, title, device, age, size = value
        return cls(_str(id_), _str(type_), _str(title), _str(device), _float(age), _int(size))


@dataclass(frozen=True)
class ActivityEvent:
    """One ``ActivityAppeared`` or ``ActivityDisappeared`` signal."""

    kind: Literal["appeared", "disappeared"]
    activity: ActivitySummary


@dataclass(frozen=True)
class Continued:
    """One ``CurrentActivityContinued`` signal: a paired device continued the activity ``activity_id`` this
    connection offers. ``pause_source``: it asked to pause what this machine plays (``--pause-source``)."""

    activity_id: str
    pause_source: bool
    #: Every detail as the bus gave it, newer keys included.
    details: dict[str, object] = field(default_factory=dict)


class ContinuedListener:
    """Hears ``CurrentActivityContinued`` on a :class:`Handoff`'s connection; made by
    :meth:`Handoff.listen_continued`. ``fileno()`` lets a program wait on it beside other sockets (``select``);
    ``poll()`` then reads what came. Close it (or use it as a context manager) to stop listening."""

    def __init__(self, connection: DBusConnection, rule: MatchRule, owner: Callable[[], Optional[str]]) -> None:
        self._connection = connection
        self._handle = connection.filter(rule, bufsize=64)
        self._queue = self._handle.queue
        self._owner = owner
        self._daemon: Optional[str] = None

    def fileno(self) -> int:
        return int(self._connection.sock.fileno())

    def poll(self, timeout: Optional[float] = 0.0) -> list[Continued]:
        """What arrived: when nothing is queued yet, waits up to ``timeout`` seconds (None: without end) for the
        connection's next message, then reads whatever else is ready without waiting. As on any jeepney
        connection, a message no listener wants is dropped."""
        wait = 0.0 if self._queue else timeout
        try:
            while True:
                self._connection.recv_messages(timeout=wait)
                wait = 0.0
        except TimeoutError:
            pass
        events: list[Continued] = []
        while self._queue:
            message = self._queue.popleft()
            # Anyone on the bus may send a signal to this connection: only the daemon's counts. Its unique name is
            # asked again when another sends one (the daemon may have restarted).
            sender = message.header.fields.get(HeaderFields.sender)
            if sender != self._daemon:
                self._daemon = self._owner()
                if sender != self._daemon:
                    continue
            body = message.body
            if len(body) != 2 or not isinstance(body[0], str) or not isinstance(body[1], dict):
                continue   # not the signal this version knows
            details = _variants(body[1])
            events.append(Continued(body[0], details.get("PauseSource") is True, details))
        return events

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> ContinuedListener:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass(frozen=True)
class Status:
    """``Status``'s answer. Fields a non-owner is not told are None."""

    version: str
    device_name: str
    adapter: str
    powered: bool
    owner: bool
    paired_devices: Optional[int]
    available_activities: Optional[int]
    current_activity: Optional[ActivitySummary]
    current_activity_app: Optional[str]
    #: Every entry as the bus gave it, newer keys included.
    entries: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ContinuedActivity:
    """``ContinueActivity``'s answer: the activity as its source offered it."""

    summary: ActivitySummary
    type: str
    title: str
    user_info: dict[str, PlistValue]
    transport: Optional[str]
    fallback: Optional[str]
    app: Optional[str]
    #: Every entry as the bus gave it, newer keys included.
    entries: dict[str, object] = field(default_factory=dict)


def encode_user_info(user_info: UserInfo) -> bytes:
    """userInfo as the binary property list the daemon takes (an empty dictionary as no bytes)."""
    if not user_info:
        return b""
    return plistlib.dumps(dict(user_info), fmt=plistlib.FMT_BINARY, sort_keys=True)


def decode_user_info(data: bytes) -> dict[str, PlistValue]:
    """A binary property list with a dictionary root, as the daemon returns userInfo."""
    if not data:
        return {}
    try:
        value = plistlib.loads(data, fmt=plistlib.FMT_BINARY)
    except Exception as error:  # plistlib raises several kinds for bad bytes
        raise ProtocolError(f"userInfo is not a binary property list: {error}") from error
    if not isinstance(value, dict):
        raise ProtocolError("userInfo's root is not a dictionary")
    return value


class Handoff:
    """A connection to handoffd.

    ``bus`` is ``"SYSTEM"`` (where the daemon runs in production), ``"SESSION"``, or a D-Bus address; by default
    ``$HANDOFF_BUS_ADDRESS`` when it is set (as for the ``handoff`` command), else the system bus.

    >>> with Handoff() as handoff:
    ...     handoff.status().version
    """

    def __init__(self, bus: Optional[str] = None, timeout: float = 10.0) -> None:
        address = bus or os.environ.get("HANDOFF_BUS_ADDRESS") or "SYSTEM"
        try:
            self._connection: DBusConnection = open_dbus_connection(bus=address)
        except OSError as error:
            raise HandoffError("org.freedesktop.DBus.Error.NoServer",
                               f"cannot reach the bus {address}: {error}") from error
        self._daemon = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=INTERFACE)
        self.timeout = timeout

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Handoff:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # The calls.

    def _call(self, method: str, signature: Optional[str] = None, body: tuple[Any, ...] = (),
              timeout: Optional[float] = None) -> tuple[Any, ...]:
        message = new_method_call(self._daemon, method, signature, body)
        reply = self._connection.send_and_get_reply(message, timeout=timeout or self.timeout)
        if reply.header.message_type == MessageType.error:
            name = reply.header.fields.get(HeaderFields.error_name, "org.freedesktop.DBus.Error.Failed")
            text = reply.body[0] if reply.body and isinstance(reply.body[0], str) else ""
            raise HandoffError(str(name), text)
        return tuple(reply.body)

    def status(self) -> Status:
        """The daemon's state: version, adapter, and for the owner the counts and the current activity."""
        (entries,) = self._call("Status")
        values = _variants(entries)
        current = values.get("CurrentActivity")
        paired = values.get("PairedDevices")
        available = values.get("AvailableActivities")
        app = values.get("CurrentActivityApp")
        return Status(
            version=_str(values.get("Version", "")), device_name=_str(values.get("DeviceName", "")),
            adapter=_str(values.get("Adapter", "")), powered=bool(values.get("Powered", False)),
            owner=bool(values.get("Owner", False)),
            paired_devices=None if paired is None else _int(paired),
            available_activities=None if available is None else _int(available),
            current_activity=None if current is None else ActivitySummary.from_bus(current),
            current_activity_app=None if app is None else _str(app), entries=values)

    def declare_type(self, activity_type: str, app: Optional[str] = None) -> None:
        """Declares ``activity_type`` on this device for as long as the daemon runs (an app does it when it starts,
        on every machine it runs on: a device continues only types it declares). ``app`` names the app for
        ``handoff status`` and ``handoff watch``."""
        options: dict[str, tuple[str, object]] = {} if app is None else {"App": ("s", app)}
        self._call("DeclareActivityType", "sa{sv}", (activity_type, options))

    def activity_types(self) -> dict[str, dict[str, object]]:
        """Every declared type, with ``App`` (when an app declared it) and ``BuiltIn``."""
        (types,) = self._call("ActivityTypes")
        if not isinstance(types, dict):
            raise ProtocolError("ActivityTypes answered no dictionary")
        return {_str(name): _variants(entries) for name, entries in types.items()}

    def set_current_activity(self, activity_type: str, title: str, user_info: UserInfo) -> str:
        """Offers a new activity to the paired devices nearby and returns its id."""
        (activity_id,) = self._call("SetCurrentActivity", "ssay",
                                    (activity_type, title, encode_user_info(user_info)))
        return _str(activity_id)

    def update_current_activity(self, activity_id: str, title: str, user_info: UserInfo) -> None:
        """Replaces what the current activity ``activity_id`` holds; peers see an update."""
        self._call("UpdateCurrentActivity", "ssay", (activity_id, title, encode_user_info(user_info)))

    def resign_current_activity(self, activity_id: str, grace: float = 0.0) -> None:
        """Stops offering ``activity_id`` after ``grace`` seconds (0: now); the daemon keeps the timer."""
        self._call("ResignCurrentActivity", "st", (activity_id, max(0, round(grace * 1000))))

    def clear_current_activity(self, activity_id: str) -> None:
        """Stops offering ``activity_id`` now."""
        self.resign_current_activity(activity_id, 0.0)

    def available_activities(self) -> list[ActivitySummary]:
        """What paired devices nearby offer, newest first."""
        (activities,) = self._call("AvailableActivities")
        return [ActivitySummary.from_bus(value) for value in activities]

    def continue_activity(self, activity_id: str,
                          will_continue: Optional[Callable[[ActivitySummary], bool]] = None,
                          progress: Optional[Callable[[str, int, int], None]] = None,
                          timeout: float = 120.0, pause_source: bool = False) -> Optional[ContinuedActivity]:
        """Fetches ``activity_id`` from its device.

        ``pause_source`` asks the source to pause what it plays once this device has the activity (``handoff
        continue --pause-source``): the app that offered it there hears ``CurrentActivityContinued``.

        ``will_continue`` is asked first with the summary (its type) and may say no: then nothing is fetched and
        None is returned, as Apple's ``willContinueUserActivityWithType``. ``progress(phase, received, total)``
        hears the ``Progress`` signals (``requesting``, ``transferring``, ``finishing``)."""
        if will_continue is not None:
            summary = next((a for a in self.available_activities() if a.id == activity_id), None)
            if summary is None:
                raise HandoffError("org.handoff.Error.NoActivity", f"activity {activity_id} is not available")
            if not will_continue(summary):
                return None
        rule = MatchRule(type="signal", interface=INTERFACE, member="Progress", path=OBJECT_PATH)
        with self._connection.filter(rule, bufsize=64) as queue:
            options = {"PauseSource": ("b", True)} if pause_source else {}
            message = new_method_call(self._daemon, "ContinueActivity", "sa{sv}", (activity_id, options))
            reply = self._connection.send_and_get_reply(message, timeout=timeout)
            if progress is not None:
                while queue:
                    body = queue.popleft().body
                    if len(body) == 4 and body[0] == activity_id:
                        progress(_str(body[1]), _int(body[2]), _int(body[3]))
        if reply.header.message_type == MessageType.error:
            name = reply.header.fields.get(HeaderFields.error_name, "org.freedesktop.DBus.Error.Failed")
            raise HandoffError(str(name), reply.body[0] if reply.body else "")
        values = _variants(reply.body[0])
        try:
            summary = ActivitySummary.from_bus(values["Summary"])
            info = values["UserInfo"]
            activity_type = _str(values["Type"])
        except KeyError as missing:
            raise ProtocolError(f"ContinueActivity's answer lacks {missing}") from None
        if not isinstance(info, bytes):
            raise ProtocolError("UserInfo is not ay")
        optional = {key: _str(values[key]) for key in ("Transport", "Fallback", "App") if key in values}
        return ContinuedActivity(
            summary=summary, type=activity_type, title=_str(values.get("Title", summary.title)),
            user_info=decode_user_info(info), transport=optional.get("Transport"),
            fallback=optional.get("Fallback"), app=optional.get("App"), entries=values)

    def listen_continued(self) -> ContinuedListener:
        """Hears when a paired device continues the activity this connection offered (``set_current_activity``
        on this same :class:`Handoff`), and what it asked; see :class:`ContinuedListener`."""
        rule = MatchRule(type="signal", interface=INTERFACE, member="CurrentActivityContinued", path=OBJECT_PATH)
        listener = ContinuedListener(self._connection, rule, self._daemon_owner)
        bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                          interface="org.freedesktop.DBus")
        # The signal is unicast to the offering connection; the rule only keeps a bus from dropping it.
        self._connection.send_and_get_reply(
            new_method_call(bus, "AddMatch", "s", (rule.serialise(),)), timeout=self.timeout)
        return listener

    def _daemon_owner(self) -> Optional[str]:
        """The unique name that owns ``org.handoff.Handoff1`` now (None: nobody)."""
        bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                          interface="org.freedesktop.DBus")
        reply = self._connection.send_and_get_reply(new_method_call(bus, "GetNameOwner", "s", (BUS_NAME,)),
                                                    timeout=self.timeout)
        if reply.header.message_type == MessageType.error or not reply.body or not isinstance(reply.body[0], str):
            return None
        return reply.body[0]

    def watch(self, timeout: Optional[float] = None) -> Iterator[ActivityEvent]:
        """``ActivityAppeared``/``ActivityDisappeared`` as they come. Stops after ``timeout`` seconds without an
        event (None: never). Only the daemon's signals count: anyone on the bus can send this connection the same
        ones, and such a forgery is dropped."""
        rule = MatchRule(type="signal", interface=INTERFACE, path=OBJECT_PATH)
        bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                          interface="org.freedesktop.DBus")
        with self._connection.filter(rule, bufsize=256) as queue:
            # The signals are unicast to watchers; the rule only keeps a bus from dropping them.
            self._connection.send_and_get_reply(
                new_method_call(bus, "AddMatch", "s", (rule.serialise(),)), timeout=self.timeout)
            self._call("WatchActivities")
            daemon = self._daemon_owner()
            while True:
                try:
                    message = self._connection.recv_until_filtered(queue, timeout=timeout)
                except TimeoutError:
                    return
                sender = message.header.fields.get(HeaderFields.sender)
                if sender != daemon:
                    daemon = self._daemon_owner()   # asked again: the daemon may have restarted
                    if sender != daemon:
                        continue
                member = message.header.fields.get(HeaderFields.member)
                if member == "ActivityAppeared" and message.body:
                    yield ActivityEvent("appeared", ActivitySummary.from_bus(message.body[0]))
                elif member == "ActivityDisappeared" and message.body:
                    yield ActivityEvent("disappeared", ActivitySummary.from_bus(message.body[0]))


def _variants(value: object) -> dict[str, object]:
    """An ``a{sv}`` as jeepney reads it (each value a ``(signature, value)`` pair) as a plain dictionary."""
    if not isinstance(value, dict):
        raise ProtocolError(f"expected a{{sv}}, not {value!r:.80}")
    plain: dict[str, object] = {}
    for key, variant in value.items():
        if isinstance(variant, tuple) and len(variant) == 2 and isinstance(variant[0], str):
            plain[_str(key)] = variant[1]
    return plain


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"expected a string, not {value!r:.80}")
    return value


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError(f"expected an integer, not {value!r:.80}")
    return value


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProtocolError(f"expected a number, not {value!r:.80}")
    return float(value)


__all__ = ["ActivityEvent", "ActivitySummary", "ContinuedActivity", "Handoff", "HandoffError", "PlistValue",
           "ProtocolError", "Status", "UserInfo", "decode_user_info", "encode_user_info"]
