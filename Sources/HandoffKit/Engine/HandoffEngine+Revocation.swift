import FoundationEssentials
import HandoffShared

extension HandoffEngine {
    /// Revokes `deviceID`: removes it, rotates the group key and adopts the result at once. The new key is then
    /// delivered to every remaining device the next time this engine sees one of its beacons (still sealed under
    /// the old key), over the transfer service, sealed to that device's long-term key. Save the returned store.
    public func revoke(_ deviceID: UUID) async throws(HandoffError) -> TrustStore {
        var store = trust
        let previous = trust.group
        let messages = try store.revoke(deviceID)
        rekeys.revoked(deviceID, previous: previous, messages: messages)
        try await updateTrust(store)
        return store
    }

    /// Devices that have not yet received the group key of the latest revocation.
    public var devicesAwaitingRekey: [UUID] { rekeys.awaiting }

    /// Every change of this engine's trust state (pairing, revocation, a rekey received from a peer), for saving.
    public func trustUpdates() -> AsyncStream<TrustStore> {
        trustBroadcast.subscribe()
    }

    /// A beacon under the previous group key from a device still awaiting its rekey: deliver it.
    func handleOldKeyBeacon(_ event: ScanEvent) {
        guard let (device, message) = rekeys.heardUnderPreviousKey(event.beacon) else { return }
        Task { [weak self] in
            guard let self else { return }
            let delivered = await self.deliver(message, to: event.peer)
            await self.finishRekey(device, delivered: delivered)
        }
    }

    private func finishRekey(_ device: UUID, delivered: Bool) {
        rekeys.finished(device, delivered: delivered)
    }

    private nonisolated func deliver(_ message: RekeyMessage, to peer: PeerAddress) async -> Bool {
        guard let json = try? JSONEncoder().encode(message), let link = try? await radio.connect(to: peer) else {
            return false
        }
        let inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
        defer { inbox.close() }
        let session = Nonce.random()
        do {
            for frame in try PairingFragments.split([UInt8](json), session: session,
                                                    maximumValue: WireProtocol.valueLength(forMTU: link.mtu),
                                                    fromServer: false, asRekey: true) {
                try await link.write(frame.encoded())
            }
        } catch {
            await link.disconnect()
            return false
        }
        var ticks = 0
        waiting: for await event in inbox.events {
            switch event {
            case .frame(let bytes):
                switch try? TransferFrame.decode(bytes) {
                case .rekeyApplied(session)?:
                    await link.disconnect()
                    return true
                default:
                    continue
                }
            case .tick:
                ticks += 1
                if ticks > configuration.maximumStalls { break waiting }
            case .closed:
                break waiting
            }
        }
        await link.disconnect()
        return false
    }

    /// Handles a rekey fragment written by a peer: once complete, applies it and acknowledges.
    func handleRekeyFragment(session: Nonce, index: UInt8, count: UInt8, chunk: [UInt8],
                             from write: IncomingWrite) async {
        let message: [UInt8]
        switch rekeyAssemblies.add(from: write.central, session: session, index: index, count: count, chunk: chunk,
                                   at: clock.now) {
        case .incomplete, .malformed: return
        case .complete(let whole): message = whole
        }
        do throws(HandoffError) {
            guard let rekey = try? JSONDecoder().decode(RekeyMessage.self, from: Data(message)) else {
                throw HandoffError(.corruptPayload, "the rekey message does not parse")
            }
            var store = trust
            try store.applyRekey(rekey)
            try await updateTrust(store)
            try? await service?.notify(TransferFrame.rekeyApplied(session: session).encoded(), to: write.central)
        } catch {
            // Not acted on by the deliverer (it waits for REKEY-APPLIED or its own timeout: `Gate`); for the record.
            let frame = TransferFrame.error(context: ErrorContext(session), code: error.code.rawValue,
                                            tag: Gate.echoTag(of: write.value), message: "rekey refused")
            try? await service?.notify(frame.encoded(), to: write.central)
        }
    }
}
