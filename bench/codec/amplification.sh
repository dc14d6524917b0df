#!/usr/bin/env bash
# Issue 25 §2: what handoffd's plist reader costs on shared-reference userInfo inputs. Writes the inputs
# (bench/codec/amplification.py: the issue's 512 KiB list, refused, and the worst ones accepted under the 32 MiB
# decoded budget) and runs `codec-bench --userinfo` on each in a fresh process: the outcome, the best of five
# decode times, and the peak RSS (VmHWM) before and after, one JSON line each. The figures are in
# Docs/reliability.md ("Attacks tried").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
inputs=$(mktemp -d)
trap 'rm -rf "$inputs"' EXIT
(cd "$root" && swift build -c release --product codec-bench) >/dev/null
binary="$(cd "$root" && swift build -c release --show-bin-path)/codec-bench"
/usr/bin/python3 "$root/bench/codec/amplification.py" "$inputs" >/dev/null
for input in "$inputs"/*.bplist; do "$binary" --userinfo "$input"; done
