#!/usr/bin/env python3
"""Turns bench/vm/cost-guest.sh's cost.tsv into OUT.json (every field of every window) and OUT.txt (tables).

    cost-summary.py COST_TSV OUT [--commit C] [--load L] [--run DIR]
"""
import argparse
import json
import time


def parse(path):
    rows = []
    with open(path) as f:
        for line in f:
            fields = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if fields.get("kind") == "threads":
                rows.append({"kind": "threads", "of": fields.get("of"), "n": int(fields.get("n", 0)),
                             "method": fields.get("method"),
                             "threads": {k: int(v) for k, v in fields.items()
                                         if k not in ("kind", "of", "n", "method")}})
                continue
            row = {k: (v if k in ("kind", "method") else int(v)) for k, v in fields.items()}
            rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tsv")
    parser.add_argument("out")
    parser.add_argument("--commit", default="?")
    parser.add_argument("--load", default="?")
    parser.add_argument("--run", default="?")
    args = parser.parse_args()
    rows = parse(args.tsv)
    windows = [r for r in rows if r["kind"] != "threads"]
    threads = [r for r in rows if r["kind"] == "threads"]
    # Wakeups: the voluntary switches of the threads alive at the end of the window (a thread born in the window
    # counts from zero). Summing /proc/PID/task/*/status before and after would go negative when Dispatch retires
    # worker threads during the window; those threads' last switches are not counted.
    for window in windows:
        woke = next((t for t in threads if t["of"] == window["kind"] and t["n"] == window["n"]
                     and t["method"] == window["method"]), None)
        window["wakeups"] = sum(woke["threads"].values()) if woke else None
    doc = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": args.commit,
           "host_load": args.load, "vm_run": args.run, "windows": windows, "threads": threads}
    lines = [f"handoffd cost, {doc['date']}, commit {args.commit}, host load {args.load} (TCG VM, debug build)",
             "", "Crowded room (per window; handoffd on hci1, N foreign advertisers on hci2..hci15):", "",
             "| N | scanning | s | handoffd CPU ms | messages to handoffd | (signals/calls/replies) | "
             "bluetoothd CPU ms | handoffd wakeups |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    crowd = sorted((r for r in windows if r["kind"] == "crowd"), key=lambda r: (r["n"], r["method"]))
    for r in crowd:
        lines.append(f"| {r['n']} | {r['method']} | {r['seconds']} | {r['handoffd_cpu_ms']} | {r['messages']} | "
                     f"{r['signals']}/{r['calls']}/{r['replies']} | {r['bluetoothd_cpu_ms']} | {r['wakeups']} |")
    by = {(r["n"], r["method"]): r for r in crowd}
    for n in sorted({r["n"] for r in crowd}):
        old, new = by.get((n, "discovery")), by.get((n, "monitor"))
        if old and new:
            ratio = old["messages"] / new["messages"] if new["messages"] else float("inf")
            lines.append(f"N={n}: {ratio:.1f}x fewer messages with the monitor "
                         f"({old['messages']} -> {new['messages']})")
    lines += ["", "At rest (no foreign advertiser):", "",
              "| state | scanning | s | CPU ms | wakeups (voluntary switches) | messages | RSS kB | peak RSS kB | "
              "threads |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in (r for r in windows if r["kind"].startswith("rest")):
        lines.append(f"| {r['kind'][5:]} | {r['method']} | {r['seconds']} | {r['handoffd_cpu_ms']} | "
                     f"{r['wakeups']} | {r['messages']} | {r['rss_kb']} | {r['hwm_kb']} | {r['threads']} |")
    lines += ["", "Threads that woke, per window (name/tid=voluntary switches):"]
    for t in threads:
        woke = " ".join(f"{k}={v}" for k, v in t["threads"].items()) or "none"
        lines.append(f"- {t['of']} N={t['n']} {t['method']}: {woke}")
    with open(args.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    with open(args.out + ".txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
