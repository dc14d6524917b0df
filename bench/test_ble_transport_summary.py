#!/usr/bin/env python3
"""Checks bench/ble-transport-summary.py on synthetic scenario logs: `python3 bench/test_ble_transport_summary.py`."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("summary", os.path.join(HERE, "ble-transport-summary.py"))
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)


def continued(size, seconds, refetched, over, phases):
    return (f"PASS x (1 s): {size} B continued in {seconds} s (1.0 KiB/s) at ATT MTU 517, 1 connection(s), 3 write(s), "
            f"9 notification(s), fetch window 16384 B, refetched {refetched} frame(s), over {over}; phases: {phases}\n")


LOGS = {
    "gatt-3k-1": continued(3072, "4.000", 0, "gatt", "link 3.000, connect 2.500, services 0.300, subscribe 0.200, "
                           "request→open 0.100, transfer 0.200, done 0.010, total 3.900"),
    "l2cap-3k-1": continued(3072, "0.500", 0, "l2cap (PSM 0x80, SDU 8192/8192 B)", "link 0.300, connect 0.100, "
                            "services 0.050, psm 0.080, channel 0.070, request→open 0.100, transfer 0.050, done 0.005, "
                            "total 0.480"),
    "ceiling-3k-1": "CEILING size=3072 sdu=3072 sdus=1 wall_ms=300 connect_ms=300 transfer_ms=0 psm=245 "
                    "from=1.0 to=2.0\n",
    "gatt-1m-1": continued(1048576, "100.000", 12, "gatt", "link 1.000, transfer 98.000"),
    "l2cap-1m-1": continued(1048576, "4.000", 0, "l2cap (PSM 0x80, SDU 8192/8192 B)", "link 0.300, transfer 3.500"),
    "ceiling-1m-1": "CEILING size=1048576 sdu=4096 sdus=256 wall_ms=1600 connect_ms=300 transfer_ms=1300 psm=245 "
                    "from=1.0 to=2.0\n",
    "b2b-l2cap-3k-1": "PASS b (4 s): 10/10 back-to-back continues of 3 KB over l2cap (largest gap 0.033 s); p50 0.064 s, "
                      "min 0.045 s, max 0.373 s; times 0.373 0.071 0.053 0.045 0.064 0.055 0.048 0.096 0.092 0.084; "
                      "last phases: link 0.015, channel 0.013, total 0.076\n",
    "gatt0-3k-1": continued(3072, "6.000", 0, "gatt", "link 5.000, connect 4.500, services 0.300, subscribe 0.200, "
                            "total 5.900"),
    "coldlinks-l2cap-3k-1": "PASS c (9 s): 6/6 cold continues of 3 KB over l2cap; first (PSM read over GATT) 1.200 s: "
                            "link 1.000, connect 0.500, services 0.300, psm 0.100, channel 0.100, total 1.150; later "
                            "ones (known PSM) p50 0.400 s, min 0.350 s, max 0.600 s; times 1.200 0.400 0.350 0.450 "
                            "0.600 0.380; last phases: link 0.300, channel 0.300, total 0.380\n",
    # gatt-64k-1 has no log line (a failed run); b2b-gatt-3k-1 no log at all.
    "gatt-64k-1": "FAIL: continue failed\n",
}
NAMES = list(LOGS) + ["b2b-gatt-3k-1"]


class SummaryTests(unittest.TestCase):
    def run_summary(self):
        folder = tempfile.mkdtemp()
        scenarios = os.path.join(folder, "scenarios")
        os.mkdir(scenarios)
        for name, text in LOGS.items():
            with open(os.path.join(scenarios, name + ".log"), "w") as out:
                out.write(text)
        listing = os.path.join(folder, "list")
        with open(listing, "w") as out:
            out.write("# comment\n" + "".join(f"{name} @timeout=60 true\n" for name in NAMES))
        prefix = os.path.join(folder, "out")
        done = subprocess.run([sys.executable, os.path.join(HERE, "ble-transport-summary.py"), "--scenarios", scenarios,
                               "--list", listing, "--out", prefix, "--load", "1.0 2.0 3.0"],
                              capture_output=True, text=True, check=True)
        with open(prefix + ".json") as saved:
            return done.stdout, json.load(saved)

    def test_ratios_goals_and_failures(self):
        text, data = self.run_summary()
        sizes = data["summary"]["sizes"]
        self.assertAlmostEqual(sizes["3k"]["speedup"], 8.0)
        self.assertAlmostEqual(sizes["1m"]["speedup"], 25.0)
        self.assertAlmostEqual(sizes["1m"]["ceiling_fraction"], 0.4)
        goals = {g["goal"].split(":")[0]: g["met"] for g in data["summary"]["goals"]}
        self.assertTrue(goals["1m at least 20x faster than GATT"])
        self.assertFalse(goals["1m at least 0.5x the l2test ceiling"])
        self.assertTrue(goals["3 KB p50 at most 1/4 of GATT's and under 1 s"])
        self.assertNotIn("64k at least 5x faster than GATT", goals)  # no 64 KiB figure: no verdict
        self.assertEqual(data["summary"]["failed"], ["gatt-64k-1"])
        self.assertEqual(data["summary"]["not_run"], ["b2b-gatt-3k-1"])
        self.assertIn("FAILED runs (1)", text)
        self.assertIn("b2b-gatt-3k-1    NOT RUN", text)
        self.assertIn("frames fetched again over GATT, per run: 3k 0; 1m 12", text)
        phases = data["summary"]["phases"]
        self.assertEqual(phases["l2cap"]["psm"], 0.08)
        self.assertNotIn("psm", phases["gatt"])
        self.assertAlmostEqual(data["summary"]["back_to_back"]["l2cap"]["median"], 0.0675)
        self.assertIn("PDUs not counted", text)  # no captures here

    def test_minimum_kframes_for_a_payload(self):
        # 1 MiB in 8192-byte SDUs at MPS 188: 128 SDUs of ceil(8194 / 188) = 44 K-frames.
        self.assertEqual(summary.coc_minimum(1048576, 8192, 188), 128 * 44)
        # 3 KB: one SDU of 3072 + 2 bytes: 17 K-frames.
        self.assertEqual(summary.coc_minimum(3072, 8192, 188), 17)
        self.assertEqual(summary.phases("link 0.275, request→open 0.170, bogus"), {"link": 0.275, "request→open": 0.17})

    def test_the_baseline_without_the_nudge_and_the_cold_links(self):
        text, data = self.run_summary()
        sizes = data["summary"]["sizes"]
        self.assertAlmostEqual(sizes["3k"]["speedup_baseline"], 12.0)
        goals = {g["goal"].split(":")[0]: g["met"] for g in data["summary"]["goals"]}
        self.assertTrue(goals["3 KB p50 at most 1/4 of the baseline's (GATT without the nudge) and under 1 s"])
        self.assertTrue(goals["3 KB p50 of a running daemon's cold continues (known PSM) under 1 s"])
        cold = data["summary"]["cold_links"]
        self.assertEqual((cold["first"], cold["p50"]), (1.2, 0.4))
        self.assertEqual(cold["first_phases"]["psm"], 0.1)
        self.assertEqual(data["summary"]["phases"]["gatt0"]["connect"], 4.5)
        self.assertIn("GATT without the nudge (the baseline)", text)


if __name__ == "__main__":
    unittest.main()
