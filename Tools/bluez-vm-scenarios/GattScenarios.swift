import BlueZ
import DBus
import Foundation
import ScenarioSupport

/// GATT over the real LE link between hci0 (our server) and hci1 (our client), at whatever ExchangeMTU
/// bluetoothd runs with (vm-test.sh's @mtu).
enum GattScenarios {
    static func transfer(expectMTU: Int) -> Scenario {
        Scenario(name: "gatt-transfer-mtu\(expectMTU)") { report in
            let rig = try await Rig.make()
            // Forget hci0 on hci1: bluetoothd keeps a GATT cache per device across our runs, and an earlier
            // scenario's attribute layout made a read land on another characteristic (seen at MTU 48).
            var stale = Set(await rig.hci1.devices().map(\.path))
            if let hci0 = try await rig.hci0.properties().address,
               let path = ObjectPath(rawValue: "\(rig.hci1.path.rawValue)/\(hci0.pathElement)")
            {
                stale.insert(path)
            }
            for path in stale.sorted() {
                do {
                    try await rig.hci1.removeDevice(await rig.bluez.device(at: path))
                    report.note("removed cached \(path)")
                } catch {
                    report.note("remove \(path): \(error)")
                }
            }
            let inbox = Inbox()
            let outbox = Outbox()
            let longValue = Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let app = GattApplication(services: [
                .init(uuid: Rig.service, characteristics: [
                    .init(uuid: Rig.inbox, flags: [.write, .writeWithoutResponse],
                          onWrite: { value, request in try await inbox.append(value, request) }),
                    .init(uuid: Rig.outbox, flags: [.notify, .read],
                          onRead: { _ in await outbox.next() }),
                    .init(uuid: Rig.longRead, flags: [.read],
                          onRead: { request in try longValue.reading(from: request.offset) }),
                ])
            ])
            let server = try await rig.bluez.register(app, on: rig.hci0)
            let ad = try await rig.bluez.register(
                LEAdvertisement(serviceUUIDs: [Rig.service], manufacturerData: [Rig.company: Data([0x42])]),
                on: rig.hci0)
            defer { Task { await ad.cancel(); await server.cancel() } }

            var found = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company)) {
                $0.manufacturerData[Rig.company] == Data([0x42])
            }
            // bluetoothd (GATT Cache=always) keeps a per-address GATT cache on disk across its restarts and
            // reloads it when the device reappears; an earlier scenario's layout then misroutes reads (seen at
            // MTU 48 after the MTU 517 scenario). RemoveDevice deletes it; then discover afresh.
            try await rig.hci1.removeDevice(await rig.bluez.device(at: found.path))
            report.note("removed \(found.path) and its GATT cache; discovering again")
            found = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company)) {
                $0.manufacturerData[Rig.company] == Data([0x42])
            }
            let device = await rig.bluez.device(at: found.path)
            var t0 = ContinuousClock.now
            try await device.connect()
            try await device.waitUntilServicesResolved(timeout: .seconds(30))
            report.measure("connect_and_resolve_ms", "\(Report.milliseconds(ContinuousClock.now - t0))")
            try check(await device.services().contains(Rig.service), "our service is not among the resolved ones")

            let inboxChar = try await device.characteristic(Rig.inbox, service: Rig.service)
            let outboxChar = try await device.characteristic(Rig.outbox, service: Rig.service)
            let readChar = try await device.characteristic(Rig.longRead, service: Rig.service)
            let mtu = try await inboxChar.mtu()
            report.measure("negotiated_mtu", "\(mtu)")
            try check(mtu == expectMTU, "negotiated MTU \(mtu), expected \(expectMTU)")

            report.note("reading the 500-byte characteristic")
            let read = try await readChar.read()
            try check(read == longValue, "long read returned \(read.count) bytes, expected 500 identical bytes")

            // Notifications: a few small values, each must arrive, in order (StartNotify + PropertiesChanged).
            let notifications = try await outboxChar.notifications()
            let downlink = Mailbox()
            let consumer = Task { for await value in notifications { await downlink.put(value) } }
            defer { consumer.cancel() }
            for _ in 0..<100 where !server.isNotifying(Rig.outbox) { try await Task.sleep(for: .milliseconds(100)) }
            try check(server.isNotifying(Rig.outbox), "our server never got StartNotify")
            t0 = ContinuousClock.now
            for index in UInt8(1)...5 {
                try server.notify(Rig.outbox, value: Data([index, index, index]))
                let got = try await within(.seconds(10), "notification \(index)") { try await downlink.next() }
                try check(got == Data([index, index, index]), "notification \(index) carried \([UInt8](got))")
            }
            report.measure("notifications_5_roundtrip_ms", "\(Report.milliseconds(ContinuousClock.now - t0))")

            for size in [3 * 1024, 64 * 1024] {
                let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
                t0 = ContinuousClock.now
                report.note("writing \(size) bytes in chunks")
                // Write Requests: with Write Commands, 64 KB arrived complete but reordered in the VM tier.
                let type: GattCharacteristic1.WriteType = .request
                let writes = try await inboxChar.writeChunked(payload, type: type, mtu: mtu)
                let received = try await within(.seconds(120), "the server to reassemble \(size) bytes") {
                    try await inbox.next()
                }
                let upMs = Report.milliseconds(ContinuousClock.now - t0)
                try check(received == payload, "client->server \(size) bytes arrived altered (\(received.count) bytes)")
                report.measure("write_\(size)_bytes", "\(writes) \(type.rawValue) writes, \(upMs) ms")

                t0 = ContinuousClock.now
                report.note("reading \(size) bytes back in chunks")
                await outbox.load(payload, chunkSize: ChunkedValue.chunkSize(mtu: mtu))
                let back = try await within(.seconds(200), "\(size) bytes read back") { try await outboxChar.readChunked() }
                let downMs = Report.milliseconds(ContinuousClock.now - t0)
                try check(back == payload, "server->client \(size) bytes arrived altered (\(back.count) bytes)")
                report.measure("read_\(size)_bytes", "\(await outbox.served) reads, \(downMs) ms")
            }

            t0 = ContinuousClock.now
            try await device.disconnect()
            report.measure("disconnect_ms", "\(Report.milliseconds(ContinuousClock.now - t0))")
            try check(try await device.properties().connected == false, "still connected after Disconnect")
        }
    }
}

/// Reassembles what the client writes into the inbox characteristic.
actor Inbox {
    private var reassembler = ChunkedValue.Reassembler()
    private let mailbox = Mailbox()
    private(set) var chunks = 0

    func append(_ chunk: Data, _ request: GattRequest) async throws {
        chunks += 1
        guard let value = try reassembler.append(chunk) else { return }
        await mailbox.put(value)
    }

    func next() async throws -> Data { try await mailbox.next() }
}

/// The chunks the server hands out, one per ReadValue.
actor Outbox {
    private var chunks: [Data] = []
    private(set) var served = 0

    func load(_ value: Data, chunkSize: Int) {
        chunks = ChunkedValue.chunks(of: value, chunkSize: chunkSize)
        served = 0
    }

    func next() -> Data {
        guard !chunks.isEmpty else { return Data() }
        served += 1
        return chunks.removeFirst()
    }
}

/// Whole values, handed to one waiting reader in arrival order; a cancelled wait throws.
actor Mailbox {
    private var values: [Data] = []
    private var waiter: CheckedContinuation<Data, Error>?
    private(set) var count = 0

    func put(_ value: Data) {
        count += 1
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: value)
        } else {
            values.append(value)
        }
    }

    func next() async throws -> Data {
        if !values.isEmpty { return values.removeFirst() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter = $0 }
        } onCancel: {
            Task { await self.cancelWaiter() }
        }
    }

    private func cancelWaiter() {
        waiter?.resume(throwing: CancellationError())
        waiter = nil
    }
}
