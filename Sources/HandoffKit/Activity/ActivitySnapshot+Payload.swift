import FoundationEssentials

extension ActivitySnapshot {
    /// Version of the payload dictionary's layout (independent of the wire version).
    static let payloadFormat: Int64 = 1

    /// The payload: a binary property list whose root dictionary holds the activity's properties.
    package func encodedPayload() throws(HandoffError) -> Data {
        // The root's entries as a list in key order, not a dictionary: hashing each key into a dictionary, and
        // the writer then sorting them, would cost more than the rest of a small payload's dictionaries.
        var root: [(key: String, value: PlistValue)] = []
        root.reserveCapacity(11)
        root.append(("activityType", .string(activityType)))
        if let expirationDate { root.append(("expirationDate", .date(expirationDate))) }
        root.append(("format", .integer(ActivitySnapshot.payloadFormat)))
        root.append(("isEligibleForHandoff", .bool(isEligibleForHandoff)))
        root.append(("keywords", .array(keywords.sorted().map { .string($0) })))
        if let persistentIdentifier { root.append(("persistentIdentifier", .string(persistentIdentifier))) }
        if let requiredUserInfoKeys {
            root.append(("requiredUserInfoKeys", .array(requiredUserInfoKeys.sorted().map { .string($0) })))
        }
        if let targetContentIdentifier { root.append(("targetContentIdentifier", .string(targetContentIdentifier))) }
        if let title { root.append(("title", .string(title))) }
        root.append(("userInfo", .dictionary(userInfo)))
        if let webpageURL { root.append(("webpageURL", .string(webpageURL.absoluteString))) }
        return try PlistValue.binaryPropertyList(entries: root)
    }

    /// Decodes a payload; throws `corruptPayload` for anything that is not a well-formed payload.
    package init(payload: Data) throws(HandoffError) {
        // One pass over the root's entries, as written (no dictionary is built for them), instead of a hashed
        // lookup for each field; unknown keys are ignored.
        var fields = [PlistValue?](repeating: nil, count: Field.allCases.count)
        for (key, value) in try PlistValue.entries(fromPropertyList: payload) {
            if let field = Field(key) { fields[field.index] = value }
        }
        func string(_ field: Field) throws(HandoffError) -> String? {
            guard let value = fields[field.index] else { return nil }
            guard case .string(let s) = value else { throw ActivitySnapshot.bad("\(field.rawValue) is not a string") }
            return s
        }
        func strings(_ field: Field) throws(HandoffError) -> Set<String>? {
            guard let value = fields[field.index] else { return nil }
            guard case .array(let items) = value else {
                throw ActivitySnapshot.bad("\(field.rawValue) is not an array")
            }
            return Set(try items.map { item throws(HandoffError) in
                guard case .string(let s) = item else {
                    throw ActivitySnapshot.bad("\(field.rawValue) holds a non-string")
                }
                return s
            })
        }
        guard case .integer(let format)? = fields[Field.format.index] else {
            throw ActivitySnapshot.bad("the format field is missing")
        }
        guard format == ActivitySnapshot.payloadFormat else {
            throw HandoffError(.protocolVersionMismatch, "payload format \(format) is not supported (this build reads 1)")
        }
        guard let type = try string(.activityType) else { throw ActivitySnapshot.bad("activityType is missing") }
        self.init(activityType: type)
        title = try string(.title)
        if let info = fields[Field.userInfo.index] {
            guard case .dictionary(let d) = info else { throw ActivitySnapshot.bad("userInfo is not a dictionary") }
            userInfo = d
        }
        requiredUserInfoKeys = try strings(.requiredUserInfoKeys)
        if let eligible = fields[Field.isEligibleForHandoff.index] {
            guard case .bool(let b) = eligible else { throw ActivitySnapshot.bad("isEligibleForHandoff is not a bool") }
            isEligibleForHandoff = b
        }
        if let url = try string(.webpageURL) {
            guard let parsed = URL(string: url) else { throw ActivitySnapshot.bad("webpageURL does not parse") }
            webpageURL = parsed
        }
        if let date = fields[Field.expirationDate.index] {
            guard case .date(let d) = date else { throw ActivitySnapshot.bad("expirationDate is not a date") }
            expirationDate = d
        }
        keywords = try strings(.keywords) ?? []
        persistentIdentifier = try string(.persistentIdentifier)
        targetContentIdentifier = try string(.targetContentIdentifier)
    }

    /// The payload root's keys.
    private enum Field: String, CaseIterable {
        case format, activityType, title, userInfo, requiredUserInfoKeys, isEligibleForHandoff, webpageURL
        case expirationDate, keywords, persistentIdentifier, targetContentIdentifier

        /// The field named `key`, if any. Not `init(rawValue:)`, whose synthesized form searches a table of
        /// the names at run time and costs several times these comparisons.
        init?(_ key: String) {
            switch key {
            case "format": self = .format
            case "activityType": self = .activityType
            case "title": self = .title
            case "userInfo": self = .userInfo
            case "requiredUserInfoKeys": self = .requiredUserInfoKeys
            case "isEligibleForHandoff": self = .isEligibleForHandoff
            case "webpageURL": self = .webpageURL
            case "expirationDate": self = .expirationDate
            case "keywords": self = .keywords
            case "persistentIdentifier": self = .persistentIdentifier
            case "targetContentIdentifier": self = .targetContentIdentifier
            default: return nil
            }
        }

        /// Where the field's value is kept while decoding.
        var index: Int {
            switch self {
            case .format: 0
            case .activityType: 1
            case .title: 2
            case .userInfo: 3
            case .requiredUserInfoKeys: 4
            case .isEligibleForHandoff: 5
            case .webpageURL: 6
            case .expirationDate: 7
            case .keywords: 8
            case .persistentIdentifier: 9
            case .targetContentIdentifier: 10
            }
        }
    }

    private static func bad(_ what: String) -> HandoffError {
        HandoffError(.corruptPayload, "the payload is malformed: \(what)")
    }
}
