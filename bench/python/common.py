"""What every Python benchmark client shares: the command line, the names and the timing loop.

Usage of a client: CLIENT ADDRESS SECONDS WARMUP SIZE TESTS (the same as bench/c/client.c).
Each client prints one JSON object per test: {"test": ..., "calls": N, "seconds": T, "bytes": B, "cpu": C}, where
T is wall-clock time and C the CPU time (user + system) the client process used during the measured calls.
"""

import json
import sys
import time

BUS_NAME = "org.handoff.Bench"
OBJECT_PATH = "/org/handoff/Bench"
INTERFACE = "org.handoff.Bench"
ECHO_TEXT = "hello, handoff"
TESTS = ("ping", "echo", "sink", "source")


class Arguments:
    """The parsed command line."""

    def __init__(self, argv):
        if len(argv) != 6:
            sys.exit(f"usage: {argv[0]} ADDRESS SECONDS WARMUP SIZE TESTS")
        self.address = argv[1]
        self.seconds = float(argv[2])
        self.warmup = float(argv[3])
        self.size = int(argv[4])
        self.tests = argv[5].split(",")
        unknown = [t for t in self.tests if t not in TESTS]
        if unknown:
            sys.exit(f"unknown tests {unknown}; known: {', '.join(TESTS)}")
        self.payload = bytes((i * 7) & 0xFF for i in range(self.size))


def report(test, calls, seconds, moved, cpu):
    line = {"test": test, "calls": calls, "seconds": round(seconds, 6), "bytes": moved, "cpu": round(cpu, 6)}
    print(json.dumps(line), flush=True)


def fail(test, what):
    sys.exit(f"{test}: {what}")


def run(args, one_call):
    """Times `one_call(test) -> bytes moved` for each test: warm-up first, then a fixed measured duration."""
    for test in args.tests:
        start = time.perf_counter()
        while time.perf_counter() - start < args.warmup:
            one_call(test)
        calls = moved = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        while True:
            moved += one_call(test)
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= args.seconds:
                break
        report(test, calls, elapsed, moved, time.process_time() - cpu_start)


async def run_async(args, one_call):
    """The same as `run`, for a coroutine `one_call`; exactly one call is outstanding at a time."""
    for test in args.tests:
        start = time.perf_counter()
        while time.perf_counter() - start < args.warmup:
            await one_call(test)
        calls = moved = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        while True:
            moved += await one_call(test)
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= args.seconds:
                break
        report(test, calls, elapsed, moved, time.process_time() - cpu_start)
