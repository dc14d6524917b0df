import Foundation
import HandoffNotes

/// A fresh directory under /tmp, removed when the test drops it.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let template = NSTemporaryDirectory() + "/handoff-notes-tests-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A store at the default location for `XDG_DATA_HOME=<path>/data`.
    func store() throws -> NoteStore {
        try NoteStore(environment: ["XDG_DATA_HOME": path + "/data", "HOME": path + "/home"])
    }

    /// Writes an executable shell script and returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let file = path + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
        return file
    }
}
