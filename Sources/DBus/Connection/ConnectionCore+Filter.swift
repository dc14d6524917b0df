import CDBus

extension ConnectionCore {
    static let busName = BusName(trusted: "org.freedesktop.DBus")
    static let busPath = ObjectPath(trusted: "/org/freedesktop/DBus")
    static let busInterface = InterfaceName(trusted: "org.freedesktop.DBus")
    static let localInterface = InterfaceName(trusted: "org.freedesktop.DBus.Local")
    static let nameOwnerChanged = MemberName(trusted: "NameOwnerChanged")

    /// Every incoming message passes here, on the loop. Replies go to the calls awaiting them; method calls go to
    /// the exported objects (and are always answered, so libdbus never adds its own reply); signals go to matching
    /// subscriptions.
    func filter(_ message: Message) -> DBusHandlerResult {
        switch message.kind {
        case .methodCall:
            counters.methodCalls.add(1, ordering: .relaxed)
            handleMethodCall(message)
            return DBUS_HANDLER_RESULT_HANDLED
        case .signal:
            counters.signals.add(1, ordering: .relaxed)
            deliverSignal(message)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodReturn, .error:
            counters.replies.add(1, ordering: .relaxed)
            // A reply nobody waits for any more (cancelled, timed out) is left to libdbus, which drops it.
            return deliverReply(message) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .unknown:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func deliverSignal(_ message: Message) {
        if message.interface == Self.localInterface, message.member == "Disconnected" {
            handleDisconnect()
            return
        }
        var decoded: [Value]?
        let arguments = {
            if let decoded { return decoded }
            let values = (try? message.arguments()) ?? []
            decoded = values
            return values
        }
        if message.sender == Self.busName, message.member == Self.nameOwnerChanged {
            recordOwnerChange(arguments())
        }
        let targets = state.withLock { state in
            state.subscriptions.values.filter {
                $0.rule.matches(message, owners: state.owners, arguments: arguments)
            }
        }
        for subscription in targets { subscription.deliver(message) }
    }

    /// Keeps `owners` current for the watched well-known names.
    private func recordOwnerChange(_ arguments: [Value]) {
        guard arguments.count == 3, case .string(let name) = arguments[0], case .string(let newOwner) = arguments[2],
            let busName = BusName(rawValue: name)
        else { return }
        state.withLock { state in
            guard state.watchedNames.contains(busName) else { return }
            state.owners[busName] = newOwner.isEmpty ? nil : BusName(rawValue: newOwner)
        }
    }
}
