import BlueZ
import HandoffShared

/// Which Bluetooth adapter a ``FollowingBlueZRadio`` uses: a value that is told which adapters are present and
/// says whether to keep the one in use, take another, or let go of it. It does no I/O and reads no clock (time is
/// an argument), so every rule is tested on its own (AdapterChoiceTests).
///
/// The rule:
/// - An adapter is known by its address; its name (`hci1`) is only where it is now. A USB dongle unplugged and
///   plugged in again may come back under another index, and is the same adapter.
/// - `--adapter NAME|ADDRESS` (``Request/named(_:)``): that adapter only, followed by its address (a name is
///   resolved to an address the first time an adapter of that name is seen). While it is away there is none.
/// - Without `--adapter` (``Request/automatic``): the first adapter is BlueZ's default, the lowest-numbered, and
///   its address becomes the preferred one. While the preferred one is away another present adapter stands in (a
///   powered one first, then the lowest-numbered); when the preferred one is back, it is used again.
/// - The adapter in use is kept while it is present: an adapter appearing, or being switched off or on, moves
///   nothing.
/// - An adapter in use that goes away while the bluetoothd that showed it stays is let go at once: bluetoothd
///   dropped what was registered on it, so even the same adapter back is taken up afresh.
/// - Every adapter taken after the first waits ``settle``: a state that lasts less (bluetoothd registering its
///   adapters one after another, a dongle that comes back at once) takes nothing, so there is no flapping.
/// - While bluetoothd itself is away (no owner of `org.bluez`) the adapter in use is kept, and when a bluetoothd
///   is back it has ``settle`` to show it again: the radio on it then carries on (the BlueZ layer registers
///   everything again), as it does after a bluetoothd restart with one adapter.
public struct AdapterChoice: Sendable, Equatable {
    /// Which adapter the user asked for.
    public enum Request: Sendable, Equatable {
        /// No `--adapter`: BlueZ's default, then whichever is present.
        case automatic
        /// `--adapter`: an adapter name (`hci1`) or address (`00:AA:01:00:00:00`).
        case named(String)
    }

    /// An adapter as the choice sees it.
    public struct Adapter: Sendable, Equatable {
        /// Where it is now (`hci1`).
        public var name: String
        /// Its address; nil when bluetoothd has not said (then it is known by its name alone).
        public var address: BluetoothAddress?
        /// Whether it is switched on.
        public var powered: Bool

        /// An adapter called `name` with `address`.
        public init(name: String, address: BluetoothAddress?, powered: Bool) {
            self.name = name
            self.address = address
            self.powered = powered
        }

        /// The adapter as the BlueZ layer's mirror shows it.
        public init(_ properties: Adapter1.Properties) {
            self.init(name: properties.name, address: properties.address, powered: properties.powered)
        }

        /// The `N` of `hciN`, nil for another name.
        var index: Int? { name.hasPrefix("hci") ? Int(name.dropFirst(3)) : nil }

        /// Whether `other` is this adapter where it is now: the same address under the same name.
        func isSame(as other: Adapter) -> Bool {
            name == other.name && address == other.address
        }

        /// Whether `other` is this adapter, wherever it is: the same address (the same name when there is none).
        func isIdentical(to other: Adapter) -> Bool {
            if let address, let theirs = other.address { return address == theirs }
            return name == other.name
        }

        /// `hci1 (00:AA:01:01:00:01)`.
        var text: String { address.map { "\(name) (\($0))" } ?? name }
    }

    /// What to do now.
    public enum Decision: Sendable, Equatable {
        /// Keep things as they are.
        case stay
        /// Use this adapter from now on: the first one, or in place of the one in use, which is let go.
        case use(Adapter)
        /// Let go of the adapter in use: it is gone, and with it everything bluetoothd held for it. Another
        /// adapter, if one may be used, is taken by a later decision, after ``settle``.
        case release
        /// A change waits for ``AdapterChoice/settle``: decide again at this instant.
        case wait(until: HandoffInstant)
    }

    /// A change that has not yet lasted ``AdapterChoice/settle``.
    struct Pending: Sendable, Equatable {
        /// The adapter to take; nil to let go of the one in use.
        var target: Adapter?
        var since: HandoffInstant
    }

    /// What the user asked for.
    public let request: Request
    /// How long an adapter must stay the one to take before it is taken, every time but the first. Default 2 s.
    public let settle: Duration
    /// The address to use whenever it is present: the named adapter's, or the first one used.
    public private(set) var preferred: BluetoothAddress?
    /// The adapter in use, nil when none is. While bluetoothd is away it stays set, although it is not present.
    public private(set) var current: Adapter?
    /// Whether an adapter was ever taken (the first is taken at once, every later change waits ``settle``).
    public private(set) var hasChosen = false
    var pending: Pending?
    /// The bluetoothd (its unique bus name) that last showed the adapter in use.
    var seenUnder: String?
    /// BlueZ's default adapter (the lowest-numbered) at the last decision, when it is not the one in use.
    var otherDefault: Adapter?

    /// A choice for `request`, with nothing chosen yet.
    public init(request: Request, settle: Duration = .seconds(2)) {
        self.request = request
        self.settle = settle
        if case .named(let text) = request { preferred = BluetoothAddress(text) }
    }

    /// Decides from the adapters `present` now, bluetoothd's unique bus name (nil while it is away: no owner of
    /// `org.bluez`) and the time.
    public mutating func decide(present: [Adapter], bluetoothd: String?, now: HandoffInstant) -> Decision {
        let decision = deciding(present: present, bluetoothd: bluetoothd, now: now)
        let bluezDefault = present.min(by: Self.bluezOrder)
        otherDefault = current.flatMap { current in bluezDefault?.isSame(as: current) == false ? bluezDefault : nil }
        return decision
    }

    private mutating func deciding(present: [Adapter], bluetoothd: String?, now: HandoffInstant) -> Decision {
        let target = self.target(among: present)
        let currentIsPresent = current.map { current in present.contains { $0.isSame(as: current) } } ?? false
        if currentIsPresent { seenUnder = bluetoothd }
        if let current, let target, current.isSame(as: target) {
            pending = nil
            return .stay
        }
        guard let bluetoothd else {
            pending = nil
            return .stay
        }
        if current != nil, !currentIsPresent, seenUnder == bluetoothd {
            return commit(nil, under: bluetoothd)
        }
        if current == nil, target == nil {
            pending = nil
            return .stay
        }
        if current == nil, !hasChosen, let target {
            return commit(target, under: bluetoothd)
        }
        // A change: to `target`, or (nil) letting go of an adapter bluetoothd has not shown again since it restarted.
        if pending.map({ !Self.same($0.target, target) }) ?? true {
            pending = Pending(target: target, since: now)
        }
        let since = pending?.since ?? now
        guard now >= since + settle else { return .wait(until: since + settle) }
        return commit(target, under: bluetoothd)
    }

    /// The adapter taken by the last ``Decision/use(_:)`` could not be used after all (it went away meanwhile, or
    /// bluetoothd refused): none is in use, and the next decision, after ``settle``, may take it or another.
    public mutating func couldNotUse() {
        current = nil
        pending = nil
    }

    /// How the adapter is chosen, as `handoff status` says it: `BlueZ's default`, `the first one used (BlueZ's default
    /// is now hci0)`, `in place of 00:AA:… (away)`, `as --adapter hci1 asks`, `waiting for an adapter`,
    /// `waiting for --adapter hci1 (00:AA:…)`.
    public var summary: String {
        switch request {
        case .named(let text):
            let named = "--adapter \(text)"
                + (preferred.flatMap { $0 == BluetoothAddress(text) ? nil : " (\($0))" } ?? "")
            return current == nil ? "waiting for \(named)" : "as \(named) asks"
        case .automatic:
            guard let current else { return "waiting for an adapter" }
            if let preferred, current.address != preferred { return "in place of \(preferred) (away)" }
            if let otherDefault { return "the first one used (BlueZ's default is now \(otherDefault.name))" }
            return "BlueZ's default"
        }
    }

    /// The adapter the rule wants among `present`, nil when none may be used.
    func target(among present: [Adapter]) -> Adapter? {
        let usable = present.filter(isAllowed)
        if let preferred, let found = usable.first(where: { $0.address == preferred }) { return found }
        if let current, let found = usable.first(where: { $0.isIdentical(to: current) }) { return found }
        if preferred == nil, !hasChosen { return usable.min(by: Self.bluezOrder) }
        return usable.min { a, b in a.powered != b.powered ? a.powered : Self.bluezOrder(a, b) }
    }

    private func isAllowed(_ adapter: Adapter) -> Bool {
        guard case .named(let text) = request else { return true }
        if let preferred { return adapter.address == preferred }
        return adapter.name == text
    }

    /// Takes `target` (present under `bluetoothd`), or with nil lets go of the adapter in use.
    private mutating func commit(_ target: Adapter?, under bluetoothd: String) -> Decision {
        pending = nil
        current = target
        seenUnder = bluetoothd
        guard let target else { return .release }
        hasChosen = true
        if preferred == nil { preferred = target.address }
        return .use(target)
    }

    private static func same(_ a: Adapter?, _ b: Adapter?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.isSame(as: b)
        default: false
        }
    }

    /// BlueZ's order of adapters: the `hciN` with the lowest N first, then other names alphabetically
    /// (``BlueZ/waitForDefaultAdapter(timeout:)``'s default).
    static func bluezOrder(_ a: Adapter, _ b: Adapter) -> Bool {
        switch (a.index, b.index) {
        case let (x?, y?): x < y
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): a.name < b.name
        }
    }
}
