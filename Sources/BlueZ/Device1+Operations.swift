import DBus
import FoundationEssentials

extension Device1 {
    /// The device's properties from the mirror.
    /// - Throws: ``BlueZError`` `.unavailable(.deviceGone)` when bluetoothd removed it.
    public func properties() async throws(BlueZError) -> Properties {
        guard let props = await bluez.deviceProperties(path) else {
            throw BlueZError(.unavailable(.deviceGone), "device \(path) is gone")
        }
        return props
    }

    /// Connects, retrying when the attempt could not go ahead for a moment: the kernel aborted it locally
    /// (`le-connection-abort-by-local`, which BlueZ reports while a previous attempt or an advertisement is still
    /// settling), bluetoothd is connecting already (`InProgress`), or its connect could not start
    /// (``BlueZError/isLocalConnectRefused``: the controller's one LE connection attempt is taken). The pause
    /// starts at `retryDelay` and doubles.
    ///
    /// A failed attempt after which bluetoothd says the device is connected is a success: the peer connected to us
    /// meanwhile, and bluetoothd cancelled ours (`br-connection-canceled` on bluetoothd 5.82, when two machines
    /// connect to each other at once). Both sides use that one connection.
    public func connect(attempts: Int = 4, retryDelay: Duration = .milliseconds(500)) async throws(BlueZError) {
        var attempt = 1
        var delay = retryDelay
        while true {
            do {
                _ = try await bluez.call(path, BlueZNames.device1, "Connect", timeout: .seconds(30))
                return
            } catch where error.code == .alreadyConnected {
                return
            } catch {
                if await connectedNow() == true {
                    await bluez.debug("Connect \(path): \(error.message); connected by the peer meanwhile")
                    return
                }
                guard (error.isConnectionAbortByLocal || error.isLocalConnectRefused || error.code == .inProgress)
                    && attempt < attempts else { throw error }
                await bluez.debug("Connect \(path): \(error.message); retry \(attempt) in \(delay)")
                attempt += 1
                try? await bluez.clock.sleep(for: delay)
                delay *= 2
            }
        }
    }

    /// Disconnects and waits until `Connected` is false.
    public func disconnect(timeout: Duration = .seconds(10)) async throws(BlueZError) {
        _ = try await bluez.call(path, BlueZNames.device1, "Disconnect", timeout: .seconds(30))
        let path = self.path
        try await bluez.wait(timeout: timeout, "\(path) Connected=false") { tree in
            PropertyBag(tree.properties(path, BlueZNames.device1) ?? [:]).bool("Connected") != true
        }
    }

    /// Waits until GATT discovery finished (`ServicesResolved`), so services can be found by UUID.
    public func waitUntilServicesResolved(timeout: Duration = .seconds(20)) async throws(BlueZError) {
        let path = self.path
        try await bluez.wait(timeout: timeout, "\(path) ServicesResolved") { tree in
            PropertyBag(tree.properties(path, BlueZNames.device1) ?? [:]).bool("ServicesResolved") == true
        }
    }

    /// Pairs (`Device1.Pair`); the registered ``Agent`` answers bluetoothd's questions.
    public func pair(timeout: Duration = .seconds(60)) async throws(BlueZError) {
        do {
            _ = try await bluez.call(path, BlueZNames.device1, "Pair", timeout: timeout)
        } catch where error.code == .alreadyExists {
            return
        }
    }

    /// Marks the device trusted (or not), so bluetoothd stops asking the agent for authorisation.
    public func setTrusted(_ trusted: Bool) async throws(BlueZError) {
        try await bluez.setProperty(path, BlueZNames.device1, "Trusted", .boolean(trusted))
    }

    /// The remote characteristic `uuid` (in the service `service` when given), after services resolved.
    /// - Throws: ``BlueZError`` `.doesNotExist` when the device has no such characteristic.
    public func characteristic(_ uuid: BluetoothUUID, service: BluetoothUUID? = nil) async throws(BlueZError)
        -> GattCharacteristic1
    {
        guard let path = await bluez.findCharacteristic(under: path, uuid: uuid, service: service) else {
            throw BlueZError(.doesNotExist, "\(self.path) has no characteristic \(uuid)"
                             + (service.map { " in service \($0)" } ?? ""))
        }
        return GattCharacteristic1(path: path, bluez: bluez)
    }

    /// The UUIDs of the device's resolved GATT services.
    public func services() async -> [BluetoothUUID] {
        await bluez.services(under: path)
    }
}

extension BlueZ {
    func services(under device: ObjectPath) -> [BluetoothUUID] {
        tree.paths(with: BlueZNames.gattService1).filter { device.isAncestor(of: $0) }.compactMap {
            PropertyBag(tree.properties($0, BlueZNames.gattService1) ?? [:]).string("UUID").flatMap(BluetoothUUID.init)
        }
    }

    func findCharacteristic(under device: ObjectPath, uuid: BluetoothUUID, service: BluetoothUUID?) -> ObjectPath? {
        for path in tree.paths(with: BlueZNames.gattCharacteristic1) where device.isAncestor(of: path) {
            let props = PropertyBag(tree.properties(path, BlueZNames.gattCharacteristic1) ?? [:])
            guard props.string("UUID").flatMap(BluetoothUUID.init) == uuid else { continue }
            if let service {
                guard let servicePath = props.path("Service"),
                      PropertyBag(tree.properties(servicePath, BlueZNames.gattService1) ?? [:]).string("UUID")
                        .flatMap(BluetoothUUID.init) == service else { continue }
            }
            return path
        }
        return nil
    }
}
