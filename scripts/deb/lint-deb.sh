#!/usr/bin/env bash
# `make lint-deb`: lintian on the newest handoff_*.deb at the repository root. Every tag lintian reports must be
# listed, with the reason it stays, in scripts/deb/lintian-accepted ("TAG  reason"); anything else fails, so a
# new complaint is either fixed or written down.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
deb=$(ls -t "$here"/handoff_*.deb 2>/dev/null | head -n1)
[[ -n "$deb" ]] || { echo "lint-deb: no handoff_*.deb; run make deb" >&2; exit 1; }
command -v lintian >/dev/null || { echo "lint-deb: lintian is missing; run scripts/deps.sh deb" >&2; exit 1; }
report=$(lintian --display-info --display-experimental --pedantic --tag-display-limit 0 "$deb" 2>&1 || true)
printf '%s\n' "$report"
accepted=$(grep -v '^#' "$here/scripts/deb/lintian-accepted" | awk 'NF { print $1 }')
unexpected=0
while IFS= read -r line; do
    [[ "$line" =~ ^[EWIPX]:\ handoff[^:]*:\ ([a-z0-9.+-]+) ]] || continue
    tag=${BASH_REMATCH[1]}
    if ! grep -qx -- "$tag" <<<"$accepted"; then
        echo "lint-deb: not accepted: $line" >&2
        unexpected=1
    fi
done <<<"$report"
((unexpected == 0)) || { echo "lint-deb: fix these or list them in scripts/deb/lintian-accepted with the reason" >&2; exit 1; }
echo "lint-deb: $(grep -cE '^[EWIPX]: ' <<<"$report" || true) tag(s), each accepted in scripts/deb/lintian-accepted"
