"""handoff_client against the real handoffd: two daemons paired over bluezoo (tests/machines.py). What an app
does (declare its type, offer an activity with a userInfo dictionary, update it, clear it) on the laptop, and
what the other machine sees (status, watch, continue) on the desktop."""

from __future__ import annotations

import datetime
import pathlib
import subprocess
import threading
import unittest

from jeepney import DBusAddress, HeaderFields, new_method_call, new_signal
from jeepney.io.blocking import open_dbus_connection

from handoff_client import ActivityEvent, Continued, Handoff, HandoffError

from .machines import BIN, rig, wait_until

READER = "org.example.reader"


class ClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.rig = rig()
        cls.laptop = Handoff(cls.rig.laptop.bus)
        cls.desktop = Handoff(cls.rig.desktop.bus)
        # An app declares its type where it runs, on both machines.
        cls.laptop.declare_type(READER, app="Reader")
        cls.desktop.declare_type(READER, app="Reader")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.laptop.close()
        cls.desktop.close()

    def offer(self, title: str, user_info: dict[str, object]) -> str:
        activity_id = self.laptop.set_current_activity(READER, title, user_info)  # type: ignore[arg-type]
        self.addCleanup(self._clear, activity_id)
        return activity_id

    def _clear(self, activity_id: str) -> None:
        try:
            self.laptop.clear_current_activity(activity_id)
        except HandoffError:
            pass

    def freshest(self, activity_type: str) -> str:
        def find() -> object:
            found = [a for a in self.desktop.available_activities() if a.type == activity_type]
            return found[0].id if found else None
        return str(wait_until(find, 20, f"the desktop did not see the laptop's {activity_type}"))

    def test_status_says_the_version_the_pairing_and_the_owner(self) -> None:
        status = self.laptop.status()
        self.assertEqual(status.device_name, "laptop")
        self.assertTrue(status.owner)
        self.assertEqual(status.paired_devices, 1)
        self.assertTrue(status.version)
        self.assertIsNone(status.current_activity)

    def test_declared_types_are_listed_with_their_app(self) -> None:
        types = self.desktop.activity_types()
        self.assertEqual(types[READER].get("App"), "Reader")
        self.assertEqual(types[READER].get("BuiltIn"), False)
        self.assertEqual(types["org.handoff.note"].get("BuiltIn"), True)
        with self.assertRaises(HandoffError) as refused:
            self.laptop.declare_type("bad\ntype")
        self.assertEqual(refused.exception.short_name, "InvalidArguments")

    def test_an_undeclared_type_is_refused(self) -> None:
        with self.assertRaises(HandoffError) as refused:
            self.laptop.set_current_activity("org.example.never-declared", "x", {})
        self.assertEqual(refused.exception.short_name, "UndeclaredActivityType")

    def test_an_offer_is_continued_on_the_other_machine_with_its_user_info(self) -> None:
        info = {"page": 41, "ratio": 0.25, "bookmarked": True, "book": "Middlemarch — vol. 1",
                "cover": b"\x00\x01\xff", "chapters": [1, 2, 3], "place": {"line": 7},
                "opened": datetime.datetime(2026, 12, 7, 6, 0, 0)}
        self.offer("Middlemarch, chapter 3", info)
        status = self.laptop.status()
        assert status.current_activity is not None
        self.assertEqual((status.current_activity.type, status.current_activity.title),
                         (READER, "Middlemarch, chapter 3"))
        self.assertEqual(status.current_activity_app, "Reader")   # the app declared for the type

        activity_id = self.freshest(READER)
        phases: list[str] = []
        continued = self.desktop.continue_activity(activity_id, progress=lambda phase, _r, _t: phases.append(phase))
        assert continued is not None
        self.assertEqual(continued.type, READER)
        self.assertEqual(continued.title, "Middlemarch, chapter 3")
        self.assertEqual(continued.user_info, info)
        self.assertEqual(continued.summary.device, "laptop")
        self.assertEqual(continued.app, "Reader")
        self.assertIn(continued.transport, ("l2cap", "gatt"))
        self.assertEqual(phases[0], "requesting")
        self.assertEqual(phases[-1], "finishing")

    def test_will_continue_may_decline_and_nothing_is_fetched(self) -> None:
        self.offer("declined", {"page": 1})
        activity_id = self.freshest(READER)
        asked: list[str] = []
        result = self.desktop.continue_activity(activity_id, will_continue=lambda s: asked.append(s.type) is not None)
        self.assertIsNone(result)
        self.assertEqual(asked, [READER])
        self.assertIn(activity_id, [a.id for a in self.desktop.available_activities()])

    def test_an_update_reaches_the_other_machine_and_a_clear_withdraws_it(self) -> None:
        activity_id = self.offer("page 1", {"page": 1})
        first = self.freshest(READER)
        self.laptop.update_current_activity(activity_id, "page 2", {"page": 2})
        second = str(wait_until(lambda: next((a.id for a in self.desktop.available_activities()
                                              if a.type == READER and a.id != first), None), 20,
                                "the desktop did not see the update"))
        continued = self.desktop.continue_activity(second)
        assert continued is not None
        self.assertEqual((continued.title, continued.user_info), ("page 2", {"page": 2}))
        self.laptop.clear_current_activity(activity_id)
        self.assertIsNone(self.laptop.status().current_activity)
        with self.assertRaises(HandoffError) as gone:
            self.laptop.update_current_activity(activity_id, "page 3", {})
        self.assertEqual(gone.exception.short_name, "NotCurrent")

    def test_watch_sees_the_offer_appear(self) -> None:
        events: list[ActivityEvent] = []
        with Handoff(self.rig.desktop.bus) as watcher:
            stream = watcher.watch(timeout=15)
            started = threading.Event()

            def collect() -> None:
                started.set()
                for event in stream:
                    events.append(event)
                    if event.kind == "appeared" and event.activity.type == READER:
                        return
            thread = threading.Thread(target=collect)
            thread.start()
            started.wait()
            # The watch subscribes when the generator first runs: give it a moment on the bus.
            wait_until(lambda: thread.is_alive(), 1, "the watch did not start")
            import time
            time.sleep(0.5)
            # Anyone on the bus can send the watcher the same signal first: a forgery from a device never paired.
            with open_dbus_connection(bus=self.rig.desktop.bus) as forger:
                forged = new_signal(DBusAddress("/org/handoff/Handoff1", interface="org.handoff.Handoff1"),
                                    "ActivityAppeared", "(ssssdt)",
                                    (("forged-id", READER, "forged", "intruder", 0.0, 1),))
                forged.header.fields[HeaderFields.destination] = watcher._connection.unique_name
                forger.send(forged)
            self.offer("watched", {"page": 9})
            thread.join(20)
        self.assertTrue(any(e.kind == "appeared" and e.activity.type == READER and e.activity.device == "laptop"
                            for e in events), events)
        self.assertFalse([e for e in events if e.activity.device == "intruder"], events)

    def test_the_cli_names_the_app_in_status_and_watch(self) -> None:
        self.offer("cli", {"page": 5})
        status = self.rig.laptop.handoff("status")
        self.assertIn("current activity: cli (org.example.reader), offered by Reader", status.stdout)
        watch = subprocess.Popen([str(BIN / "handoff"), "watch"], env=self.rig.desktop.env(),
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert watch.stdout is not None
            line = watch.stdout.readline()
        finally:
            watch.terminate()
            watch.wait(10)
        self.assertEqual(line, "available: org.example.reader from laptop, app Reader\n")

    def test_the_process_names_the_app_when_no_app_was_declared_for_the_type(self) -> None:
        activity_id = self.laptop.set_current_activity("org.handoff.note", "groceries", {"name": "groceries",
                                                                                         "content": "milk"})
        self.addCleanup(self._clear, activity_id)
        comm = pathlib.Path("/proc/self/comm").read_text().strip()
        self.assertEqual(self.laptop.status().current_activity_app, comm)

    def test_continue_keeps_the_four_values_of_the_first_published_api(self) -> None:
        self.offer("four", {"page": 4})
        activity_id = self.freshest(READER)
        daemon = DBusAddress("/org/handoff/Handoff1", bus_name="org.handoff.Handoff1",
                             interface="org.handoff.Handoff1")
        reply = self.desktop._connection.send_and_get_reply(  # the raw call a client of 0.1.0's docs makes
            new_method_call(daemon, "Continue", "s", (activity_id,)), timeout=60)
        summary, activity_type, title, user_info = reply.body   # "too many values to unpack" would fail here
        self.assertEqual((activity_type, title, summary[3]), (READER, "four", "laptop"))
        self.assertTrue(user_info.startswith(b"bplist00"))

    def test_the_offering_app_hears_the_continue_and_whether_to_pause(self) -> None:
        with self.laptop.listen_continued() as heard:
            earlier = {a.id for a in self.desktop.available_activities()}   # an earlier test's offer, not yet gone
            activity_id = self.offer("paused", {"page": 3})
            # Anyone on the bus can send this connection the same signal: a forgery, marked to be told apart.
            with open_dbus_connection(bus=self.rig.laptop.bus) as forger:
                forged = new_signal(DBusAddress("/org/handoff/Handoff1", interface="org.handoff.Handoff1"),
                                    "CurrentActivityContinued", "sa{sv}",
                                    (activity_id, {"PauseSource": ("b", True), "Forged": ("b", True)}))
                forged.header.fields[HeaderFields.destination] = self.laptop._connection.unique_name
                forger.send(forged)
            listed = wait_until(lambda: next((a.id for a in self.desktop.available_activities()
                                              if a.type == READER and a.id not in earlier), None), 20,
                                "the desktop did not see the offer")
            continued = self.desktop.continue_activity(str(listed), pause_source=True)
            assert continued is not None
            events: list[Continued] = []
            # The forgery was sent first, so it was read (and dropped) before the daemon's signal.
            wait_until(lambda: events.extend(heard.poll(0.5)) or events, 20, "the laptop's app heard nothing")
        self.assertEqual([(e.activity_id, e.pause_source) for e in events], [(activity_id, True)])
        self.assertNotIn("Forged", events[0].details)

    def test_errors_keep_the_daemon_s_name(self) -> None:
        with self.assertRaises(HandoffError) as missing:
            self.desktop.continue_activity("no-such-activity")
        self.assertEqual(missing.exception.short_name, "NoActivity")
        with self.assertRaises(HandoffError) as nobody:
            Handoff("unix:path=/nonexistent/bus")
        self.assertEqual(nobody.exception.short_name, "NoServer")


if __name__ == "__main__":
    unittest.main()
