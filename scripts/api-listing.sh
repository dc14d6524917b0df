#!/usr/bin/env bash
# HandoffKit's public API, one line per type, from the compiler's own symbol graph (swift-symbolgraph-extract):
# what an app sees. Docs/api.md's "The public API at a glance" is this output; run after `swift build`:
#   scripts/api-listing.sh            print the listing
#   scripts/api-listing.sh --check    fail when Docs/api.md's copy differs
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bin=$(swift build --show-bin-path)
swift-symbolgraph-extract -module-name HandoffKit -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
    -minimum-access-level public -output-dir "$out" \
    -Xcc -fmodule-map-file=Sources/CLinuxEvents/module.modulemap -Xcc -fmodule-map-file=Sources/CSodium/module.modulemap
listing=$(python3 - "$out/HandoffKit.symbols.json" <<'PY'
import json, sys
symbols = json.load(open(sys.argv[1]))["symbols"]
# Members every conformer has (==, description, hash...) say nothing about the API: leave them out.
noise = {"==(_:_:)", "!=(_:_:)", "description", "hash(into:)", "hashValue", "rawValue", "init(rawValue:)", "~=(_:_:)",
         "assertIsolated(_:file:line:)", "assumeIsolated(_:file:line:)", "preconditionIsolated(_:file:line:)",
         "withSerialExecutor(_:)"}
types, members = {}, {}
for s in symbols:
    path = s["pathComponents"]
    kind = s["kind"]["identifier"].removeprefix("swift.")
    if kind in ("struct", "class", "enum", "protocol", "actor", "typealias"):
        types[".".join(path)] = "actor" if kind == "class" and "actor" in [f["spelling"] for f in s["declarationFragments"]] else kind
    if len(path) > 1 and path[-1] not in noise and kind not in ("struct", "class", "enum", "protocol"):
        members.setdefault(".".join(path[:-1]), set()).add(("case " if kind == "enum.case" else "") + path[-1])
for name in sorted(types):
    items = sorted(members.get(name, ()), key=lambda m: (m.startswith("case "), m.lower()))
    print(f"- {types[name]} `{name}`" + (": " + ", ".join(f"`{m}`" for m in items) if items else ""))
PY
)
if [[ "${1:-}" == "--check" ]]; then
    documented=$(sed -n '/<!-- api-listing:begin -->/,/<!-- api-listing:end -->/p' Docs/api.md | sed '1d;$d')
    if [[ "$documented" != "$listing" ]]; then
        diff <(echo "$documented") <(echo "$listing") || true
        echo "Docs/api.md's listing is not HandoffKit's public API: run scripts/api-listing.sh and paste it" >&2
        exit 1
    fi
    echo "Docs/api.md lists HandoffKit's public API ($(echo "$listing" | wc -l) types)"
else
    echo "$listing"
fi
