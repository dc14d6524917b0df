#!/usr/bin/env python3
"""Summarizes a `make bench-ble` VM run (bench/ble-transport.sh): the scenario logs and btmon captures of one boot.

    bench/ble-transport-summary.py --scenarios DIR --list FILE --out PREFIX [--load L] [--load-after L]
                                   [--started T] [--boot TEXT] [--uptime TEXT]

DIR is the run's scenarios/ folder (NAME.log, NAME.btsnoop); FILE the scenario list the run was given, whose names
are PATH-SIZE-ROUND (gatt, l2cap, ceiling; gatt0 and l2cap0 for the same paths with the connect nudge off, gatt0
being the baseline of issue 9's goals; b2b-PATH-3k-1 for the back-to-back continues; coldlinks-l2cap-3k-1 for the
cold continues of one running pair of engines). Writes PREFIX.txt (what
it prints) and PREFIX.json. A run whose log has no result line is reported as FAILED, never left out silently.

Per run: wall time (the continue as the receiving engine sees it: continueActivity() to its result; for l2test,
client start to the last SDU in, connection included), PDUs the sending controller transmitted (bench/l2cap-pdus.py
over the run's capture) against the minimum for the link, and DATA frames fetched again. The minimum for the
payload alone is what the link's sizes allow for the note's bytes, without our framing or sealing:
  - L2CAP (our channel, l2test's): K-frames for SDUs of the channel's MTU, each ceil((len + 2) / MPS);
  - GATT: notifications of ATT MTU - 3 bytes each (over EATT each is also ceil((ATT MTU + 2) / MPS) K-frames).
"as sent" is the minimum for the SDUs that really went (what the kernel could not have done with fewer frames).
A capture that lost packets (btmon fell behind) is marked "capture incomplete" and left out of the PDU figures.
Exit status 0, or 2 for bad arguments.
"""

import argparse
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"3k": 3072, "64k": 65536, "1m": 1048576}
EATT = 0x27

CONTINUE = re.compile(r"(\d+) B continued in ([\d.]+) s .*?(\d+) connection\(s\), (\d+) write\(s\), "
                      r"(\d+) notification\(s\).*?refetched (\d+) frame\(s\), over (.*?); phases: (.*)$", re.M)
CEILING = re.compile(r"CEILING size=(\d+) sdu=(\d+) sdus=(\d+) wall_ms=(\d+) connect_ms=(-?\d+) "
                     r"transfer_ms=(-?\d+) psm=(\d+) from=([\d.]+) to=([\d.]+)", re.M)
COLD_LINKS = re.compile(r"(\d+)/(\d+) cold continues of 3 KB over l2cap; first \(PSM read over GATT\) ([\d.]+) s: "
                        r"(.*?); later ones \(known PSM\) p50 ([\d.]+) s, min ([\d.]+) s, max ([\d.]+) s; "
                        r"times ([\d. ]+); last phases: (.*)$", re.M)
BACK_TO_BACK = re.compile(r"(\d+)/(\d+) back-to-back continues .*?p50 ([\d.]+) s, min ([\d.]+) s, max ([\d.]+) s; "
                          r"times ([\d. ]+); last phases: (.*)$", re.M)


def load_pdus():
    spec = importlib.util.spec_from_file_location("l2cap_pdus", os.path.join(HERE, "l2cap-pdus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def new_links(capture, start=None, end=None):
    """LE connections made during the run (LE [Enhanced] Connection Complete, success, as hci1 reports them): 0 says
    the run reused a link an earlier run left up, and so was not a cold continue. None without a capture."""
    if not os.path.exists(capture):
        return None
    pdus, made = load_pdus(), 0
    names = {}
    try:
        for stamp, index, opcode, body in pdus.records(capture):
            if opcode == pdus.OP_NEW_INDEX and len(body) >= 16:
                names[index] = body[8:16].split(b"\0")[0].decode(errors="replace")
            if (opcode == pdus.OP_EVENT and len(body) >= 4 and body[0] == 0x3E and body[2] in (0x01, 0x0A)
                    and body[3] == 0 and names.get(index, f"hci{index}") == "hci1"
                    and (start is None or start <= stamp <= end)):
                made += 1
    except (OSError, ValueError):
        return None
    return made


def phases(text):
    """"link 0.275, connect 0.029, request→open 0.170" -> {"link": 0.275, ...}"""
    found = {}
    for part in text.split(","):
        words = part.strip().rsplit(" ", 1)
        if len(words) == 2:
            try:
                found[words[0]] = float(words[1])
            except ValueError:
                pass
    return found


def flows(capture, start=None, end=None, psm=None):
    if not os.path.exists(capture):
        return None
    command = [sys.executable, os.path.join(HERE, "l2cap-pdus.py"), capture, "--json"]
    if start is not None:
        command += ["--from", str(start), "--to", str(end)]
    if psm is not None:
        command += ["--psm", str(psm)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        return json.loads(done.stdout or "[]")
    except (subprocess.TimeoutExpired, ValueError):
        return None


def coc_minimum(payload, mtu, mps):
    """K-frames for `payload` bytes in SDUs of `mtu` bytes, each SDU ceil((len + 2) / mps) K-frames."""
    if not payload or not mps:
        return 0
    full, rest = divmod(payload, mtu)
    return full * math.ceil((mtu + 2) / mps) + (math.ceil((rest + 2) / mps) if rest else 0)


def count_pdus(capture, kind, payload, window=None):
    """The PDU figures of one run, or None (no capture, no data) or {"incomplete": ...}."""
    kind = kind.rstrip("0")     # gatt0, l2cap0: the same paths
    if kind == "ceiling":
        found = flows(capture, window[0], window[1], psm=window[2])
        direction = "hci1->hci0"
    else:
        found = flows(capture)
        direction = "hci0->hci1"
    if not found:
        return None
    mine = [f for f in found if f["channel"] == direction]
    if kind == "gatt":
        mine = [f for f in mine if f["psm"] in (0, EATT) and f["notifications"]]
    else:
        mine = [f for f in mine if f["psm"] not in (0, EATT)]
    if not mine:
        return None
    result = {key: sum(f[key] for f in mine) for key in ("kframes", "min_kframes", "acl", "min_acl", "sdus",
                                                         "bytes", "notifications", "notified_bytes", "desync")}
    coc = [f for f in mine if f["psm"] != 0]
    result["mps"] = max((f["mps"] for f in coc), default=0)
    result["mtu"] = max(f["mtu"] for f in mine)
    # The fixed ATT channel has no K-frames: count its PDUs apart, and compare K-frames of CoC channels only.
    result["coc_kframes"] = sum(f["kframes"] for f in coc)
    result["coc_min_kframes"] = sum(f["min_kframes"] for f in coc)
    result["incomplete"] = result["desync"] > 0 or result["coc_kframes"] < result["coc_min_kframes"]
    if kind == "gatt":
        value = result["mtu"] - 3
        result["min_notifications"] = math.ceil(payload / value) if value > 0 else 0
        result["min_payload_kframes"] = (result["min_notifications"] * math.ceil((result["mtu"] + 2) / result["mps"])
                                         if result["mps"] else 0)
    else:
        result["min_payload_kframes"] = coc_minimum(payload, result["mtu"], result["mps"])
    return result


def pdu_text(counted, kind):
    kind = kind.rstrip("0")
    if counted is None:
        return "PDUs not counted (no capture or no data in it)"
    if counted["incomplete"]:
        return (f"PDUs: capture incomplete (btmon lost packets: {counted['desync']} K-frame(s) out of step, "
                f"{counted['coc_kframes']} K-frames for SDUs needing {counted['coc_min_kframes']})")
    if kind == "gatt":
        text = (f"notifications {counted['notifications']} (min {counted['min_notifications']} at ATT MTU "
                f"{counted['mtu']}, x{counted['notifications'] / max(counted['min_notifications'], 1):.2f})")
        if counted["coc_kframes"]:
            text += (f", EATT K-frames {counted['coc_kframes']} (as sent min {counted['coc_min_kframes']}; "
                     f"payload min {counted['min_payload_kframes']} at MPS {counted['mps']})")
        return text + f", ACL {counted['acl']} (min {counted['min_acl']})"
    return (f"K-frames {counted['kframes']} (payload min {counted['min_payload_kframes']} at MTU {counted['mtu']} "
            f"MPS {counted['mps']}, x{counted['kframes'] / max(counted['min_payload_kframes'], 1):.2f}; as sent min "
            f"{counted['min_kframes']}) in {counted['sdus']} SDUs, ACL {counted['acl']} (min {counted['min_acl']})")


def median(values):
    return statistics.median(values) if values else None


def summarize(folder, names):
    rows, report = [], []
    for name in names:
        parts = name.split("-")
        log = os.path.join(folder, name + ".log")
        text = open(log, errors="replace").read() if os.path.exists(log) else ""
        capture = os.path.join(folder, name + ".btsnoop")
        if not os.path.exists(log):
            rows.append({"name": name, "kind": parts[0], "ok": False, "ran": False})
            report.append(f"{name:16} NOT RUN (no log: the VM run ended before it)")
            continue
        if parts[0] == "coldlinks":
            row = {"name": name, "kind": "coldlinks", "path": parts[1], "size": parts[2]}
            found = COLD_LINKS.search(text)
            if found:
                row.update(ok=True, done=int(found.group(1)), of=int(found.group(2)), first=float(found.group(3)),
                           first_phases=phases(found.group(4)), p50=float(found.group(5)),
                           min=float(found.group(6)), max=float(found.group(7)),
                           times=[float(t) for t in found.group(8).split()], phases=phases(found.group(9)))
                report.append(f"{name:16} {row['done']}/{row['of']} cold links, one pair of engines: first "
                              f"{row['first']:.3f} s (PSM read), later p50 {row['p50']:.3f} s (min {row['min']:.3f}, "
                              f"max {row['max']:.3f}); times {found.group(8).strip()}")
            else:
                row["ok"] = False
                report.append(f"{name:16} FAILED (see {log})")
            rows.append(row)
            continue
        if parts[0] == "b2b":
            path, size = parts[1], parts[2]
            row = {"name": name, "kind": "b2b", "path": path, "size": size}
            found = BACK_TO_BACK.search(text)
            if found:
                row.update(ok=True, done=int(found.group(1)), of=int(found.group(2)), p50=float(found.group(3)),
                           min=float(found.group(4)), max=float(found.group(5)),
                           times=[float(t) for t in found.group(6).split()], phases=phases(found.group(7)))
                row["median"] = median(row["times"])
                report.append(f"{name:16} {row['done']}/{row['of']} back to back: median {row['median']:.3f} s "
                              f"(min {row['min']:.3f}, max {row['max']:.3f}); times {found.group(6).strip()}")
            else:
                row["ok"] = False
                report.append(f"{name:16} FAILED (see {log})")
            rows.append(row)
            continue
        kind, size = parts[0], parts[1]
        payload = SIZES.get(size, 0)
        row = {"name": name, "kind": kind, "path": kind, "size": size, "payload": payload}
        if kind == "ceiling":
            found = CEILING.search(text)
            if not found:
                row["ok"] = False
                report.append(f"{name:16} FAILED (see {log})")
                rows.append(row)
                continue
            row.update(ok=True, bytes=int(found.group(1)), sdu=int(found.group(2)), seconds=int(found.group(4)) / 1000,
                       connect=int(found.group(5)) / 1000, transfer=int(found.group(6)) / 1000)
            row["pdus"] = count_pdus(capture, kind, payload,
                                     (float(found.group(8)), float(found.group(9)), int(found.group(7))))
            row["new_links"] = new_links(capture, float(found.group(8)), float(found.group(9)))
            report.append(f"{name:16} {row['seconds']:8.3f} s {row['bytes'] / row['seconds'] / 1024:8.1f} KiB/s  "
                          f"(first SDU after {row['connect']:.3f} s; SDUs of {row['sdu']} B; new LE links "
                          f"{'?' if row['new_links'] is None else row['new_links']})  "
                          f"{pdu_text(row['pdus'], kind)}")
        else:
            found = CONTINUE.search(text)
            if not found:
                row["ok"] = False
                report.append(f"{name:16} FAILED (see {log})")
                rows.append(row)
                continue
            row.update(ok=True, bytes=int(found.group(1)), seconds=float(found.group(2)),
                       connections=int(found.group(3)), writes=int(found.group(4)), frames=int(found.group(5)),
                       refetched=int(found.group(6)), over=found.group(7), phases=phases(found.group(8)))
            row["pdus"] = count_pdus(capture, kind, payload)
            row["new_links"] = new_links(capture)
            report.append(f"{name:16} {row['seconds']:8.3f} s {row['bytes'] / row['seconds'] / 1024:8.1f} KiB/s  "
                          f"new LE links {'?' if row['new_links'] is None else row['new_links']}  refetched {row['refetched']}  frames in {row['frames']}  writes {row['writes']}  "
                          f"{pdu_text(row['pdus'], kind)}  over {row['over']}")
        rows.append(row)
    return rows, report


def figures(rows):
    ok = [r for r in rows if r.get("ok")]
    times = {}
    for r in ok:
        if r["kind"] not in ("b2b", "coldlinks"):
            times.setdefault((r["size"], r["kind"]), []).append(r["seconds"])
    summary = {"sizes": {}, "goals": [], "phases": {}, "back_to_back": {}}
    lines = []
    for size in SIZES:
        g, l, c = (median(times.get((size, k), [])) for k in ("gatt", "l2cap", "ceiling"))
        entry = {"gatt": g, "l2cap": l, "ceiling": c, "runs": {k: len(times.get((size, k), []))
                                                               for k in ("gatt", "l2cap", "ceiling")}}
        if g and l:
            entry["speedup"] = g / l
        if c and l:
            entry["ceiling_fraction"] = c / l
        summary["sizes"][size] = entry
        if l is None:
            continue
        text = f"{size:>3}: median {l:.3f} s over L2CAP ({entry['runs']['l2cap']} runs)"
        if g:
            text += f" vs {g:.3f} s over GATT ({entry['runs']['gatt']}): {g / l:.1f}x faster"
        if c:
            text += f"; l2test {c:.3f} s ({entry['runs']['ceiling']}): L2CAP path at {c / l:.2f}x the ceiling"
        for base, label in (("gatt0", "GATT without the nudge (the baseline)"), ("l2cap0", "L2CAP without the nudge")):
            b = median(times.get((size, base), []))
            if b:
                entry[base] = b
                entry["runs"][base] = len(times[(size, base)])
                text += f"; {b:.3f} s over {label} ({entry['runs'][base]}): {b / l:.1f}x"
                if base == "gatt0":
                    entry["speedup_baseline"] = b / l
        lines.append(text)
    refetched = {}
    for r in ok:
        if r["kind"] in ("gatt", "l2cap"):
            refetched.setdefault((r["kind"], r["size"]), []).append(r["refetched"])
    for kind in ("l2cap", "gatt"):
        parts = [f"{size} {'/'.join(map(str, refetched[(kind, size)]))}" for size in SIZES if (kind, size) in refetched]
        if parts:
            lines.append(f"frames fetched again over {kind.upper()}, per run: " + "; ".join(parts))
            summary[f"refetched_{kind}"] = {size: refetched[(kind, size)] for size in SIZES
                                            if (kind, size) in refetched}
    for r in ok:
        if r["kind"] == "b2b":
            summary["back_to_back"][r["path"]] = {"median": r["median"], "p50_scenario": r["p50"],
                                                  "min": r["min"], "max": r["max"], "times": r["times"],
                                                  "last_phases": r["phases"]}
    # The phase breakdown of a cold 3 KB continue: the median of each phase over the runs of each path.
    keys = []
    kinds = [k for k in ("gatt0", "gatt", "l2cap0", "l2cap") if any(r["kind"] == k for r in ok)]
    for kind in kinds:
        runs = [r["phases"] for r in ok if r["kind"] == kind and r["size"] == "3k"]
        for run in runs:
            keys += [k for k in run if k not in keys]
        summary["phases"][kind] = {k: median([run[k] for run in runs if k in run]) for k in keys
                                   if any(k in run for run in runs)}
        summary["phases"][kind + "_runs"] = len(runs)
    if keys:
        order = ["link", "previous-link", "connect", "services", "psm", "subscribe", "channel", "request→open",
                 "transfer", "done", "total"]
        keys.sort(key=lambda k: order.index(k) if k in order else len(order))
        runs = ", ".join(f"{k} {summary['phases'][k + '_runs']}" for k in kinds)
        lines += ["", f"phases of a cold 3 KB continue, median s over the runs ({runs}; a 0 is the path with the "
                  "connect nudge off); 'link' is connect() to the link being ready and holds the radio phases below it:",
                  f"  {'phase':14} " + " ".join(f"{k.upper():>8}" for k in kinds)]
        for k in keys:
            cells = [summary["phases"][kind].get(k) for kind in kinds]
            lines.append(f"  {k:14} " + " ".join(f"{'-' if v is None else f'{v:.3f}':>8}" for v in cells))
    cold = summary["sizes"]["3k"]
    if cold["gatt"] and cold["l2cap"]:
        lines += ["", f"3 KB continue p50 (cold, median of {cold['runs']['l2cap']} and {cold['runs']['gatt']} runs): "
                  f"{cold['l2cap']:.3f} s over L2CAP vs {cold['gatt']:.3f} s over GATT "
                  f"({cold['l2cap'] / cold['gatt']:.2f} of it)"]
    if cold.get("gatt0") and cold["l2cap"]:
        lines.append(f"  against the baseline, GATT without the nudge ({cold['runs']['gatt0']} runs): "
                     f"{cold['gatt0']:.3f} s ({cold['l2cap'] / cold['gatt0']:.2f} of it)")
    for r in ok:
        if r["kind"] == "coldlinks":
            summary["cold_links"] = {k: r[k] for k in ("first", "p50", "min", "max", "times", "phases",
                                                       "first_phases")}
            lines.append(f"3 KB cold continues of one running pair of engines ({r['of']}): the first, reading the PSM, "
                         f"{r['first']:.3f} s; the later ones, opening the channel to the known PSM, p50 "
                         f"{r['p50']:.3f} s (min {r['min']:.3f}, max {r['max']:.3f})")
    b = summary["back_to_back"]
    if "l2cap" in b and "gatt" in b:
        lines.append(f"3 KB back to back p50 (10 in a row, link reused when it is up): {b['l2cap']['median']:.3f} s "
                     f"over L2CAP vs {b['gatt']['median']:.3f} s over GATT "
                     f"({b['l2cap']['median'] / b['gatt']['median']:.2f} of it)")
    pdu_lines = []
    for size in SIZES:
        for kind in ("l2cap", "gatt", "ceiling"):
            counted = [r["pdus"] for r in ok if r["kind"] == kind and r["size"] == size and r.get("pdus")
                       and not r["pdus"]["incomplete"]]
            if not counted:
                continue
            first = counted[0]
            if kind == "gatt":
                pdu_lines.append(f"  {size:>3} GATT:  notifications {'/'.join(str(c['notifications']) for c in counted)}"
                                 f" vs min {first['min_notifications']} (ATT MTU {first['mtu']})")
            else:
                pdu_lines.append(f"  {size:>3} {'L2CAP' if kind == 'l2cap' else 'l2test'}: K-frames "
                                 f"{'/'.join(str(c['kframes']) for c in counted)} vs payload min "
                                 f"{first['min_payload_kframes']} (MTU {first['mtu']}, MPS {first['mps']})")
    incomplete = [r["name"] for r in ok if r.get("pdus") and r["pdus"]["incomplete"]]
    if pdu_lines or incomplete:
        lines += ["", "PDUs the sender's controller sent (complete captures only):"] + pdu_lines
        if incomplete:
            lines.append(f"  captures that lost packets (not counted): {', '.join(incomplete)}")
    goals = []

    def goal(text, met):
        goals.append({"goal": text, "met": met})
        lines.append(f"  {'met    ' if met else 'NOT MET'}  {text}")

    lines += ["", "goals of issue 9 (same boot):"]
    for size, want in (("64k", 5), ("1m", 20)):
        speedup = summary["sizes"][size].get("speedup")
        if speedup is not None:
            goal(f"{size} at least {want}x faster than GATT: {speedup:.1f}x", speedup >= want)
        baseline = summary["sizes"][size].get("speedup_baseline")
        if baseline is not None:
            goal(f"{size} at least {want}x faster than GATT without the nudge (the baseline): {baseline:.1f}x",
                 baseline >= want)
    fraction = summary["sizes"]["1m"].get("ceiling_fraction")
    if fraction is not None:
        goal(f"1m at least 0.5x the l2test ceiling: {fraction:.2f}x", fraction >= 0.5)
    if "refetched_l2cap" in summary:
        total = sum(sum(v) for v in summary["refetched_l2cap"].values())
        goal(f"0 frames fetched again over L2CAP on a clean link: {total}", total == 0)
    if cold["gatt"] and cold["l2cap"]:
        goal(f"3 KB p50 at most 1/4 of GATT's and under 1 s: {cold['l2cap']:.3f} s vs {cold['gatt']:.3f} s",
             cold["l2cap"] <= cold["gatt"] / 4 and cold["l2cap"] < 1)
    if cold.get("gatt0") and cold["l2cap"]:
        goal(f"3 KB p50 at most 1/4 of the baseline's (GATT without the nudge) and under 1 s: {cold['l2cap']:.3f} s "
             f"vs {cold['gatt0']:.3f} s", cold["l2cap"] <= cold["gatt0"] / 4 and cold["l2cap"] < 1)
    if "cold_links" in summary:
        later = summary["cold_links"]["p50"]
        goal(f"3 KB p50 of a running daemon's cold continues (known PSM) under 1 s: {later:.3f} s", later < 1)
    failed = [r["name"] for r in rows if not r.get("ok") and r.get("ran", True)]
    skipped = [r["name"] for r in rows if not r.get("ran", True)]
    if failed:
        lines += ["", f"FAILED runs ({len(failed)}): {', '.join(failed)}"]
    if skipped:
        lines += ["", f"not run ({len(skipped)}; the VM run ended first): {', '.join(skipped)}"]
    summary["goals"], summary["failed"], summary["not_run"] = goals, failed, skipped
    return summary, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", required=True)
    parser.add_argument("--list", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--load", default="?")
    parser.add_argument("--load-after", default="?")
    parser.add_argument("--started", default="?")
    parser.add_argument("--boot", default="")
    parser.add_argument("--uptime", default="")
    args = parser.parse_args()
    try:
        names = [line.split()[0] for line in open(args.list) if line.strip() and not line.startswith("#")]
    except OSError as error:
        print(f"ble-transport-summary: {error}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.scenarios):
        print(f"ble-transport-summary: no folder {args.scenarios}", file=sys.stderr)
        return 2
    rows, report = summarize(args.scenarios, names)
    summary, lines = figures(rows)
    head = ["BLE continue on the real bluetoothd (TCG VM, btvirt: source hci0 -> receiver hci1; l2test hci1 -> hci0), "
            "one boot, runs alternating", f"VM run started {args.started}; {args.boot}",
            f"host load (1/5/15 min) before {args.load}, after {args.load_after}; uptime {args.uptime}",
            f"logs: {args.scenarios}", ""]
    text = "\n".join(head + report + [""] + lines) + "\n"
    with open(args.out + ".txt", "w") as out:
        out.write(text)
    with open(args.out + ".json", "w") as out:
        json.dump({"started": args.started, "load": args.load, "load_after": args.load_after, "uptime": args.uptime,
                   "boot": args.boot, "scenarios": args.scenarios, "runs": rows, "summary": summary}, out, indent=1,
                  ensure_ascii=False)
    print(text, end="")
    print(f"ble-transport: written to {args.out}.txt and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
