import Foundation

/// A note continued from another device, about to be restored into the local store.
public struct IncomingNote: Sendable, Equatable {
    /// The note's name on the other device.
    public var name: NoteName
    /// Its full text.
    public var content: String
    /// The other device's name, used in a conflict copy's name.
    public var device: String
    /// When it arrived, used in a conflict copy's name.
    public var receivedAt: Date

    /// Creates an incoming note.
    public init(name: NoteName, content: String, device: String, receivedAt: Date) {
        self.name = name
        self.content = content
        self.device = device
        self.receivedAt = receivedAt
    }
}
