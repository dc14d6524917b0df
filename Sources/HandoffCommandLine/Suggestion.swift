/// Finds the closest known word to a mistyped one, for "did you mean …?" hints.
enum Suggestion {
    /// The candidate nearest to `word` by edit distance, if it is near enough to be a plausible typo.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: distance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        let limit = max(1, min(3, best.candidate.count / 3))
        if best.distance <= limit { return best.candidate }
        // A prefix ("--js" for "--json") is also a plausible typo.
        if word.count >= 3, let prefixed = candidates.first(where: { $0.hasPrefix(word) }) { return prefixed }
        return nil
    }

    /// Levenshtein distance between two strings, by Unicode scalars.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
