"""Turns the raw samples of one bench/run.sh run into the table, the ratios and the results files.

Usage: summarize.py WORKDIR RESULTS_DIR
WORKDIR holds meta.env (key=value lines written by run.sh), clients (the measured clients in order),
not-measured (client<TAB>reason lines) and one CLIENT.REP.jsonl file per client run.
Writes RESULTS_DIR/dbus-<stamp>.json, dbus-<stamp>.txt and latest.txt, and prints the text.
"""

import json
import os
import statistics
import sys

TESTS = [
    # test, title, unit, what a sample is turned into
    ("ping", "Ping() -> ()  round trips", "calls/s"),
    ("echo", "Echo(s) -> s  round trips", "calls/s"),
    ("sink", "Sink(ay) -> u  1 MiB to the service", "MiB/s"),
    ("source", "Source(u) -> ay  1 MiB from the service", "MiB/s"),
]
REFERENCE_C = "c"
REFERENCE_FAST = ("dbus-fast", "dbus-fast-proxy")
OURS = "swift"
GOAL_SMALL_CALLS_VS_C = 0.9
GOAL_VS_FAST = 2.0
GOAL_VS_C = 0.7
NOISY_SPREAD = 0.25


def rate(sample, unit):
    if unit == "MiB/s":
        return sample["bytes"] / sample["seconds"] / (1 << 20)
    return sample["calls"] / sample["seconds"]


def read_lines(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def load(work):
    meta = dict(line.split("=", 1) for line in read_lines(os.path.join(work, "meta.env")))
    clients = read_lines(os.path.join(work, "clients"))
    missing = {}
    if os.path.exists(os.path.join(work, "not-measured")):
        for line in read_lines(os.path.join(work, "not-measured")):
            name, reason = line.split("\t", 1)
            missing[name] = reason
    samples = {c: {t[0]: [] for t in TESTS} for c in clients}
    for name in os.listdir(work):
        if not name.endswith(".jsonl"):
            continue
        client = name.split(".")[0]
        if client not in samples:
            continue
        for line in read_lines(os.path.join(work, name)):
            sample = json.loads(line)
            samples[client][sample["test"]].append(sample)
    return meta, clients, missing, samples


def summarize(clients, samples):
    summary = {}
    for test, _, unit in TESTS:
        rows = {}
        for client in clients:
            runs = samples[client][test]
            if not runs:
                continue
            rates = [rate(s, unit) for s in runs]
            calls = sum(s["calls"] for s in runs)
            cpu = sum(s.get("cpu", 0.0) for s in runs)
            median = statistics.median(rates)
            rows[client] = {
                "median": median,
                "min": min(rates),
                "max": max(rates),
                "samples": rates,
                "noisy": median > 0 and (max(rates) - min(rates)) / median > NOISY_SPREAD,
                "client_cpu_us_per_call": cpu / calls * 1e6 if calls else None,
            }
        if not rows:
            continue
        fast = [c for c in REFERENCE_FAST if c in rows]
        fast_ref = max(fast, key=lambda c: rows[c]["median"]) if fast else None
        for client, row in rows.items():
            row["vs_c"] = row["median"] / rows[REFERENCE_C]["median"] if REFERENCE_C in rows else None
            row["vs_dbus_fast"] = row["median"] / rows[fast_ref]["median"] if fast_ref else None
        summary[test] = {"unit": unit, "dbus_fast_reference": fast_ref, "clients": rows}
    return summary


def goals(summary, missing):
    results = []
    for test, title, unit in TESTS:
        if test not in summary:
            continue
        row = summary[test]["clients"].get(OURS)
        if row is None:
            results.append({"test": test, "measured": False, "reason": missing.get(OURS, "not in BENCH_CLIENTS")})
            continue
        vs_fast, vs_c = row["vs_dbus_fast"], row["vs_c"]
        rows = summary[test]["clients"]
        fast_ref = summary[test]["dbus_fast_reference"]
        ours_cpu = row["client_cpu_us_per_call"]
        fast_cpu = rows[fast_ref]["client_cpu_us_per_call"] if fast_ref else None
        results.append({
            "c_vs_dbus_fast": rows[REFERENCE_C]["vs_dbus_fast"] if REFERENCE_C in rows else None,
            "client_cpu_us_per_call": ours_cpu,
            "dbus_fast_cpu_us_per_call": fast_cpu,
            "c_cpu_us_per_call": rows[REFERENCE_C]["client_cpu_us_per_call"] if REFERENCE_C in rows else None,
            "test": test,
            "measured": True,
            "vs_dbus_fast": vs_fast,
            "vs_dbus_fast_met": vs_fast is not None and vs_fast >= GOAL_VS_FAST,
            "vs_c": vs_c,
            "vs_c_met": vs_c is not None and vs_c >= GOAL_VS_C,
        })
    return results


def number(value, unit):
    if value is None:
        return "-"
    return f"{value:,.0f}" if unit == "calls/s" else f"{value:,.1f}"


def ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def us(value):
    return "-" if value is None else f"{value:,.1f}"


def render(meta, clients, missing, summary, goal_results):
    out = []
    out.append(f"handoff D-Bus benchmark, {meta['timestamp']}  (commit {meta['commit']})")
    out.append(f"machine: {meta['cores']} cores, {meta['cpu_model']}; kernel {meta['kernel']}")
    out.append(f"load average (1/5/15 min): {meta['load_start']} at start, {meta['load_end']} at end")
    if float(meta["load_start"].split()[0]) > 0.5 or float(meta["load_end"].split()[0]) > 0.5:
        out.append("  ! the machine was busy: these numbers are indicative, compare ratios from one run, not absolutes")
    out.append(f"bus: private {meta['daemon_version']}; service bench/c/service.c (libdbus {meta['libdbus_version']})")
    out.append(f"method: each client runs each test for {meta['seconds']} s after a {meta['warmup']} s warm-up, "
               f"{meta['reps']} repetitions interleaved across clients; one call outstanding at a time; "
               f"Sink/Source move {int(meta['size']) // 1024} KiB per call; CPU pinning: {meta['pinned']}")
    out.append("cells: median (min-max over repetitions); x C = median / C client median; "
               "x dbus-fast = median / the faster dbus-fast style's median; cpu = client CPU per call")
    out.append("")
    for test, title, unit in TESTS:
        if test not in summary:
            continue
        block = summary[test]
        out.append(f"{title}  [{unit}, higher is better; dbus-fast reference: {block['dbus_fast_reference']}]")
        out.append(f"  {'client':<17}{'median':>10}  {'min-max':<21}{'x C':>7}{'x dbus-fast':>13}{'cpu us/call':>13}")
        for client in clients:
            row = block["clients"].get(client)
            if row is None:
                continue
            spread = f"{number(row['min'], unit)}-{number(row['max'], unit)}"
            cpu = row["client_cpu_us_per_call"]
            flag = "  (noisy)" if row["noisy"] else ""
            out.append(f"  {client:<17}{number(row['median'], unit):>10}  {spread:<21}{ratio(row['vs_c']):>7}"
                       f"{ratio(row['vs_dbus_fast']):>13}{'-' if cpu is None else f'{cpu:,.1f}':>13}{flag}")
        for client, reason in missing.items():
            out.append(f"  {client:<17}{'NOT MEASURED':>10}  {reason}")
        out.append("")
    out.append(f"Goals for our Swift layer ('{OURS}'): >= {GOAL_VS_FAST:g}x dbus-fast and >= {GOAL_VS_C:g}x the C client")
    if not goal_results or not any(g["measured"] for g in goal_results):
        reason = missing.get(OURS, "not in BENCH_CLIENTS")
        out.append(f"  !!! NOT MEASURED: the Swift client did not run ({reason}). No goal is met or missed.")
    for g in goal_results:
        if not g["measured"]:
            continue
        fast = "met" if g["vs_dbus_fast_met"] else "NOT MET"
        c = "met" if g["vs_c_met"] else "NOT MET"
        out.append(f"  {g['test']:<7} {ratio(g['vs_dbus_fast']):>7} dbus-fast: {fast:<8}  {ratio(g['vs_c']):>7} C: {c:<8}"
                   f"  (client CPU us/call: {us(g['client_cpu_us_per_call'])}, dbus-fast {us(g['dbus_fast_cpu_us_per_call'])}"
                   f", C {us(g['c_cpu_us_per_call'])})")
    ceilings = [(t, summary[t]["clients"][REFERENCE_C]["vs_dbus_fast"]) for t, _, _ in TESTS
                if t in summary and REFERENCE_C in summary[t]["clients"]]
    capped = [f"{t} {r:.2f}x" for t, r in ceilings if r is not None and r < GOAL_VS_FAST]
    if capped:
        out.append(f"  note: the C ceiling itself is below {GOAL_VS_FAST:g}x dbus-fast here ({', '.join(capped)}): the daemon"
                   " dominates, so no client can reach that goal end to end on these tests")
    # Issue 12: small calls at >= 0.9x the C client, for the default executor and on the connection's own one.
    for client in (OURS, OURS + "-executor"):
        cells = [(t, summary[t]["clients"][client]["vs_c"]) for t in ("ping", "echo")
                 if t in summary and client in summary[t]["clients"]]
        if cells:
            verdict = "met" if all(r is not None and r >= GOAL_SMALL_CALLS_VS_C for _, r in cells) else "NOT MET"
            out.append(f"  {client}: >= {GOAL_SMALL_CALLS_VS_C:g}x C on small calls (issue 12): "
                       + ", ".join(f"{t} {ratio(r)}" for t, r in cells) + f": {verdict}")
    measured = [g for g in goal_results if g["measured"]]
    if measured:
        all_met = all(g["vs_dbus_fast_met"] and g["vs_c_met"] for g in measured)
        out.append(f"  overall: {'all goals met' if all_met else 'NOT all goals met'}")
    return "\n".join(out) + "\n"


def main():
    work, results_dir = sys.argv[1], sys.argv[2]
    meta, clients, missing, samples = load(work)
    summary = summarize(clients, samples)
    goal_results = goals(summary, missing)
    text = render(meta, clients, missing, summary, goal_results)
    os.makedirs(results_dir, exist_ok=True)
    stem = os.path.join(results_dir, f"dbus-{meta['stamp']}")
    record = {"meta": meta, "clients": clients, "not_measured": missing, "summary": summary,
              "goals": {"vs_dbus_fast": GOAL_VS_FAST, "vs_c": GOAL_VS_C, "results": goal_results},
              "raw": samples}
    with open(stem + ".json", "w") as f:
        json.dump(record, f, indent=2)
    for path in (stem + ".txt", os.path.join(results_dir, "latest.txt")):
        with open(path, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    print(f"results: {stem}.json, {stem}.txt, {os.path.join(results_dir, 'latest.txt')}")


if __name__ == "__main__":
    main()
