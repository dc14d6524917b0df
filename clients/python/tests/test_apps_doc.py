"""Docs/apps.md's three examples, run as they are written against the two real daemons of tests/machines.py: the
C one compiled and run, the shell one in bash, the Python one executed, each offering on the laptop and (shell,
Python) continuing on the desktop. The doc stays true to the API because its examples are the test."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import tempfile
import threading
import time
import unittest
from typing import Any

from handoff_client import Handoff, HandoffError

from .machines import BIN, REPO, rig, wait_until

DOC = (REPO / "Docs" / "apps.md").read_text()


def block(language: str) -> str:
    """The first fenced block of ``language`` in Docs/apps.md."""
    match = re.search(rf"^```{language}\n(.*?)^```", DOC, re.S | re.M)
    assert match, f"Docs/apps.md has no {language} example"
    return match.group(1)


class AppsDocTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.rig = rig()
        cls.laptop = Handoff(cls.rig.laptop.bus)
        cls.desktop = Handoff(cls.rig.desktop.bus)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.laptop.close()
        cls.desktop.close()

    def tearDown(self) -> None:
        current = self.laptop.status().current_activity
        if current is not None:
            try:
                self.laptop.clear_current_activity(current.id)
            except HandoffError:
                pass

    def env(self, machine: Any, **extra: str) -> dict[str, str]:
        # The examples use the system bus and `handoff` on PATH: point both at the machine.
        return machine.env(DBUS_SYSTEM_BUS_ADDRESS=machine.bus, PATH=f"{BIN}:{os.environ['PATH']}", **extra)

    def test_the_c_example_declares_and_offers(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            source = pathlib.Path(folder) / "reader.c"
            source.write_text("#include <stdio.h>\n" + block("c"))
            flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsystemd", "libplist-2.0"],
                                   capture_output=True, text=True, check=True).stdout.split()
            subprocess.run(["cc", "-Wall", "-o", f"{folder}/reader", str(source), *flags], check=True)
            result = subprocess.run([f"{folder}/reader"], env=self.env(self.rig.laptop), capture_output=True,
                                    text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"^offered [0-9A-F-]{36}\n$")
        status = self.laptop.status()
        assert status.current_activity is not None
        self.assertEqual(status.current_activity.title, "Middlemarch, ch. 3")
        self.assertEqual(status.current_activity_app, "Reader")

    def test_the_shell_example_offers_and_restores(self) -> None:
        offer, restore = block("sh").split("# On the other machine", 1)
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", offer], env=self.env(self.rig.laptop),
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.laptop.status().current_activity_app, "Reader")
        self.desktop.declare_type("org.example.reader", app="Reader")
        wait_until(lambda: any(a.type == "org.example.reader" for a in self.desktop.available_activities()), 20,
                   "the desktop did not see the shell's offer")
        script = "open-book() { echo \"opened at $2\"; }\n# On the other machine" + restore
        result = subprocess.run(["bash", "-c", script], env=self.env(self.rig.desktop), capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.stdout, "opened at 41\n", result.stderr)

    def test_the_python_example_offers_and_restores(self) -> None:
        code = block("python")
        offer, restore = code.split("# On the other machine", 1)
        restore = "# On the other machine" + restore
        namespace: dict[str, Any] = {}
        os.environ["HANDOFF_BUS_ADDRESS"] = self.rig.laptop.bus
        try:
            exec(compile(offer, "apps.md (offer)", "exec"), namespace)
            self.assertIsNone(self.laptop.status().current_activity)   # offered, updated, cleared
            # Offer once more, and leave it, for the other machine to continue.
            exec(compile(offer.replace("    handoff.clear_current_activity(id)\n", ""), "apps.md", "exec"),
                 namespace)
            opened: list[tuple[object, int]] = []
            namespace.update(reader_is_open=lambda: True, open_book=lambda book, page: opened.append((book, page)))
            os.environ["HANDOFF_BUS_ADDRESS"] = self.rig.desktop.bus
            self.desktop.declare_type("org.example.reader", app="Reader")
            done = threading.Event()

            failures: list[BaseException] = []

            def run() -> None:
                try:
                    exec(compile(restore, "apps.md (restore)", "exec"), namespace)
                except BaseException as error:  # reported below, in the test's thread
                    failures.append(error)
                done.set()
            # The watch lists what appears from now on: offer again once it listens.
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            time.sleep(0.5)
            current = self.laptop.status().current_activity
            assert current is not None
            self.laptop.update_current_activity(current.id, "Middlemarch, ch. 3",
                                                {"book": "middlemarch.epub", "page": 42})
            self.assertTrue(done.wait(30), "the Python example did not restore")
            self.assertEqual(failures, [])
        finally:
            os.environ.pop("HANDOFF_BUS_ADDRESS", None)
        self.assertEqual(opened, [("middlemarch.epub", 42)])


if __name__ == "__main__":
    unittest.main()
