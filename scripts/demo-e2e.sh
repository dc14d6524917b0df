# Sourced by scripts/demo-flow.sh --e2e N, after the first continue: what a user waits for, N times over
# (issue 12 section 5). Each run the laptop saves a new version of the note with `handoff note edit --stdin`;
# we time the desktop's `handoff watch` line for it, then `handoff continue --print` to its end, and check the
# printed note is the saved one. One line per run goes to $HANDOFF_E2E_OUT/e2e.tsv (else $logs/e2e.tsv):
# run, then seconds from the save to the end of `note edit`, to the watch line, and to the end of `continue`,
# then the path the bytes took. bench/end-to-end.sh summarises it. (Uses demo-flow's on, say, show, $work, $logs,
# $bin.) Times come from bash's $EPOCHREALTIME: no process is started to read the clock.

efail() { echo "demo-flow: $*" >&2; tail -n 20 "$logs"/*-handoffd.log >&2; exit 1; }
e2e_dir=${HANDOFF_E2E_OUT:-$logs}
mkdir -p "$e2e_dir"
e2e_tsv=$e2e_dir/e2e.tsv
printf 'run\tsaved_s\twatch_s\tcontinued_s\tpath\n' >"$e2e_tsv"

say "end to end, $e2e_runs runs: the laptop saves, the desktop's watch line, continue --print on the desktop"
stamped=$work/desktop/watch-e2e.out
: >"$stamped"
# Each line of `handoff watch` with the moment it was read.
on desktop watch > >(while IFS= read -r line; do printf '%s\t%s\n' "$EPOCHREALTIME" "$line"; done >>"$stamped") 2>&1 &
e2e_watch=$!
pids+=($e2e_watch)
sleep 1
for run in $(seq "$e2e_runs"); do
    text=$'# Groceries, version '"$run"$'\nmilk\neggs\nbread\n'"$(printf 'item %d\n' $(seq "$run"))"
    seen=$(grep -c $'\tavailable:' "$stamped")
    start=$EPOCHREALTIME
    printf '%s' "$text" | on laptop note edit groceries --stdin --grace 120 >/dev/null || efail "run $run: note edit failed"
    saved=$EPOCHREALTIME
    line=""
    for _ in $(seq 900); do
        line=$(grep $'\tavailable:' "$stamped" | sed -n "$((seen + 1))p")
        [[ -n $line ]] && break
        sleep 0.05
    done
    [[ -n $line ]] || efail "run $run: no watch line within 45 s"
    listed=${line%%$'\t'*}
    on desktop continue --print >"$work/desktop/e2e.out" 2>"$work/desktop/e2e.err" \
        || efail "run $run: continue failed: $(cat "$work/desktop/e2e.err")"
    continued=$EPOCHREALTIME
    [[ $(cat "$work/desktop/e2e.out") == "$(printf '%s' "$text")" ]] || efail "run $run: the continued note differs"
    path=$(grep -o "continued .* s over .*" "$logs/desktop-handoffd.log" | tail -n 1 | sed 's/.* s over //; s/)$//')
    awk -v r="$run" -v a="$start" -v b="$saved" -v c="$listed" -v d="$continued" -v p="${path:-unknown}" \
        'BEGIN { printf "%d\t%.3f\t%.3f\t%.3f\t%s\n", r, b - a, c - a, d - a, p }' >>"$e2e_tsv"
    tail -n 1 "$e2e_tsv" | awk -F'\t' '{ printf "run %s: watch line %.3f s, continued %.3f s after the save (%s)\n", $1, $3, $4, $5 }'
done
kill $e2e_watch 2>/dev/null
step "end to end, $e2e_runs runs"
