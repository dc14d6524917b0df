import HandoffKit

/// One simulated device's radio on an `InMemoryEther`.
public struct InMemoryRadio: Radio {
    /// The medium.
    public let ether: InMemoryEther
    /// This device's address.
    public let address: PeerAddress

    /// Advertises `beacon` to every other device's scanner.
    public func advertise(_ beacon: [UInt8]) async throws {
        try await ether.advertise(beacon, from: address)
    }

    /// Stops advertising.
    public func stopAdvertising() async {
        await ether.stopAdvertising(from: address)
    }

    /// Beacons from other devices, starting with those already advertised.
    public func scan() async throws -> AsyncStream<ScanEvent> {
        await ether.scan(for: address)
    }

    /// Nothing: the ether reports every advertisement, a repeated one included (`InMemoryEther.inject`).
    public func reportNextAdvertisement(of peer: PeerAddress) async {}

    /// Opens this device's transfer service.
    public func openTransferService() async throws -> any TransferService {
        InMemoryTransferService(ether: ether, address: address, writes: try await ether.openService(at: address))
    }

    /// Connects to `peer`'s transfer service.
    public func connect(to peer: PeerAddress) async throws -> any RadioLink {
        while await ether.conditions.connectHangs {
            try? await ether.clock.sleep(for: .milliseconds(20))   // `try?`: a hung call does not notice cancellation
        }
        if let delay = await ether.conditions.delay { try await ether.clock.sleep(for: delay) }
        return try await ether.connect(from: address, to: peer)
    }
}

/// The in-memory transfer service of one device.
struct InMemoryTransferService: TransferService {
    let ether: InMemoryEther
    let address: PeerAddress
    let writes: AsyncStream<IncomingWrite>

    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        if let delay = await ether.conditions.delay { try await ether.clock.sleep(for: delay) }
        try await ether.notify(value, from: address, to: central)
    }

    func drop(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async {
        await ether.dropCentral(central, at: address, keepingAwayFor: cooldown)
    }

    func close() async {
        await ether.closeService(at: address)
    }
}
