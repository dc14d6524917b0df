# Sourced by scripts/demo-flow.sh --desktop, after the pairing and the note: the clipboard, a web page and a
# terminal, handed off through the real CLI and the two daemons (uses demo-flow's on, say, show, step, $work,
# $logs, ${home[…]}, $bin).

dfail() { echo "demo-flow: $*" >&2; tail -n 20 "$logs"/*-handoffd.log >&2; exit 1; }
until_ok() {   # until_ok OUT COMMAND...: runs COMMAND until it exits 0 (60 s at most), its output in OUT
    local out=$1 _; shift
    for _ in $(seq 120); do
        "$@" >"$out" 2>"$out.err" && return 0
        sleep 0.5
    done
    return 1
}

say "clipboard: copy on the laptop, paste on the desktop"
on desktop watch >"$work/desktop/watch-desktop.out" 2>&1 &
watch_pid=$!
pids+=($watch_pid)
sleep 0.5
copied=$'ssh build-01 \'uptime\'\n'
show laptop "printf 'ssh build-01 \\'uptime\\'\\n' | handoff copy"
printf '%s' "$copied" | on laptop copy || dfail "copy failed"
show desktop "handoff paste"
until_ok "$work/desktop/pasted.txt" on desktop paste || dfail "paste never succeeded: $(cat "$work/desktop/pasted.txt.err")"
cat "$work/desktop/pasted.txt"
[[ $(cat "$work/desktop/pasted.txt"; echo .) == "$copied." ]] || dfail "the pasted text differs from the copy"
echo "(identical to the laptop's copy)"
show desktop "handoff watch"
kill $watch_pid 2>/dev/null
cat "$work/desktop/watch-desktop.out"
grep -q '^available: clipboard from laptop' "$work/desktop/watch-desktop.out" || dfail "watch did not name the clipboard"
step "copy on the laptop, paste on the desktop"

say "a web page: handoff open on the laptop, handoff continue on the desktop opens it with xdg-open"
# The desktop's https handler, the way a browser registers: a .desktop file and mimeapps.list, found by the real
# xdg-open (no desktop environment detected: xdg-mime's default for x-scheme-handler/https).
opened=$work/desktop/opened-urls
mkdir -p "${home[desktop]}/applications" "${home[desktop]}/.config"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >> %q\n' "$opened" >"$work/desktop/record-url"
chmod +x "$work/desktop/record-url"
printf '[Desktop Entry]\nType=Application\nName=Record URL\nExec=%s %%u\nMimeType=x-scheme-handler/https;\n' \
    "$work/desktop/record-url" >"${home[desktop]}/applications/record-url.desktop"
printf '[Default Applications]\nx-scheme-handler/https=record-url.desktop\n' >"${home[desktop]}/.config/mimeapps.list"
url='https://example.org/handoff?from=laptop&q=$(id)'
show laptop "handoff open '$url'"
on laptop open "$url" || dfail "open failed"
show desktop "handoff continue --type org.handoff.web"
until_ok "$work/desktop/web.out" env DISPLAY=:0 XDG_DATA_DIRS="${home[desktop]}" \
    HANDOFF_BUS_ADDRESS=${bus[desktop]} XDG_DATA_HOME=${home[desktop]} HOME=${home[desktop]} \
    "$bin/handoff" continue --type org.handoff.web || dfail "continue of the web page failed: $(cat "$work/desktop/web.out.err")"
cat "$work/desktop/web.out.err"
for _ in $(seq 20); do [[ -s $opened ]] && break; sleep 0.2; done
echo "(the https handler was given: $(cat "$opened"))"
[[ $(cat "$opened") == "$url" ]] || dfail "xdg-open did not hand the URL to the https handler"

show laptop "handoff open file:///etc/shadow"
on laptop open file:///etc/shadow || dfail "open of a file: link failed"
show desktop "handoff continue --type org.handoff.web"
got=0
for _ in $(seq 120); do
    env DISPLAY=:0 HANDOFF_BUS_ADDRESS=${bus[desktop]} XDG_DATA_HOME=${home[desktop]} HOME=${home[desktop]} \
        "$bin/handoff" continue --type org.handoff.web >"$work/desktop/file.out" 2>&1
    got=$?
    [[ $got == 3 ]] || break
    sleep 0.5
done
cat "$work/desktop/file.out"
[[ $got == 65 ]] || dfail "a file: link: exit $got, expected 65 (shown, not opened)"
[[ $(wc -l <"$opened") == 1 ]] || dfail "a file: link reached the handler"
echo "(shown, never opened: exit 65)"
step "web page opened, file: link refused"

say "a terminal: the laptop's shell (the shell-init hook in bash), continued on the desktop"
laptop_repo=${home[laptop]}/src/handoff
desktop_clone=${home[desktop]}/code/handoff
git init -q -b feature/login "$laptop_repo"
git -C "$laptop_repo" remote add origin git@github.com:acme/handoff.git
mkdir -p "$laptop_repo/Sources/Kit" "$desktop_clone/Sources/Kit"
git init -q -b main "$desktop_clone"
git -C "$desktop_clone" remote add origin https://github.com/acme/handoff
show laptop "eval \"\$(handoff shell-init bash)\"; cd ~/src/handoff/Sources/Kit; make test"
HANDOFF_BUS_ADDRESS=${bus[laptop]} XDG_DATA_HOME=${home[laptop]} HOME=${home[laptop]} bash -c '
    set -o history
    eval "$("$1" shell-init bash)"
    __handoff_prompt                    # the first prompt only records where the shell is
    cd "$2/Sources/Kit"; history -s "make test"
    __handoff_prompt                    # a new folder and a new command: offered in the background
' hook "$bin/handoff" "$laptop_repo" || dfail "the bash hook failed"
show desktop "HANDOFF_CLONES=~/code handoff continue --type org.handoff.terminal"
until_ok "$work/desktop/terminal.out" env HANDOFF_CLONES="${home[desktop]}/code" \
    HANDOFF_BUS_ADDRESS=${bus[desktop]} XDG_DATA_HOME=${home[desktop]} HOME=${home[desktop]} \
    "$bin/handoff" continue --type org.handoff.terminal </dev/null \
    || dfail "continue of the terminal failed: $(cat "$work/desktop/terminal.out.err")"
cat "$work/desktop/terminal.out.err" "$work/desktop/terminal.out"
grep -qxF "cd -- '$desktop_clone/Sources/Kit'" "$work/desktop/terminal.out" || dfail "not the same folder in the clone"
grep -qxF "git -C '$desktop_clone' switch -- 'feature/login'" "$work/desktop/terminal.out" || dfail "no branch checkout offered"
grep -qxF "# last command, not run: make test" "$work/desktop/terminal.out" || dfail "the last command is not shown"
echo "(the desktop's clone found by its https remote for the laptop's ssh one; nothing was run)"
step "terminal continued in the clone"
