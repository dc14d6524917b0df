extension NoteName {
    /// A valid name made from untrusted text, such as a name or title received from another device:
    /// `/` and control characters become `-`, leading dots and surrounding spaces are removed, and the text is
    /// cut to ``maximumLength`` bytes. Text that leaves nothing becomes `fallback`.
    public static func sanitized(_ text: String, fallback: String = "Continued note") -> NoteName {
        var name = String(text.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F ? "-" : Character(scalar)
        })
        if name.hasSuffix(".md") { name.removeLast(3) }
        name = String(name.drop { $0 == "." || $0 == " " })
        while name.utf8.count > maximumLength { name.removeLast() }
        while name.last == " " { name.removeLast() }
        if let valid = try? NoteName(name) { return valid }
        if let valid = try? NoteName(fallback) { return valid }
        return NoteName(unchecked: "Continued note")
    }

    /// A name known to be valid.
    private init(unchecked: String) {
        rawValue = unchecked
    }
}
