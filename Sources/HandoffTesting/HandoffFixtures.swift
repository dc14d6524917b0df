import HandoffKit

/// Ready-made trust state and devices for tests and simulations.
public enum HandoffFixtures {
    /// Runs the real pairing protocol between `initiator` and `responder` (both codes are compared and
    /// confirmed automatically) and returns both updated stores.
    public static func pair(_ initiator: TrustStore, _ responder: TrustStore) throws -> (TrustStore, TrustStore) {
        var i = try PairingInitiator(store: initiator)
        var r = try PairingResponder(store: responder)
        let m2 = try r.receiveHello(i.hello())
        let m3 = try i.receiveCommit(m2)
        let m4 = try r.receiveNonce(m3)
        let code = try i.receiveReveal(m4)
        guard code == r.confirmationCode else {
            throw HandoffError(.pairingFailed, "fixture pairing produced different codes")
        }
        let (m6, newResponder) = try r.receiveConfirm(i.confirm())
        return (try i.receiveFinish(m6), newResponder)
    }

    /// Fresh stores for `names`, every pair of them paired, so all share one group and know each other.
    public static func pairedStores(_ names: [String]) throws -> [TrustStore] {
        var stores = try names.map { try TrustStore.create(deviceName: $0) }
        for a in stores.indices {
            for b in stores.indices where b > a {
                (stores[b], stores[a]) = try pair(stores[b], stores[a])
            }
        }
        return stores
    }

    /// One simulated device per name on `ether`, paired with each other, each with a started engine on the
    /// ether's clock.
    public static func devices(_ names: [String], on ether: InMemoryEther, declaredTypes: [String],
                               configure: (inout HandoffConfiguration) -> Void = { _ in }) async throws
        -> [SimulatedDevice] {
        let stores = try pairedStores(names)
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(declaredTypes))
        configuration.stallInterval = .milliseconds(500)
        configuration.beaconRotationInterval = nil
        configuration.clock = ether.clock
        configure(&configuration)
        var devices: [SimulatedDevice] = []
        for (name, store) in zip(names, stores) {
            let radio = ether.makeRadio(address: "sim:\(name)")
            let delegate = RecordingContinuationDelegate()
            let engine = try HandoffEngine(configuration: configuration, trust: store, radio: radio, delegate: delegate)
            try await engine.start()
            devices.append(SimulatedDevice(name: name, radio: radio, engine: engine, delegate: delegate, store: store))
        }
        return devices
    }
}
