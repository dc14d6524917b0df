import Foundation

/// Writes one line to standard output at once (unbuffered, so a scenario killed by its timeout keeps its lines).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
