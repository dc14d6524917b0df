extension ObjectPath {
    /// The root path `/`.
    public static let root = ObjectPath(trusted: "/")

    /// The path with one more element, e.g. `/org/handoff` + `note0` = `/org/handoff/note0`.
    ///
    /// - Throws: ``DBusError`` `.invalidName` when `element` is empty or holds characters other than
    ///   `[A-Za-z0-9_]`.
    public func appending(_ element: String) throws(DBusError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// The enclosing path, or nil for `/`.
    public var parent: ObjectPath? {
        guard rawValue != "/" else { return nil }
        guard let slash = rawValue.lastIndex(of: "/"), slash != rawValue.startIndex else { return .root }
        return ObjectPath(trusted: String(rawValue[..<slash]))
    }

    /// The path's elements, e.g. `["org", "handoff"]` for `/org/handoff`; empty for `/`.
    public var elements: [Substring] {
        rawValue.split(separator: "/")
    }

    /// True when `other` lies strictly below this path (`/a` is an ancestor of `/a/b`, not of `/a` or `/ab`).
    public func isAncestor(of other: ObjectPath) -> Bool {
        if rawValue == "/" { return other.rawValue != "/" }
        return other.rawValue.count > rawValue.count && other.rawValue.hasPrefix(rawValue + "/")
    }
}
