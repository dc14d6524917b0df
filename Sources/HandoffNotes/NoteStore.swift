import Foundation

/// The notes directory: one UTF-8 file `NAME.md` per note, written atomically.
///
/// The default directory is `$XDG_DATA_HOME/handoff/notes`, or `~/.local/share/handoff/notes` when
/// `XDG_DATA_HOME` is unset, empty or not absolute (as the XDG Base Directory specification requires).
/// Hidden files in the directory are the store's own state (edit locks, restore records, temporary files)
/// and are never listed as notes.
public struct NoteStore: Sendable {
    /// The directory holding the notes.
    public let directory: String

    /// A store in a given directory (created on first write).
    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The store at the default location for an environment (see the type's description).
    /// - Throws: ``NoteError`` when neither `XDG_DATA_HOME` nor `HOME` gives an absolute path.
    public init(environment: [String: String]) throws(NoteError) {
        try self.init(directory: Self.defaultDirectory(environment: environment))
    }

    /// `$XDG_DATA_HOME/handoff/notes` or `$HOME/.local/share/handoff/notes`.
    public static func defaultDirectory(environment: [String: String]) throws(NoteError) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/handoff/notes"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw NoteError(.io, "cannot find the notes directory: neither XDG_DATA_HOME nor HOME is set")
        }
        return home + "/.local/share/handoff/notes"
    }

    /// The path of a note's file (which may not exist).
    public func path(of name: NoteName) -> String {
        directory + "/" + name.fileName
    }

    /// Whether a note exists.
    public func exists(_ name: NoteName) -> Bool {
        FileManager.default.fileExists(atPath: path(of: name))
    }

    /// All notes, sorted by name. A missing directory is an empty store. A note that is not UTF-8 text is still
    /// listed (its title read leniently), so nothing in the directory is hidden from the user.
    public func list() throws(NoteError) -> [NoteMetadata] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            if !FileManager.default.fileExists(atPath: directory) { return [] }
            throw NoteError(.io, "cannot list \(directory): \(error.localizedDescription)")
        }
        var notes: [NoteMetadata] = []
        for entry in entries where entry.hasSuffix(".md") && !entry.hasPrefix(".") {
            guard let name = try? NoteName(entry), let (_, metadata) = try? load(name, lenient: true) else {
                continue
            }
            notes.append(metadata)
        }
        return notes.sorted { $0.name < $1.name }
    }

    /// Reads a note.
    /// - Throws: ``NoteError`` `.notFound`, `.notText` (not UTF-8) or `.io`.
    public func read(_ name: NoteName) throws(NoteError) -> Note {
        // Without `unlessBeingWritten` a read always has a result; the throw is never reached.
        guard let (content, metadata) = try load(name, lenient: false) else {
            throw NoteError(.io, "cannot read \(path(of: name))")
        }
        return Note(metadata: metadata, content: content)
    }

    /// Reads a note as an editor saved it, or nil while a process has it open for writing (see
    /// ``FileSystem/read(_:unlessBeingWritten:)``).
    func readSaved(_ name: NoteName) throws(NoteError) -> Note? {
        guard let (content, metadata) = try load(name, lenient: false, unlessBeingWritten: true) else { return nil }
        return Note(metadata: metadata, content: content)
    }

    /// Reads a note's text and metadata; `lenient` decodes invalid UTF-8 with replacement characters instead of
    /// throwing `.notText`. nil only when `unlessBeingWritten` and the note is open for writing.
    private func load(
        _ name: NoteName, lenient: Bool, unlessBeingWritten: Bool = false
    ) throws(NoteError) -> (String, NoteMetadata)? {
        let path = path(of: name)
        let data: Data
        let attributes: [FileAttributeKey: Any]
        do {
            guard let read = try FileSystem.read(path, unlessBeingWritten: unlessBeingWritten) else { return nil }
            data = read
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) {
                throw NoteError(.notFound, "no note named '\(name)' in \(directory)")
            }
            if let error = error as? NoteError { throw error }
            throw NoteError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        let modified = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
        return try decode(data, of: name, modified: modified, lenient: lenient)
    }

    /// A note file's bytes as its text and metadata, without touching the disk: what every read does once it has
    /// the bytes (and what the `note-file` fuzz target feeds directly). `lenient` decodes invalid UTF-8 with
    /// replacement characters instead of throwing `.notText`.
    func decode(
        _ data: Data, of name: NoteName, modified: Date, lenient: Bool
    ) throws(NoteError) -> (String, NoteMetadata) {
        let path = path(of: name)
        let strict = Note.text(utf8: data)
        guard let content = strict ?? (lenient ? String(decoding: data, as: UTF8.self) : nil) else {
            throw NoteError(.notText, "note '\(name)' is not UTF-8 text (\(path))")
        }
        let metadata = NoteMetadata(
            name: name, title: Note.title(of: content, fallback: name.rawValue), path: path, modified: modified,
            size: data.count, hash: ContentHash(of: data))
        return (content, metadata)
    }

    /// Writes a note atomically, replacing any existing one: readers and editors see the old or the new text,
    /// never a mix, and a crash leaves the old text.
    @discardableResult
    public func write(_ content: String, to name: NoteName) throws(NoteError) -> NoteMetadata {
        try FileSystem.makeDirectory(directory)
        let temporary = try FileSystem.writeTemporary(Data(content.utf8), in: directory, for: name.fileName)
        try FileSystem.replace(path(of: name), with: temporary)
        return try read(name).metadata
    }

    /// Writes a note only if none of that name exists, atomically. Returns nil when one exists.
    public func create(_ content: String, as name: NoteName) throws(NoteError) -> NoteMetadata? {
        try FileSystem.makeDirectory(directory)
        let temporary = try FileSystem.writeTemporary(Data(content.utf8), in: directory, for: name.fileName)
        guard try FileSystem.createExclusively(path(of: name), from: temporary) else { return nil }
        return try read(name).metadata
    }
}
