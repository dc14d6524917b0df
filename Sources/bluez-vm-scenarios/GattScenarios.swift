import BlueZ
import Foundation

/// GATT over the real LE link between hci0 (our server) and hci1 (our client), at whatever ExchangeMTU
/// bluetoothd runs with (vm-test.sh's @mtu).
enum GattScenarios {
    static func transfer(expectMTU: Int) -> Scenario {
        Scenario(name: "gatt-transfer-mtu\(expectMTU)") { report in
            let rig = try await Rig.make()
            let inbox = Inbox()
            let longValue = Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let app = GattApplication(services: [
                .init(uuid: Rig.service, characteristics: [
                    .init(uuid: Rig.inbox, flags: [.write, .writeWithoutResponse],
                          onWrite: { value, request in try await inbox.append(value, request) }),
                    .init(uuid: Rig.outbox, flags: [.notify]),
                    .init(uuid: Rig.longRead, flags: [.read],
                          onRead: { request in try longValue.reading(from: request.offset) }),
                ])
            ])
            let server = try await rig.bluez.register(app, on: rig.hci0)
            let ad = try await rig.bluez.register(
                LEAdvertisement(serviceUUIDs: [Rig.service], manufacturerData: [Rig.company: Data([0x42])]),
                on: rig.hci0)
            defer { Task { await ad.cancel(); await server.cancel() } }

            let found = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company)) {
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

            let read = try await readChar.read()
            try check(read == longValue, "long read returned \(read.count) bytes, expected 500 identical bytes")

            let notifications = try await outboxChar.chunkedNotifications()
            let downlink = Mailbox()
            let consumer = Task {
                for try await value in notifications { await downlink.put(value) }
            }
            defer { consumer.cancel() }
            for size in [3 * 1024, 64 * 1024] {
                let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
                t0 = ContinuousClock.now
                let writes = try await inboxChar.writeChunked(payload, mtu: mtu)
                let received = try await within(.seconds(60), "the server to reassemble \(size) bytes") {
                    await inbox.next()
                }
                let upMs = Report.milliseconds(ContinuousClock.now - t0)
                try check(received == payload, "client->server \(size) bytes arrived altered (\(received.count) bytes)")
                report.measure("write_\(size)_bytes", "\(writes) writes, \(upMs) ms")

                t0 = ContinuousClock.now
                let serverMTU = server.mtu(of: Rig.outbox)
                let sent = try await server.notifyChunked(Rig.outbox, value: payload, mtu: mtu)
                try check(sent > 0, "the client was not subscribed to notifications")
                let back = try await within(.seconds(60), "\(size) bytes of notifications") { await downlink.next() }
                let downMs = Report.milliseconds(ContinuousClock.now - t0)
                try check(back == payload, "server->client \(size) bytes arrived altered (\(back.count) bytes)")
                report.measure("notify_\(size)_bytes", "\(sent) notifications (server saw mtu \(serverMTU)), \(downMs) ms")
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

    func append(_ chunk: Data, _ request: GattRequest) async throws {
        guard let value = try reassembler.append(chunk) else { return }
        await mailbox.put(value)
    }

    func next() async -> Data { await mailbox.next() }
}

/// Whole values, handed to one waiting reader in arrival order.
actor Mailbox {
    private var values: [Data] = []
    private var waiter: CheckedContinuation<Data, Never>?

    func put(_ value: Data) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: value)
        } else {
            values.append(value)
        }
    }

    func next() async -> Data {
        if !values.isEmpty { return values.removeFirst() }
        return await withCheckedContinuation { waiter = $0 }
    }
}
