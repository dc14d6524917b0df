import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import HandoffShared

extension BlueZRadio {
    /// Advertises `beacon` as the ManufacturerData of one `LEAdvertisement1` (Type `peripheral`), registering it
    /// on first use and updating it afterwards (`options.advertisementUpdate`). Calls run one after another.
    /// - Throws: `RadioError` `.failed` for a beacon of the wrong length or when bluetoothd refuses (no instance
    ///   left, data too long, adapter gone).
    public func advertise(_ beacon: [UInt8]) async throws {
        guard beacon.count == WireProtocol.beaconLength else {
            throw RadioError(.failed, "a beacon must be \(WireProtocol.beaconLength) bytes, got \(beacon.count)")
        }
        let wanted = LEAdvertisement(
            type: .peripheral, manufacturerData: [WireProtocol.manufacturerID: Data(beacon)],
            discoverable: options.discoverable ? true : nil)
        // Watched even when bluetoothd refuses: a beacon refused while the adapter is off goes on the air when it
        // is switched on (``readvertise()``).
        defer {
            watchAdapter()
            watchConnections()
        }
        try await serially { radio in try await radio.apply(wanted) }
    }

    /// Stops advertising: unregisters and unexports the advertisement. Idempotent.
    public func stopAdvertising() async {
        try? await serially { radio in await radio.withdraw() }
        connectionWatch?.cancel()
        connectionWatch = nil
        if scanners.isEmpty {
            adapterWatch?.cancel()
            adapterWatch = nil
        }
    }

    /// Registers the current advertisement afresh after the adapter was switched on again, so it is on the air at
    /// once rather than whenever the controller re-enables what the kernel kept (in the VM that took 10-15 s).
    /// bluetoothd can refuse for a moment right after power-on, so a refusal is retried, five times a second apart.
    func readvertise() async {
        try? await serially { radio in
            guard let wanted = await radio.advertised else { return }
            await radio.withdraw()
            for attempt in 1...5 {
                do {
                    try await radio.apply(wanted)
                    radio.debug("advertisement registered again after the adapter was switched on")
                    return
                } catch {
                    radio.debug("cannot advertise again after the adapter was switched on (try \(attempt)): \(ErrorChain.text(error))")
                    try? await radio.options.clock.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// Puts `wanted` on the air; it counts as what should be advertised even when bluetoothd refuses it.
    func apply(_ wanted: LEAdvertisement) async throws {
        advertised = wanted
        if let advertisement {
            do {
                try await advertisement.update(wanted, method: options.advertisementUpdate)
                return
            } catch {
                debug("updating the advertisement failed (\(ErrorChain.text(error))); registering it afresh")
                await advertisement.cancel()
                self.advertisement = nil
            }
        }
        do {
            advertisement = try await bluez.register(wanted, on: adapter)
        } catch {
            throw RadioError(error, while: "cannot advertise on \(adapterName)")
        }
    }

    func withdraw() async {
        await advertisement?.cancel()
        advertisement = nil
        advertised = nil
    }

    /// Watches the adapter's connections while advertising. A central that connects to us ends the connectable
    /// advertising set it connected through, and Linux 6.1 enables that set again only when the connection ends: a
    /// machine that a peer is connected to was neither heard nor connectable until then (70 s in the nine-VM run,
    /// where seven of eight receivers' connects timed out meanwhile). Each connection this radio did not make (no
    /// lease on the device: a peer connected to us) hands the advertisement to bluetoothd again, once per burst
    /// (``AdvertisementRegistration/refresh()``); later kernels (6.12) enable the set again themselves, and
    /// there it changes nothing.
    func watchConnections() {
        guard connectionWatch == nil else { return }
        connectionWatch = Task { [weak self, adapter, leases] in
            for await device in await adapter.connections() {
                guard let self else { return }
                guard !leases.isHeld(device) else { continue }
                await self.rearmSoon(after: device)
            }
        }
    }

    /// Refreshes the advertisement `rearmDelay` from now, unless a refresh is already due: the controller reports
    /// the connection before bluetoothd says `Connected`, so the set has ended by then, and a burst of connections
    /// needs one refresh.
    private func rearmSoon(after device: ObjectPath) {
        guard rearm == nil, advertisement != nil else { return }
        rearm = Task { [weak self, clock = options.clock] in
            try? await clock.sleep(for: Self.rearmDelay)
            await self?.rearmAdvertisement(after: device)
        }
    }

    /// How long after a peer's connection the advertisement is handed over again.
    static let rearmDelay: Duration = .milliseconds(300)

    private func rearmAdvertisement(after device: ObjectPath) async {
        rearm = nil
        try? await serially { radio in
            guard let advertisement = await radio.advertisement else { return }
            do throws(BlueZError) {
                try advertisement.refresh()
                radio.debug("advertisement handed to bluetoothd again: \(device) connected to us")
            } catch {
                radio.debug("cannot hand the advertisement to bluetoothd again: \(ErrorChain.text(error))")
            }
        }
    }

    /// Runs advertising operations one at a time, in call order, although the actor is reentrant.
    private func serially(_ body: @escaping @Sendable (BlueZRadio) async throws -> Void) async throws {
        try await advertising.enqueue { [self] in try await body(self) }.value.get()
    }
}
