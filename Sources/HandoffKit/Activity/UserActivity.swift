import FoundationEssentials
import HandoffShared

/// A user activity, as NSUserActivity: the state of what the user is doing, offered to the user's other devices.
///
/// Setting a property or calling `addUserInfoEntries(from:)` while the activity is current re-advertises it
/// with a new sequence number. The payload is read only when a peer asks for it; if `needsSave` is true the
/// delegate's `userActivityWillSave(_:)` runs first.
public final class UserActivity: Sendable {
    /// The activity type; must be one of the engine's declared types to become current or be continued.
    public let activityType: String

    private let state: Locked<State>

    struct State {
        var snapshot: ActivitySnapshot
        var needsSave = false
        var isValid = true
        var isSaving = false
        weak var delegate: (any UserActivityDelegate)?
        var onChange: (@Sendable () -> Void)?
    }

    /// Creates an activity of `activityType`, eligible for Handoff, with empty userInfo.
    public init(activityType: String) {
        self.activityType = activityType
        self.state = Locked(State(snapshot: ActivitySnapshot(activityType: activityType)))
    }

    /// Creates an activity from received state.
    init(snapshot: ActivitySnapshot) {
        self.activityType = snapshot.activityType
        self.state = Locked(State(snapshot: snapshot))
    }

    /// A user-visible title.
    public var title: String? {
        get { self[\.title] }
        set { self[\.title] = newValue }
    }

    /// App state to carry: property-list values and URLs.
    public var userInfo: [String: PlistValue] {
        get { self[\.userInfo] }
        set { self[\.userInfo] = newValue }
    }

    /// Keys of `userInfo` that must be present to restore; a payload missing one is refused.
    public var requiredUserInfoKeys: Set<String>? {
        get { self[\.requiredUserInfoKeys] }
        set { self[\.requiredUserInfoKeys] = newValue }
    }

    /// Whether the activity is offered to other devices (default true).
    public var isEligibleForHandoff: Bool {
        get { self[\.isEligibleForHandoff] }
        set { self[\.isEligibleForHandoff] = newValue }
    }

    /// A web page to open when no app on the receiving side handles the type.
    public var webpageURL: URL? {
        get { self[\.webpageURL] }
        set { self[\.webpageURL] = newValue }
    }

    /// After this date the activity is neither advertised nor continued.
    public var expirationDate: Date? {
        get { self[\.expirationDate] }
        set { self[\.expirationDate] = newValue }
    }

    /// Search keywords.
    public var keywords: Set<String> {
        get { self[\.keywords] }
        set { self[\.keywords] = newValue }
    }

    /// An app-chosen identifier for this activity (e.g. the note's id).
    public var persistentIdentifier: String? {
        get { self[\.persistentIdentifier] }
        set { self[\.persistentIdentifier] = newValue }
    }

    /// Identifies the content (window/scene) the activity should be routed to.
    public var targetContentIdentifier: String? {
        get { self[\.targetContentIdentifier] }
        set { self[\.targetContentIdentifier] = newValue }
    }

    /// Set to true when the state changed and `userActivityWillSave(_:)` should run before the next send.
    /// Setting it also re-advertises the activity with a new sequence number.
    public var needsSave: Bool {
        get { state.withLock { $0.needsSave } }
        set { mutate(notify: newValue) { $0.needsSave = newValue } }
    }

    /// The source-side delegate (held weakly, like NSUserActivity's).
    public var delegate: (any UserActivityDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// False once `invalidate()` ran; an invalid activity cannot become current again.
    public var isValid: Bool { state.withLock { $0.isValid } }

    /// Merges `entries` into `userInfo` (new values win).
    public func addUserInfoEntries(from entries: [String: PlistValue]) {
        mutate { $0.snapshot.userInfo.merge(entries, uniquingKeysWith: { _, new in new }) }
    }

    /// A consistent copy of every transferable property.
    var snapshot: ActivitySnapshot { state.withLock { $0.snapshot } }

    /// Runs `userActivityWillSave` if `needsSave`, clears it, then returns the state to send.
    func saveForSending() -> ActivitySnapshot {
        let (delegate, needed) = state.withLock { s in
            if s.needsSave { s.isSaving = true }
            return (s.delegate, s.needsSave)
        }
        if needed {
            // Changes made by the delegate here belong to this send; they do not re-advertise.
            delegate?.userActivityWillSave(self)
            state.withLock {
                $0.needsSave = false
                $0.isSaving = false
            }
        }
        return snapshot
    }

    /// Installs (or removes) the engine's change observer.
    func setChangeObserver(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.onChange = observer }
    }

    /// Marks the activity unusable and detaches it from any engine.
    func markInvalid() {
        state.withLock {
            $0.isValid = false
            $0.onChange = nil
        }
    }

    /// A snapshot field: read under the lock; written through `mutate`, so that a current activity is re-advertised.
    private subscript<Value>(field: WritableKeyPath<ActivitySnapshot, Value>) -> Value {
        get { state.withLock { $0.snapshot[keyPath: field] } }
        set { mutate { $0.snapshot[keyPath: field] = newValue } }
    }

    private func mutate(notify: Bool = true, _ body: (inout State) -> Void) {
        let observer = state.withLock { s -> (@Sendable () -> Void)? in
            body(&s)
            return notify && !s.isSaving ? s.onChange : nil
        }
        observer?()
    }
}
