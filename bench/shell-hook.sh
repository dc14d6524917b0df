#!/usr/bin/env bash
# The cost of handoff's prompt hook (handoff shell-init) per prompt, in a real bash and zsh, against a baseline
# measured in the same run: an empty prompt function. "unchanged" is the common case (no program started);
# "changed" starts `handoff terminal offer` in the background (here a stub that exits at once, so the figure is
# what the prompt waits for, not the offer). Results in bench/results/shell-hook.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${HANDOFF_BIN_DIR:-$here/.build/debug}
n=${N:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$work/stub"; chmod +x "$work/stub"
mkdir -p "$here/bench/results"
out=$here/bench/results/shell-hook.txt
{
    echo "# shell-hook $(date -u +%FT%TZ) N=$n load: $(cut -d' ' -f1-3 /proc/loadavg)"
    for shell in bash zsh; do
        prompt=__handoff_prompt; [[ $shell == zsh ]] && prompt=__handoff_precmd
        hook=$("$bin/handoff" shell-init $shell | sed "s|command '[^']*'|command '$work/stub'|g")
        "$shell" -c "
            [ -n \"\${ZSH_VERSION-}\" ] && zmodload zsh/datetime
            $hook
            empty() { :; }
            t() { local s=\$EPOCHREALTIME i; for ((i = 0; i < $n; i++)); do \"\$@\"; done
                  awk -v a=\$s -v b=\$EPOCHREALTIME 'BEGIN { printf \"%.1f\", (b - a) * 1e6 / $n }'; }
            base=\$(t empty); $prompt; same=\$(t $prompt)
            hop() { if [ \"\$PWD\" = / ]; then cd /tmp; else cd /; fi; }
            changed() { hop; $prompt; }
            moved=\$(t changed); cds=\$(t hop)
            spawn() { ( \"$work/stub\" >/dev/null 2>&1 & ); }
            spawned=\$(t spawn)
            echo \"$shell: baseline \${base} us, unchanged prompt \${same} us, changed directory \${moved} us (of which the cd \${cds} us); starting any program in the background: \${spawned} us\"
        "
    done
} | tee "$out"
