import BlueZ
import DBus
import Foundation
import L2CAP
import ScenarioSupport

/// What the layer does on the real kernel (Debian 6.1 in the VM) between btvirt's hci1 and hci0.
enum L2CAPScenarios {
    // `refused` runs last: once, a connect right after it was refused on the PSM a new listener had just been given
    // (the same 0x80 the probe had held), and every later scenario on that PSM failed with it; not understood yet.
    static let all: [Scenario] = [
        listenPSM, connectMTU, integrity, slowReader, cancellation, peerClose, interop, timeout, linkLost, refused,
    ]

    /// psm 0 gives a dynamic LE PSM (0x80-0xFF), read back with getsockname; each listener its own; a taken PSM
    /// is refused.
    static let listenPSM = Scenario(name: "listen-psm", limit: 20) { rig, report in
        let first = try L2CAPListener.listen(on: rig.server)
        let second = try L2CAPListener.listen(on: rig.server)
        defer { first.close(); second.close() }
        report.measure("psm", "\(first.psm),\(second.psm)")
        try check((0x80...0xFF).contains(first.psm) && (0x80...0xFF).contains(second.psm),
                  "kernel chose PSMs \(first.psm), \(second.psm), outside 0x80-0xFF")
        try check(first.psm != second.psm, "two listeners share PSM \(first.psm)")
        try check(first.local == rig.server, "listener bound to \(first.local), not \(rig.server)")
        do {
            let third = try L2CAPListener.listen(on: rig.server, psm: first.psm)
            third.close()
            throw ScenarioFailure("a second listener on PSM \(first.psm) was allowed")
        } catch let error as L2CAPError {
            report.note("taken PSM: \(error)")
            try check(error.errno == EADDRINUSE, "taken PSM gave \(error)")
        }
    }

    /// hci1 connects to hci0 with the adapters' addresses and types; both ends name each other right and report
    /// the MTUs each asked for.
    static let connectMTU = Scenario(name: "connect-mtu", limit: 90) { rig, report in
        let started = ContinuousClock.now
        let (listener, server, client) = try await rig.pair(receiveMTU: 65535, clientMTU: 512)
        report.measure("connect_ms", "\(Report.milliseconds(ContinuousClock.now - started))")
        defer { listener.close(); server.close(); client.close() }
        report.measure("client_mtus", "send=\(client.sendMTU),receive=\(client.receiveMTU)")
        report.measure("server_mtus", "send=\(server.sendMTU),receive=\(server.receiveMTU)")
        try check(client.peer == rig.server && client.local == rig.client,
                  "client sees \(client.local) to \(client.peer)")
        try check(server.peer == rig.client && server.local == rig.server,
                  "server sees \(server.local) to \(server.peer)")
        try check(client.psm == listener.psm && server.psm == listener.psm,
                  "PSMs \(client.psm)/\(server.psm), listener \(listener.psm)")
        try check(client.receiveMTU == 512 && server.sendMTU == 512, "client asked for MTU 512: \(server.sendMTU)")
        try check(server.receiveMTU == 65535 && client.sendMTU == 65535, "server asked for 65535: \(client.sendMTU)")
        // A 65535-byte SDU (the MTU) crosses whole, or, where its K-frames cannot all fit the kernel's send buffer
        // at once (Docs/l2cap.md: Debian's 6.1 at btvirt's MPS of 188), is refused as `.messageTooLong` before the
        // kernel sees it; the channel stays usable either way. A 16 KiB SDU, twice what the transfer sends, crosses.
        do {
            try await client.send(pattern(1, size: 65535))
            try check(try await server.receive() == pattern(1, size: 65535), "65535-byte SDU differs")
            report.note("a 65535-byte SDU crossed")
        } catch let error as L2CAPError {
            try check(error.kind == .messageTooLong, "a 65535-byte SDU gave \(error)")
            report.note("a 65535-byte SDU refused: \(error.message)")
        }
        // Each step said as it starts, so a run that hangs (seen twice on 2026-12-03 under load, right after a
        // refused 65535-byte SDU) shows where.
        report.note("sending a 16384-byte SDU")
        try await client.send(pattern(4, size: 16384))
        report.note("16384-byte SDU handed to the kernel; receiving it")
        try check(try await server.receive() == pattern(4, size: 16384), "16384-byte SDU differs")
        report.note("16384-byte SDU received; a 512-byte one back")
        try await server.send(pattern(2, size: 512))
        try check(try await client.receive() == pattern(2, size: 512), "512-byte SDU differs")
        do {
            try await server.send(pattern(3, size: 513))
            throw ScenarioFailure("a 513-byte SDU over a 512 MTU was sent")
        } catch let error as L2CAPError {
            try check(error.kind == .messageTooLong, "oversize SDU gave \(error)")
        }
    }

    /// Nothing listens on the PSM: the peer's "SPSM not supported" is `.refused` (ECONNREFUSED).
    static let refused = Scenario(name: "refused", limit: 60) { rig, report in
        let probe = try L2CAPListener.listen(on: rig.server)
        let psm = probe.psm
        probe.close()
        do {
            let channel = try await L2CAPChannel.connect(from: rig.client, to: rig.server, psm: psm,
                                                         timeout: .seconds(45))
            channel.close()
            throw ScenarioFailure("connected to PSM \(psm), where nothing listens")
        } catch let error as L2CAPError {
            report.note("\(error)")
            try check(error.kind == .refused && error.errno == ECONNREFUSED, "expected .refused, got \(error)")
        }
    }

    /// SDUs cross whole both ways: sizes around the MPS, 16 KiB ones, and 1 MiB in 4 KiB SDUs with a checksum.
    static let integrity = Scenario(name: "sdu-integrity", limit: 120) { rig, report in
        let (listener, server, client) = try await rig.pair()
        defer { listener.close(); server.close(); client.close() }
        // Up to 16 KiB: larger SDUs may not fit the kernel's send buffer at once (connect-mtu, Docs/l2cap.md).
        let sizes = [1, 22, 23, 24, 100, 246, 247, 248, 251, 1000, 4096, 8192, 16384, 16384]
        for (index, size) in sizes.enumerated() {
            try await client.send(pattern(index, size: size))
            try check(try await server.receive() == pattern(index, size: size), "client→server SDU of \(size) differs")
            try await server.send(pattern(100 + index, size: size))
            try check(try await client.receive() == pattern(100 + index, size: size), "server→client \(size) differs")
        }
        for (direction, sender, receiver) in [("up", client, server), ("down", server, client)] {
            let count = 256
            let started = ContinuousClock.now
            async let sent: UInt64 = {
                var sum = Checksum()
                for index in 0..<count {
                    let sdu = pattern(1000 + index, size: 4096)
                    sum.add(sdu)
                    try await sender.send(sdu)
                }
                return sum.value
            }()
            var sum = Checksum()
            var bytes = 0
            for _ in 0..<count {
                guard let sdu = try await receiver.receive() else { throw ScenarioFailure("stream ended early") }
                sum.add(sdu)
                bytes += sdu.count
            }
            let elapsed = ContinuousClock.now - started
            let sentSum = try await sent
            try check(sentSum == sum.value && bytes == count * 4096,
                      "1 MiB \(direction): \(bytes) bytes, checksum \(sum.value) vs \(sentSum)")
            report.measure("mib_\(direction)_ms", "\(Report.milliseconds(elapsed))")
        }
    }

    /// A reader that does not call receive() for 3 s while 1 MiB arrives in 1 KiB SDUs: nothing is lost, because
    /// the channel drains the socket into its own queue (kernels before 6.10 give credits with a full buffer).
    static let slowReader = Scenario(name: "slow-reader", limit: 120) { rig, report in
        let (listener, server, client) = try await rig.pair()
        defer { listener.close(); server.close(); client.close() }
        let count = 1024
        var sent = Checksum()
        let started = ContinuousClock.now
        for index in 0..<count {
            let sdu = pattern(index, size: 1024)
            sent.add(sdu)
            try await client.send(sdu)
        }
        report.measure("all_sent_ms", "\(Report.milliseconds(ContinuousClock.now - started))")
        try await Task.sleep(for: .seconds(3))
        var received = Checksum()
        for index in 0..<count {
            guard let sdu = try await server.receive() else { throw ScenarioFailure("ended after \(index) SDUs") }
            try check(sdu == pattern(index, size: 1024), "SDU \(index) lost or reordered")
            received.add(sdu)
        }
        try check(sent.value == received.value, "checksums differ")
    }

    /// A pending receive and a pending accept, cancelled: `.cancelled`, and the channel goes on; a listener
    /// closed under a pending accept: `.closed`.
    static let cancellation = Scenario(name: "cancel", limit: 90) { rig, report in
        let (listener, server, client) = try await rig.pair()
        defer { listener.close(); server.close(); client.close() }
        let receiving = Task { try await server.receive() }
        try await Task.sleep(for: .milliseconds(300))
        receiving.cancel()
        switch await receiving.result {
        case .failure(let error as L2CAPError) where error.kind == .cancelled: break
        case let other: throw ScenarioFailure("cancelled receive ended with \(other)")
        }
        try await client.send([1, 2, 3])
        try check(try await server.receive() == [1, 2, 3], "the channel did not go on after the cancelled receive")
        let accepting = Task { try await listener.accept() }
        try await Task.sleep(for: .milliseconds(300))
        accepting.cancel()
        switch await accepting.result {
        case .failure(let error as L2CAPError) where error.kind == .cancelled: break
        case let other: throw ScenarioFailure("cancelled accept ended with \(other)")
        }
        let closing = Task { try await listener.accept() }
        try await Task.sleep(for: .milliseconds(300))
        listener.close()
        switch await closing.result {
        case .failure(let error as L2CAPError) where error.kind == .closed: break
        case let other: throw ScenarioFailure("accept pending at close ended with \(other)")
        }
        report.note("cancelled receive, cancelled accept, closed accept: as documented")
    }

    /// The peer closes mid-stream: everything it sent arrives, then nil (its Disconnection Request); our sends,
    /// running while it closed, fail with `.reset`.
    static let peerClose = Scenario(name: "peer-close", limit: 90) { rig, report in
        let (listener, server, client) = try await rig.pair()
        defer { listener.close(); server.close(); client.close() }
        for index in 0..<50 { try await server.send(pattern(index, size: 2000)) }
        for index in 0..<50 {
            guard let sdu = try await client.receive() else { throw ScenarioFailure("nil after \(index) SDUs") }
            try check(sdu == pattern(index, size: 2000), "SDU \(index) differs")
        }
        let sending = Task {
            for index in 0..<100_000 { try await client.send(pattern(index, size: 500)) }
        }
        try await Task.sleep(for: .milliseconds(300))
        server.close()
        let end = try await client.receive()
        try check(end == nil, "expected nil after the peer's close, got \(end?.count ?? -1) bytes")
        switch await sending.result {
        case .failure(let error as L2CAPError) where error.kind == .reset:
            report.note("send while the peer closed: \(error)")
        case let other: throw ScenarioFailure("sending while the peer closed ended with \(other)")
        }
    }

    /// BlueZ's own l2test against our layer, both ways: l2test's client sends 64 SDUs of 4 KiB to our listener
    /// (seq, length, 0x7f filler: checked), and our client sends l2test's format to `l2test -r`, which reports
    /// no mismatch. (`-I 65535`: l2test's default receive MTU is 672; `-b` is its SDU size.)
    static let interop = Scenario(name: "l2test-interop", limit: 120) { rig, report in
        let listener = try L2CAPListener.listen(on: rig.server)
        defer { listener.close() }
        let sender = try Child.spawn(["/usr/bin/l2test", "-s", "-V", "le_public", "-P", "\(listener.psm)", "-i",
                                      "hci1", "-b", "4096", "-N", "64", "-g", "3000", rig.server.address],
                                     output: "/tmp/l2test-send.log")
        let channel = try await listener.accept()
        defer { channel.close() }
        report.measure("from_l2test_mtus", "send=\(channel.sendMTU),receive=\(channel.receiveMTU)")
        for index in 0..<64 {
            guard let sdu = try await channel.receive() else { throw ScenarioFailure("l2test stopped at \(index)") }
            let seq = UInt32(sdu[0]) | UInt32(sdu[1]) << 8 | UInt32(sdu[2]) << 16 | UInt32(sdu[3]) << 24
            let length = Int(sdu[4]) | Int(sdu[5]) << 8
            try check(sdu.count == 4096 && seq == index && length == 4096 && sdu[6...].allSatisfy { $0 == 0x7F },
                      "l2test SDU \(index): \(sdu.count) bytes, seq \(seq), length field \(length)")
        }
        let end = try await channel.receive()
        try check(end == nil, "expected nil when l2test disconnects")
        _ = try await sender.wait(limit: .seconds(20))
        report.note("l2test -s: " + sender.text.split(separator: "\n").suffix(3).joined(separator: " | "))
        // Done with our listener (l2test -r, given 0, would take PSM 0x80, its LE default, not the kernel's choice).
        channel.close()
        listener.close()

        let receiver = try Child.spawn(["/usr/bin/l2test", "-r", "-V", "le_public", "-P", "245", "-i", "hci0", "-I",
                                        "65535", "-b", "4096"], output: "/tmp/l2test-recv.log")
        defer { receiver.stop() }
        var psm: UInt16?
        for _ in 0..<100 where psm == nil {
            try await Task.sleep(for: .milliseconds(100))
            let words = receiver.text.split(whereSeparator: \.isWhitespace)
            if let at = words.firstIndex(of: "psm"), at + 1 < words.count { psm = UInt16(words[at + 1]) }
        }
        guard let psm else { throw ScenarioFailure("l2test -r printed no PSM: \(receiver.text)") }
        let client = try await L2CAPChannel.connect(from: rig.client, to: rig.server, psm: psm, timeout: .seconds(45))
        defer { client.close() }
        report.measure("to_l2test_mtus", "send=\(client.sendMTU),receive=\(client.receiveMTU)")
        for index in 0..<64 {
            var sdu = [UInt8](repeating: 0x7F, count: 4096)
            for byte in 0..<4 { sdu[byte] = UInt8(truncatingIfNeeded: index >> (8 * byte)) }
            sdu[4] = 0x00
            sdu[5] = 0x10
            try await client.send(sdu)
        }
        report.note("64 SDUs handed to the kernel")
        var reported = 0
        for _ in 0..<300 where reported < 64 {
            try await Task.sleep(for: .milliseconds(100))
            reported = receiver.text.split(separator: "\n").filter { $0.contains("bytes in") }.count
        }
        let text = receiver.text
        report.note("l2test -r: \(reported) SDUs reported; last lines: "
            + text.split(separator: "\n").suffix(3).joined(separator: " | "))
        try check(!text.contains("missmatch") && !text.contains("mismatch"), "l2test -r saw a mismatch: \(text)")
        try check(reported >= 64, "l2test -r reported \(reported) of 64 SDUs: \(text)")
    }

    /// A connect to an address nobody has: our deadline gives `.timedOut`; a cancelled connect `.cancelled`.
    static let timeout = Scenario(name: "connect-timeout", limit: 60) { rig, report in
        let nobody = L2CAPAddress("00:AA:01:99:99:99", kind: .lePublic)!
        let started = ContinuousClock.now
        do {
            let channel = try await L2CAPChannel.connect(from: rig.client, to: nobody, psm: 0x80, timeout: .seconds(3))
            channel.close()
            throw ScenarioFailure("connected to an address nobody has")
        } catch let error as L2CAPError {
            report.note("\(error) after \(Report.milliseconds(ContinuousClock.now - started)) ms")
            try check(error.kind == .timedOut, "expected .timedOut, got \(error)")
        }
        let connecting = Task {
            try await L2CAPChannel.connect(from: rig.client, to: nobody, psm: 0x80, timeout: .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(500))
        connecting.cancel()
        switch await connecting.result {
        case .failure(let error as L2CAPError) where error.kind == .cancelled: break
        case let other: throw ScenarioFailure("cancelled connect ended with \(other)")
        }
    }

    /// The LE link dropped under open channels (bluetoothd's Device1.Disconnect on hci1): both ends' receive
    /// throws `.reset` (not the nil of an orderly close), after every SDU already received.
    static let linkLost = Scenario(name: "link-lost", limit: 90) { rig, report in
        let (listener, server, client) = try await rig.pair()
        defer { listener.close(); server.close(); client.close() }
        try await client.send([9, 9, 9])
        try check(try await server.receive() == [9, 9, 9], "the SDU before the drop differs")
        try await server.send([8, 8])
        try await Task.sleep(for: .milliseconds(500))
        let path = ObjectPath(stringLiteral: "\(rig.hci1.path.rawValue)/dev_\(rig.server.address.replacingOccurrences(of: ":", with: "_"))")
        try await rig.bluez.device(at: path).disconnect()
        try check(try await client.receive() == [8, 8], "the SDU received before the drop was lost")
        for (end, channel) in [("client", client), ("server", server)] {
            do {
                let sdu = try await channel.receive()
                throw ScenarioFailure("\(end): receive after the link dropped returned \(sdu.map { "\($0.count) bytes" } ?? "nil")")
            } catch let error as L2CAPError {
                report.note("\(end): \(error)")
                try check(error.kind == .reset, "\(end): expected .reset, got \(error)")
            }
        }
    }
}
