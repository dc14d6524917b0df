/// How a shell should complete the value of an option or argument.
public enum CompletionKind: Sendable, Hashable {
    /// No completion: the value is free text (a number, a name the shell cannot know).
    case none
    /// A fixed list of words.
    case choices([String])
    /// A path in the file system.
    case file
    /// The lines a shell command prints, run at completion time (for example the names of existing notes).
    case shellCommand(String)
}
