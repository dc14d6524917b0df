import BlueZ
import DBus
import FoundationEssentials
import HandoffShared
import HandoffKit

extension BlueZRadioLink {
    /// Connects unless bluetoothd says the device is connected, then waits until bluetoothd reports
    /// `ServicesResolved` and the mirror holds both transfer characteristics.
    ///
    /// bluetoothd is asked directly first: after a drop, the mirror can still show the old `Connected` and
    /// `ServicesResolved`, and trusting it would make a link that closes at once. Returns how long the
    /// connection (`connect`) and the service discovery (`services`) took. `nudge` runs every 3 s while
    /// bluetoothd does not know the device yet (the radio scans afresh then); `connecting` while the connection
    /// is made, as ``BlueZRadioOptions/connectNudge`` says.
    @discardableResult
    static func establish(_ peer: PeerAddress, device: Device1, bluez: BlueZ, options: BlueZRadioOptions,
                          nudge: @Sendable () async -> Void, connecting: @escaping @Sendable () async -> Void,
                          log: @Sendable (String) -> Void) async throws
        -> [LinkSetupPhase] {
        let clock = options.clock
        let started = clock.now
        guard let connected = await knownConnectedState(of: device, bluez: bluez, waiting: options.unknownPeerWait,
                                                         clock: clock, nudge: nudge)
        else {
            throw RadioError(.unreachable, "\(peer) is not known to BlueZ (only scanned devices can be connected; "
                                 + "none of its advertisements arrived within \(options.unknownPeerWait))")
        }
        if !connected {
            do {
                try await nudging(after: options.connectNudge, clock: clock, connecting) { () async throws(BlueZError) in
                    try await device.connect(attempts: options.connectAttempts)
                }
            } catch {
                throw RadioError(error, while: "cannot connect to \(peer)", fallback: .unreachable)
            }
            log("connected to \(peer)")
        } else {
            log("\(peer) is already connected; reusing the connection")
        }
        let linked = clock.now
        let deadline = linked + options.servicesResolvedTimeout
        while await device.flagNow("ServicesResolved") != true {
            guard clock.now < deadline else {
                try? await device.disconnect(timeout: .seconds(5))
                throw RadioError(.unreachable, "services of \(peer) did not resolve within "
                                     + "\(options.servicesResolvedTimeout)")
            }
            if await device.connectedNow() != true {
                throw RadioError(.unreachable, "\(peer) disconnected while its services were being resolved")
            }
            try await clock.sleep(for: .milliseconds(100))
        }
        let path = device.path
        let wanted = Set([BlueZTransferService.requestUUID.string, BlueZTransferService.dataUUID.string])
        do {
            try await bluez.wait(timeout: .seconds(10), "the transfer characteristics of \(path)") { tree in
                let found = tree.paths(with: BlueZNames.gattCharacteristic1).filter { path.isAncestor(of: $0) }
                    .compactMap { try? tree.properties($0, BlueZNames.gattCharacteristic1)?["UUID"]?.get(String.self) }
                return wanted.isSubset(of: Set(found.map { $0.lowercased() }))
            }
        } catch {
            throw RadioError(.unreachable, "\(peer) serves no handoff transfer service ("
                                 + "\(await describe(path, bluez: bluez)))", cause: error)
        }
        return [LinkSetupPhase("connect", started.duration(to: linked)),
                LinkSetupPhase("services", linked.duration(to: clock.now))]
    }

    /// Runs `operation`, which makes an LE connection, calling `nudge` `first` into it and every `interval`
    /// after (on `clock`) until it returns (a nudge under way is awaited); `first` nil runs it alone. See
    /// ``BlueZRadioOptions/connectNudge``.
    static func nudging<T, E: Error>(isolation: isolated (any Actor)? = #isolation, after first: Duration?,
                                     every interval: Duration = .seconds(1), clock: any HandoffClock,
                                     _ nudge: @escaping @Sendable () async -> Void,
                                     _ operation: () async throws(E) -> T) async throws(E) -> T {
        guard let first else { return try await operation() }
        let nudger = Task {
            var delay = first
            while true {
                do { try await clock.sleep(for: delay) } catch { return }
                await nudge()
                delay = interval
            }
        }
        let result: Result<T, E>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        nudger.cancel()
        await nudger.value      // a nudge under way ends before the caller goes on: none comes after
        return try result.get()
    }

    /// `Connected` of `device` as bluetoothd says now, waiting up to `limit` for bluetoothd to know the device at
    /// all: it forgets unconnected devices when the adapter is switched off or bluetoothd restarts, and creates
    /// them again from the next advertisement it receives. nil when it still does not know it.
    /// `nudge` runs every 3 s of `clock` while waiting.
    static func knownConnectedState(of device: Device1, bluez: BlueZ, waiting limit: Duration, clock: any HandoffClock,
                                    nudge: @Sendable () async -> Void) async -> Bool? {
        let deadline = clock.now + limit
        var nextNudge = clock.now + .seconds(3)
        while true {
            if let connected = await device.connectedNow() { return connected }
            guard clock.now < deadline, !Task.isCancelled else { return nil }
            if clock.now >= nextNudge {
                await nudge()
                nextNudge = clock.now + .seconds(3)
            }
            try? await clock.sleep(for: .milliseconds(250))
        }
    }

    /// What the mirror and bluetoothd say about a device, for error messages.
    static func describe(_ path: ObjectPath, bluez: BlueZ) async -> String {
        let tree = await bluez.tree
        let mirrored = (try? tree.properties(path, BlueZNames.device1)?["Connected"]?.get(Bool.self)).map { "\($0)" }
        let characteristics = tree.paths(with: BlueZNames.gattCharacteristic1).filter { path.isAncestor(of: $0) }
            .map { "\($0.elements.suffix(2).joined(separator: "/"))=" + ((try? tree.properties($0,
                BlueZNames.gattCharacteristic1)?["UUID"]?.get(String.self)) ?? "?") }
        let services = tree.paths(with: BlueZNames.gattService1).filter { path.isAncestor(of: $0) }
            .map { (try? tree.properties($0, BlueZNames.gattService1)?["UUID"]?.get(String.self)) ?? "?" }
        let connected = await bluez.device(at: path).connectedNow().map { "\($0)" } ?? "unknown"
        return "mirror: Connected=\(mirrored ?? "absent"), services \(services), characteristics \(characteristics); "
            + "bluetoothd: Connected=\(connected)"
    }
}
