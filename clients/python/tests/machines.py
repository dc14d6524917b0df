"""Two machines on one host, as scripts/demo-flow.sh makes them: bluezoo (the BlueZ mock) on a private system-like
bus (scripts/bluezoo-bus.sh), an API bus each (scripts/api-bus.sh, the production policy), the real handoffd on
hci0 ("laptop") and hci1 ("desktop"), paired through the real `handoff pair`. Started once per test process, on
first use, and stopped at exit. Anything that does not come up is an error, never a skip.

HANDOFF_BIN_DIR names the folder of handoffd and handoff (default: the repository's .build/debug).
"""

from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

REPO = pathlib.Path(__file__).resolve().parents[3]
BIN = pathlib.Path(os.environ.get("HANDOFF_BIN_DIR", REPO / ".build" / "debug"))


@dataclass
class Machine:
    name: str
    adapter: str
    bus: str            # the API bus's address (HANDOFF_BUS_ADDRESS)
    folder: pathlib.Path
    log: pathlib.Path

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(HANDOFF_BUS_ADDRESS=self.bus, HOME=str(self.folder / "home"),
                   XDG_DATA_HOME=str(self.folder / "home" / "data"))
        env.update(extra)
        return env

    def handoff(self, *arguments: str, input: Optional[str] = None, timeout: float = 60,
                env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "handoff"), *arguments], env=env or self.env(), input=input,
                              capture_output=True, text=True, timeout=timeout)


class Rig:
    def __init__(self) -> None:
        for program in ("handoffd", "handoff"):
            if not (BIN / program).exists():
                raise RuntimeError(f"{BIN / program} is not built (swift build)")
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="handoff-python-"))
        os.chmod(self.folder, 0o755)
        self.processes: list[subprocess.Popen[str]] = []
        self.bus_pids: list[int] = []
        atexit.register(self.stop)
        self.bluezoo = subprocess.Popen([str(REPO / "scripts" / "bluezoo-bus.sh")], stdout=subprocess.PIPE,
                                        text=True, start_new_session=True)
        self.processes.append(self.bluezoo)
        self.system_bus = ""
        assert self.bluezoo.stdout is not None
        for line in self.bluezoo.stdout:
            if line.startswith("DBUS_SYSTEM_BUS_ADDRESS="):
                self.system_bus = line.split("=", 1)[1].strip()
            if line.strip() == "READY":
                break
        if not self.system_bus:
            raise RuntimeError("scripts/bluezoo-bus.sh did not come up")
        self.machines = [self._machine("laptop", "hci0"), self._machine("desktop", "hci1")]
        for machine in self.machines:
            self._wait_for(machine)
        self._pair()

    @property
    def laptop(self) -> Machine:
        return self.machines[0]

    @property
    def desktop(self) -> Machine:
        return self.machines[1]

    def _machine(self, name: str, adapter: str) -> Machine:
        folder = self.folder / name
        folder.mkdir()
        os.chmod(folder, 0o755)
        (folder / "home").mkdir()
        command = [str(REPO / "scripts" / "api-bus.sh"), str(folder / "api")]
        if os.getuid() != 0:
            command += ["--owner", pwd_name()]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
        self.bus_pids.append(int(out[1]))
        log = folder / "handoffd.log"
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.system_bus)
        daemon = subprocess.Popen(
            [str(BIN / "handoffd"), "--adapter", adapter, "--name", name, "--bus", out[0], "--state-dir",
             str(folder / "state"), "--notify-bus", "none", "--discoverable"],
            env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, text=True)
        self.processes.append(daemon)
        return Machine(name=name, adapter=adapter, bus=out[0], folder=folder, log=log)

    def _wait_for(self, machine: Machine) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if machine.handoff("status", timeout=10).returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"the {machine.name} daemon did not start: {machine.log.read_text()}")

    def _pair(self) -> None:
        pairs = [subprocess.Popen([str(BIN / "handoff"), "pair"], env=m.env(), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for m in self.machines]
        for p in pairs:   # both answer y to the code at once, as two people at two machines would
            assert p.stdin is not None
            p.stdin.write("y\n")
            p.stdin.close()
        outputs = [p.stdout.read() if p.stdout else "" for p in pairs]
        for p in pairs:
            p.wait(timeout=120)
        if any(p.returncode != 0 for p in pairs):
            raise RuntimeError(f"pairing failed: {outputs}")

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                if process is self.bluezoo:
                    os.killpg(process.pid, signal.SIGTERM)
                else:
                    process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        for pid in self.bus_pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self.bus_pids = []
        self.processes = []
        shutil.rmtree(self.folder, ignore_errors=True)


def pwd_name() -> str:
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


_rig: Optional[Rig] = None


def rig() -> Rig:
    """The two paired machines of this test process."""
    global _rig
    if _rig is None:
        _rig = Rig()
    return _rig


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> object:
    """Polls ``predicate`` until it returns something true, or fails saying ``what`` did not happen."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout} s")
        time.sleep(0.1)

