# Completes each INPUT in a fresh interactive zsh and checks the listing matches PATTERN.
# usage: zsh -f drive.zsh SCRIPT INPUT PATTERN [INPUT PATTERN]...
zmodload zsh/zpty
script=$1; shift
failed=0
expect() {
    local pattern=$1 acc="" chunk
    local deadline=$(( SECONDS + 15 ))
    while (( SECONDS < deadline )); do
        if zpty -r -t z chunk; then
            acc+=$chunk
            [[ $acc == $~pattern ]] && return 0
        else
            sleep 0.05
        fi
    done
    print -r -- "--- output was: ${acc//$'\r'/}"
    return 1
}
while (( $# >= 2 )); do
    input=$1 pattern=$2; shift 2
    zpty z zsh -f -i
    zpty -w z "PS1='%% '; autoload -Uz compinit; compinit -u -D; source ${(q)script}; print RE''ADY"
    expect '*READY*' || { print "FAIL setup"; exit 1; }
    zpty -n -w z "$input"$'\t\t'
    if expect "$pattern"; then print -r -- "OK $input"; else print -r -- "FAIL $input"; failed=1; fi
    zpty -d z
done
exit $failed
