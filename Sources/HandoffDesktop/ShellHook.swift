/// The prompt hooks `handoff shell-init` prints.
///
/// At each prompt the hook compares the working directory and the history number with what it last saw: no
/// change, no work (a string comparison, no program started). On a change it starts
/// `handoff terminal offer` in the background, detached, so the prompt never waits for git or the daemon. The
/// first prompt only records the state: opening a terminal does not take over the current activity.
///
/// `handoff continue`, through the wrapper function the hook also defines, sources what continue writes to
/// `--shell-file` (the `cd` and the history entry of a ``TerminalPlan``), since a program cannot change the
/// directory of the shell that runs it.
public enum ShellHook {
    /// The shells a hook exists for.
    public enum Shell: String, Sendable, CaseIterable {
        case bash, zsh
    }

    /// The hook for `shell`, calling the `handoff` at `program`.
    public static func script(for shell: Shell, program: String) -> String {
        let handoff = ShellWord.quoted(program)
        let wrapper = """
            handoff() {
                if [ "${1-}" = continue ]; then
                    local __handoff_file __handoff_status
                    __handoff_file=$(mktemp "${TMPDIR:-/tmp}/handoff-continue.XXXXXX") || return
                    command \(handoff) "$@" --shell-file "$__handoff_file"
                    __handoff_status=$?
                    [ -s "$__handoff_file" ] && . "$__handoff_file"
                    rm -f -- "$__handoff_file"
                    return $__handoff_status
                fi
                command \(handoff) "$@"
            }

            """
        switch shell {
        case .bash:
            return """
                # handoff shell-init bash: offers this shell's place (org.handoff.terminal) when it changes.
                # Add to ~/.bashrc:  eval "$(handoff shell-init bash)"
                __handoff_prompt() {
                    local __handoff_status=$? __handoff_now="$PWD|$HISTCMD" __handoff_line
                    if [ "$__handoff_now" != "${__handoff_seen-}" ]; then
                        if [ -n "${__handoff_seen+x}" ]; then
                            __handoff_line=$(HISTTIMEFORMAT= builtin fc -ln -1 2>/dev/null)
                            __handoff_line=${__handoff_line#"${__handoff_line%%[![:space:]]*}"}
                            ( command \(handoff) terminal offer --cwd "$PWD" --command "$__handoff_line" \
                >/dev/null 2>&1 & )
                        fi
                        __handoff_seen=$__handoff_now
                    fi
                    return $__handoff_status
                }
                case ";${PROMPT_COMMAND-};" in
                    *";__handoff_prompt;"*) ;;
                    *) PROMPT_COMMAND="__handoff_prompt${PROMPT_COMMAND:+;$PROMPT_COMMAND}" ;;
                esac

                """ + wrapper
        case .zsh:
            return """
                # handoff shell-init zsh: offers this shell's place (org.handoff.terminal) when it changes.
                # Add to ~/.zshrc:  eval "$(handoff shell-init zsh)"
                typeset -g __handoff_command=""
                # A line HIST_IGNORE_SPACE keeps out of the history (it starts with a space) is not offered either.
                __handoff_preexec() {
                    if [[ -o histignorespace && $1 == ' '* ]]; then __handoff_command=""; else __handoff_command=$1; fi
                }
                __handoff_precmd() {
                    local __handoff_now="$PWD|$HISTCMD"
                    if [[ $__handoff_now != ${__handoff_seen-} ]]; then
                        if [[ -n ${__handoff_seen+x} ]]; then
                            ( command \(handoff) terminal offer --cwd "$PWD" --command "$__handoff_command" \
                >/dev/null 2>&1 & )
                        fi
                        typeset -g __handoff_seen=$__handoff_now
                    fi
                }
                autoload -Uz add-zsh-hook
                add-zsh-hook preexec __handoff_preexec
                add-zsh-hook precmd __handoff_precmd

                """ + wrapper
        }
    }
}
