"""The same round trip as codec-bench, through Python's plistlib (the baseline of issue 12 §5): the payload's
root dictionary dumped as a binary plist, then loaded. Prints one JSON object per payload, like codec-bench."""
import json
import plistlib
import sys
import time


def payloads():
    def note(content):
        return {"format": 1, "activityType": "org.handoff.note", "title": "Groceries",
                "userInfo": {"name": "groceries", "title": "Groceries", "content": content},
                "isEligibleForHandoff": True, "keywords": []}
    line = "buy milk, eggs, flour and a loaf of bread for the week ahead\n"
    ascii_text = line * (3000 // len(line.encode()) + 1)
    unicode_text = "café crème, œufs, farine — et du pain ☕\n" * 70
    return [("note-3k-ascii", note(ascii_text)), ("note-3k-unicode", note(unicode_text))]


def measure(root, seconds):
    """Microseconds of this thread's CPU time per round trip (as codec-bench measures)."""
    iterations = 0
    start = time.thread_time()
    deadline = start + seconds
    while time.thread_time() < deadline:
        for _ in range(64):
            decoded = plistlib.loads(plistlib.dumps(root, fmt=plistlib.FMT_BINARY))
            assert decoded["activityType"] == root["activityType"]
        iterations += 64
    return (time.thread_time() - start) * 1e6 / iterations


def main():
    seconds, reps = float(sys.argv[1]), int(sys.argv[2])
    for name, root in payloads():
        size = len(plistlib.dumps(root, fmt=plistlib.FMT_BINARY))
        times = sorted(measure(root, seconds) for _ in range(reps))
        print(json.dumps({"payload": name, "bytes": size, "reps": reps, "median_us": round(times[len(times) // 2], 2),
                          "min_us": round(times[0], 2), "max_us": round(times[-1], 2)}))


main()
