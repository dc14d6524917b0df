import HandoffClient
import HandoffNotes

/// The JSON printed by `handoff continue --json`:
/// `{"local":{…NoteMetadata…},"note":{…NoteMetadata…},"outcome":"kept-both","reason":"local-changes"}`;
/// `outcome` is created, unchanged, updated or kept-both; `local` and `reason` only appear for kept-both;
/// `transport` (`l2cap`, `gatt`) and, after a fallback to GATT, `fallback` say how the bytes came.
struct RestoreReport: Encodable {
    let outcome: String
    let note: NoteMetadata
    let local: NoteMetadata?
    let reason: RestoreOutcome.ConflictReason?
    /// The path the bytes took (`l2cap`, `gatt`) and why GATT was a fallback, when the daemon says.
    var transport: String?
    var fallback: String?

    init(_ outcome: RestoreOutcome, path continued: ContinuedActivity) {
        self.init(outcome)
        transport = continued.transport
        fallback = continued.fallback
    }

    init(_ outcome: RestoreOutcome) {
        switch outcome {
        case .created(let note): (self.outcome, self.note, local, reason) = ("created", note, nil, nil)
        case .unchanged(let note): (self.outcome, self.note, local, reason) = ("unchanged", note, nil, nil)
        case .updated(let note): (self.outcome, self.note, local, reason) = ("updated", note, nil, nil)
        case .keptBoth(let local, let copy, let reason):
            (self.outcome, note, self.local, self.reason) = ("kept-both", copy, local, reason)
        }
    }
}
