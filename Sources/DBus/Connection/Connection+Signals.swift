/// Signal subscriptions.
extension Connection {
    /// A change of a bus name's owner, from `NameOwnerChanged`.
    public struct NameOwnerChange: Sendable, Equatable {
        /// The name whose owner changed.
        public var name: BusName
        /// The previous owner; nil when the name was unowned.
        public var oldOwner: BusName?
        /// The new owner; nil when the name is now unowned (e.g. bluetoothd exited).
        public var newOwner: BusName?
    }

    /// Subscribes to the messages matching `rule`.
    ///
    /// The match rule is registered with the bus before this returns, so every matching signal emitted after
    /// the call returns is delivered; none is lost to a race. The stream finishes when the connection closes;
    /// ending iteration (or dropping the stream) removes the rule from the bus.
    ///
    /// - Throws: ``DBusError`` with name `MatchRuleInvalid` if the bus rejects the rule, or `.disconnected`.
    public func signals(matching rule: MatchRule) async throws(DBusError) -> AsyncStream<Message> {
        let core = self.core
        let id = core.nextID()
        let (stream, continuation) = AsyncStream<Message>.makeStream()
        let subscription = SignalSubscription(id: id, rule: rule, continuation: continuation)
        let needsOwner = rule.sender.map { !$0.rawValue.hasPrefix(":") && $0 != ConnectionCore.busName } ?? false
        let added = core.state.withLock { state in
            guard !state.closed else { return false }
            state.subscriptions[id] = subscription
            return true
        }
        guard added else { throw DBusError(.disconnected, "the connection is closed") }
        continuation.onTermination = { [weak core] _ in
            guard let core, core.state.withLock({ $0.subscriptions.removeValue(forKey: id) }) != nil else { return }
            let remove = try? Message.methodCall(
                destination: ConnectionCore.busName, path: ConnectionCore.busPath,
                interface: ConnectionCore.busInterface, member: "RemoveMatch", arguments: [.string(rule.description)])
            if let remove {
                remove.setNoReply(true)
                try? core.send(remove)
            }
        }
        do {
            if let sender = rule.sender, needsOwner { try await watchOwner(of: sender) }
            _ = try await busCall("AddMatch", [.string(rule.description)])
        } catch {
            core.state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Starts tracking which unique name owns `name`, so signals from it can be told apart locally.
    private func watchOwner(of name: BusName) async throws(DBusError) {
        let isNew = core.state.withLock { $0.watchedNames.insert(name).inserted }
        guard isNew else { return }
        let rule = MatchRule.signal(
            sender: ConnectionCore.busName, interface: ConnectionCore.busInterface,
            member: ConnectionCore.nameOwnerChanged
        ).argument(0, name.rawValue)
        _ = try await busCall("AddMatch", [.string(rule.description)])
        let current = try await owner(of: name)
        core.state.withLock { state in
            if state.owners[name] == nil, let current { state.owners[name] = current }
        }
    }

    /// Watches the owner of `name`: one element each time it is acquired, released or handed over. Use it to
    /// notice a service (such as bluetoothd) exiting and coming back.
    public func nameOwnerChanges(of name: BusName) async throws(DBusError) -> AsyncStream<NameOwnerChange> {
        let rule = MatchRule.signal(
            sender: ConnectionCore.busName, interface: ConnectionCore.busInterface,
            member: ConnectionCore.nameOwnerChanged
        ).argument(0, name.rawValue)
        let messages = try await signals(matching: rule)
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages {
                    guard let values = try? message.arguments(), values.count == 3,
                        case .string(let changed) = values[0], case .string(let old) = values[1],
                        case .string(let new) = values[2], let changedName = BusName(rawValue: changed)
                    else { continue }
                    continuation.yield(
                        NameOwnerChange(
                            name: changedName, oldOwner: BusName(rawValue: old), newOwner: BusName(rawValue: new)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
