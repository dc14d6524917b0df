/// The object server: answers method calls to exported objects, including the standard Properties,
/// Introspectable and ObjectManager interfaces (libdbus itself answers org.freedesktop.DBus.Peer).
extension ConnectionCore {
    /// Called on the loop for every incoming method call; the answer is produced in a task so a slow handler
    /// never blocks dispatching.
    func handleMethodCall(_ message: Message) {
        let serialQueue: SerialCallQueue? = message.path.flatMap { path in
            message.member.flatMap { member in
                state.withLock { $0.objects.objects[path] }?.serialQueue(interface: message.interface, member: member)
            }
        }
        if let serialQueue {
            serialQueue.submit { await self.serve(message) }
        } else {
            Task { await self.serve(message) }
        }
    }

    private func serve(_ message: Message) async {
        let outcome: Result<[Value], DBusError>
        var noReply = message.noReplyExpected
        do {
            let (values, handlerNoReply) = try await route(message)
            noReply = noReply || handlerNoReply
            outcome = .success(values)
        } catch let error as DBusError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(DBusError(.remote, String(describing: error), name: .failed))
        }
        guard !noReply else { return }
        switch outcome {
        case .success(let values):
            do {
                try send(message.makeReturn(values))
            } catch {
                if let reply = message.makeError(.failed, "cannot send the reply: \(error.message)") {
                    try? send(reply)
                }
            }
        case .failure(let error):
            if let reply = message.makeError(error.replyName, error.message) { try? send(reply) }
        }
    }

    private func lookup(_ path: ObjectPath) -> ExportedObject? {
        state.withLock { $0.objects.objects[path] }
    }

    /// Finds the method and runs it. Returns the reply values and whether the method is a no-reply one.
    private func route(_ message: Message) async throws -> ([Value], Bool) {
        guard let path = message.path, let member = message.member else {
            throw DBusError(name: .unknownMethod, message: "method call without a path or member")
        }
        let object = lookup(path)
        let interfaceName = message.interface

        if interfaceName == StandardInterfaces.introspectable || (interfaceName == nil && member == "Introspect") {
            guard member == "Introspect" else { throw unknownMethod(member, StandardInterfaces.introspectable) }
            let children = state.withLock { $0.objects.children(of: path) }
            guard object != nil || !children.isEmpty || path == .root else { throw unknownObject(path) }
            try checkSignature(message, "", member)
            return ([.string(Introspection.xml(for: object, children: children))], false)
        }
        guard let object else { throw unknownObject(path) }

        switch interfaceName {
        case StandardInterfaces.properties?:
            return (try await serveProperties(message, member: member, path: path, object: object), false)
        case StandardInterfaces.objectManager? where object.isObjectManager:
            guard member == "GetManagedObjects" else { throw unknownMethod(member, StandardInterfaces.objectManager) }
            try checkSignature(message, "", member)
            return ([try await managedObjects(below: path)], false)
        case nil:
            for interface in object.interfaces {
                if let method = interface.method(named: member) { return try await invoke(method, message) }
            }
            if ["Get", "GetAll", "Set"].contains(member.rawValue) {
                return (try await serveProperties(message, member: member, path: path, object: object), false)
            }
            if object.isObjectManager, member == "GetManagedObjects" {
                return ([try await managedObjects(below: path)], false)
            }
            throw DBusError(name: .unknownMethod, message: "no method '\(member)' on object \(path)")
        case let name?:
            guard let interface = object.interface(named: name) else {
                throw DBusError(name: .unknownInterface, message: "object \(path) has no interface '\(name)'")
            }
            guard let method = interface.method(named: member) else { throw unknownMethod(member, name) }
            return try await invoke(method, message)
        }
    }

    private func unknownObject(_ path: ObjectPath) -> DBusError {
        DBusError(name: .unknownObject, message: "no object at path \(path)")
    }

    private func unknownMethod(_ member: MemberName, _ interface: InterfaceName) -> DBusError {
        DBusError(name: .unknownMethod, message: "no method '\(member)' in interface '\(interface)'")
    }

    private func checkSignature(_ message: Message, _ expected: String, _ member: MemberName) throws(DBusError) {
        let actual = message.signatureText
        guard actual == expected else {
            throw DBusError(
                name: .invalidArgs,
                message: "method '\(member)' takes arguments of signature '\(expected)', got '\(actual)'")
        }
    }

    private func invoke(_ method: ExportedInterface.Method, _ message: Message) async throws -> ([Value], Bool) {
        try checkSignature(message, method.input.rawValue, method.name)
        let arguments: [Value]
        do {
            arguments = try message.arguments()
        } catch {
            throw DBusError(name: .invalidArgs, message: "cannot read the arguments: \(error.message)")
        }
        let result = try await method.handler(MethodCall(message: message, arguments: arguments))
        // A NoReply method has nothing to say, but a caller that did not set NO_REPLY_EXPECTED still waits for an
        // answer, and the bus counts it against the caller's 128 pending replies until it times out: answer empty.
        if method.noReply { return ([], message.noReplyExpected) }
        let produced = Signature(types: result.map(\.type))
        guard produced == method.output else {
            throw DBusError(
                name: .failed,
                message: "method '\(method.name)' produced signature '\(produced)' instead of '\(method.output)'")
        }
        return (result, false)
    }

    // MARK: org.freedesktop.DBus.Properties

    private func serveProperties(
        _ message: Message, member: MemberName, path: ObjectPath, object: ExportedObject
    ) async throws -> [Value] {
        let expected = ["Get": "ss", "GetAll": "s", "Set": "ssv"]
        guard let signature = expected[member.rawValue] else {
            throw unknownMethod(member, StandardInterfaces.properties)
        }
        try checkSignature(message, signature, member)
        let arguments = try message.arguments()
        guard case .string(let interfaceText) = arguments[0] else { throw DBusError(name: .invalidArgs, message: "") }
        guard let interfaceName = InterfaceName(rawValue: interfaceText),
            let interface = object.interface(named: interfaceName)
        else {
            throw DBusError(name: .unknownInterface, message: "object \(path) has no interface '\(interfaceText)'")
        }
        if member == "GetAll" {
            return [try await interface.allProperties().dbusValue]
        }
        guard case .string(let propertyText) = arguments[1], let propertyName = MemberName(rawValue: propertyText),
            let property = interface.property(named: propertyName)
        else {
            throw DBusError(
                name: .unknownProperty, message: "interface '\(interfaceName)' has no property '\(arguments[1])'")
        }
        if member == "Get" {
            return [.variant(Variant(try await property.get()))]
        }
        guard let set = property.set else {
            throw DBusError(name: .propertyReadOnly, message: "property '\(propertyName)' is read-only")
        }
        guard case .variant(let variant) = arguments[2], variant.type == property.type else {
            throw DBusError(
                name: .invalidArgs,
                message: "property '\(propertyName)' has type '\(property.type)', got '\(arguments[2])'")
        }
        try await set(variant.value)
        let newValue = try await property.get()
        try? emitPropertiesChanged(
            path: path, interface: interfaceName, changed: [propertyName.rawValue: Variant(newValue)], invalidated: [])
        return []
    }

    func emitPropertiesChanged(
        path: ObjectPath, interface: InterfaceName, changed: [String: Variant], invalidated: [String]
    ) throws(DBusError) {
        try send(
            Message.signal(
                path: path, interface: StandardInterfaces.properties, member: "PropertiesChanged",
                arguments: [.string(interface.rawValue), changed.dbusValue, invalidated.dbusValue]))
    }

    // MARK: org.freedesktop.DBus.ObjectManager

    /// `a{oa{sa{sv}}}` with the objects in path order, numbers compared as numbers (`char2` before `char10`).
    ///
    /// The order is part of the answer for bluetoothd: it gives a GATT application's attributes their handles in
    /// the order it reads them. In a Swift dictionary's order (seeded afresh in every process) each daemon start
    /// laid the transfer service out differently, so a peer's cached attribute table went stale whenever our
    /// daemon restarted (issue 14 §2).
    func managedObjects(below root: ObjectPath) async throws -> Value {
        let descendants = state.withLock { $0.objects.descendants(of: root) }
            .sorted { ObjectPath.inExportOrder($0.0, $1.0) }
        var entries: [DictionaryEntry] = []
        entries.reserveCapacity(descendants.count)
        for (path, object) in descendants {
            entries.append(DictionaryEntry(key: path.dbusValue, value: try await interfacesAndProperties(object).dbusValue))
        }
        return .dictionary(key: ObjectPath.dbusType, value: [String: [String: Variant]].dbusType, entries)
    }

    func interfacesAndProperties(_ object: ExportedObject) async throws -> [String: [String: Variant]] {
        var interfaces: [String: [String: Variant]] = [:]
        for interface in object.interfaces {
            interfaces[interface.name.rawValue] = try await interface.allProperties()
        }
        return interfaces
    }
}
