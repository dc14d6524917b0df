import FoundationEssentials

extension ActivitySnapshot {
    /// Version of the payload dictionary's layout (independent of the wire version).
    static let payloadFormat: Int64 = 1

    /// The payload: a binary property list whose root dictionary holds the activity's properties.
    package func encodedPayload() throws(HandoffError) -> Data {
        var root: [String: PlistValue] = [
            "format": .integer(ActivitySnapshot.payloadFormat),
            "activityType": .string(activityType),
            "userInfo": .dictionary(userInfo),
            "isEligibleForHandoff": .bool(isEligibleForHandoff),
            "keywords": .array(keywords.sorted().map { .string($0) }),
        ]
        if let title { root["title"] = .string(title) }
        if let requiredUserInfoKeys { root["requiredUserInfoKeys"] = .array(requiredUserInfoKeys.sorted().map { .string($0) }) }
        if let webpageURL { root["webpageURL"] = .string(webpageURL.absoluteString) }
        if let expirationDate { root["expirationDate"] = .date(expirationDate) }
        if let persistentIdentifier { root["persistentIdentifier"] = .string(persistentIdentifier) }
        if let targetContentIdentifier { root["targetContentIdentifier"] = .string(targetContentIdentifier) }
        return try PlistValue.binaryPropertyList(from: root)
    }

    /// Decodes a payload; throws `corruptPayload` for anything that is not a well-formed payload.
    package init(payload: Data) throws(HandoffError) {
        let root = try PlistValue.dictionary(fromPropertyList: payload)
        func string(_ key: String) throws(HandoffError) -> String? {
            guard let value = root[key] else { return nil }
            guard case .string(let s) = value else { throw ActivitySnapshot.bad("\(key) is not a string") }
            return s
        }
        func strings(_ key: String) throws(HandoffError) -> Set<String>? {
            guard let value = root[key] else { return nil }
            guard case .array(let items) = value else { throw ActivitySnapshot.bad("\(key) is not an array") }
            return Set(try items.map { item throws(HandoffError) in
                guard case .string(let s) = item else { throw ActivitySnapshot.bad("\(key) holds a non-string") }
                return s
            })
        }
        guard case .integer(let format)? = root["format"] else { throw ActivitySnapshot.bad("the format field is missing") }
        guard format == ActivitySnapshot.payloadFormat else {
            throw HandoffError(.protocolVersionMismatch, "payload format \(format) is not supported (this build reads 1)")
        }
        guard let type = try string("activityType") else { throw ActivitySnapshot.bad("activityType is missing") }
        self.init(activityType: type)
        title = try string("title")
        if let info = root["userInfo"] {
            guard case .dictionary(let d) = info else { throw ActivitySnapshot.bad("userInfo is not a dictionary") }
            userInfo = d
        }
        requiredUserInfoKeys = try strings("requiredUserInfoKeys")
        if let eligible = root["isEligibleForHandoff"] {
            guard case .bool(let b) = eligible else { throw ActivitySnapshot.bad("isEligibleForHandoff is not a bool") }
            isEligibleForHandoff = b
        }
        if let url = try string("webpageURL") {
            guard let parsed = URL(string: url) else { throw ActivitySnapshot.bad("webpageURL does not parse") }
            webpageURL = parsed
        }
        if let date = root["expirationDate"] {
            guard case .date(let d) = date else { throw ActivitySnapshot.bad("expirationDate is not a date") }
            expirationDate = d
        }
        keywords = try strings("keywords") ?? []
        persistentIdentifier = try string("persistentIdentifier")
        targetContentIdentifier = try string("targetContentIdentifier")
    }

    private static func bad(_ what: String) -> HandoffError {
        HandoffError(.corruptPayload, "the payload is malformed: \(what)")
    }
}
