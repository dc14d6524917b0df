import HandoffClient
import HandoffNotes

/// Offers a note as the current activity while it is edited: the first save sets it, later saves update it.
///
/// Failures are remembered, not thrown, because they happen while the editor owns the terminal; the command
/// reports the first one after the editor exits.
actor NoteOffer {
    private let service: any HandoffService
    private var id: ActivityID?
    private(set) var firstError: (any Error)?

    init(service: any HandoffService) {
        self.service = service
    }

    /// Whether an activity was offered.
    var isOffered: Bool { id != nil }

    /// Makes the note's current text the current activity.
    func offer(_ note: Note) async {
        let content = ActivityContent.note(name: note.name.rawValue, title: note.title, content: note.content)
        do {
            if let id {
                try await service.updateCurrentActivity(id, with: content)
            } else {
                id = try await service.setCurrentActivity(content)
            }
        } catch {
            if firstError == nil { firstError = error }
        }
    }

    /// Asks the daemon to stop offering the note after `grace`.
    func resign(after grace: Duration) async throws {
        guard let id else { return }
        try await service.resignCurrentActivity(id, after: grace)
    }
}
