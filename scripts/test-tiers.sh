#!/usr/bin/env bash
# make test's tiers, one after another, each timed: `scripts/test-tiers.sh MAKE TIER...`. Stops at the first tier
# that fails (its exit code is ours). Prints each tier's wall time as it ends and a table at the end, and writes the
# table to .build/test-times.txt, so that CI's 90 minutes (make test must stay under 70) can be watched per tier.
set -uo pipefail
cd "$(dirname "$0")/.."
make=$1
shift
mkdir -p .build
out=.build/test-times.txt
: >"$out"
start=$(date +%s)
table() {
    {
        printf '%-16s %8s\n' tier seconds
        cat "$out.rows" 2>/dev/null
        printf '%-16s %8s\n' total "$(( $(date +%s) - start ))"
    } >"$out"
    echo "== make test: seconds per tier (.build/test-times.txt)"
    cat "$out"
}
rm -f "$out.rows"
for tier in "$@"; do
    t=$(date +%s)
    "$make" "$tier"
    rc=$?
    printf '%-16s %8s%s\n' "$tier" "$(( $(date +%s) - t ))" "$( ((rc)) && echo "  FAILED ($rc)")" >>"$out.rows"
    echo "== $tier: $(( $(date +%s) - t )) s$( ((rc)) && echo ", FAILED ($rc)")"
    if ((rc)); then table; rm -f "$out.rows"; exit "$rc"; fi
done
table
rm -f "$out.rows"
