import Foundation
import FuzzSupport
@testable import HandoffDaemon
@testable import HandoffKit

/// The trust and state JSON (`trust.json`, `state.json`): what the daemon reads at start. The first byte picks the
/// file; the rest is its content. Every input is decoded in memory by the functions `StateDirectory` reads the
/// files with (`decodeTrust`, `decodeState`); an accepted trust store must validate and encode to JSON that loads
/// equal. One input in 64 (by a hash of its bytes, the same choice on every run) is also written to the file and
/// read through `StateDirectory` exactly as the daemon starts (`loadTrust`, `loadState`): a refused file must be
/// left as it was (nothing is overwritten), and an accepted store must round-trip the same way. Writing, fsyncing
/// and renaming files for every input held the target at about 1,200 runs a second.
private let root: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-fuzz-state-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let which = bytes.first else { return 0 }
    let content = Data(bytes.dropFirst())
    let directory = StateDirectory(root)
    let trust = which.isMultiple(of: 2)
    if trust {
        if let store = try? directory.decodeTrust(content) { roundTrips(store) }
    } else {
        _ = try? directory.decodeState(content)
    }
    guard Fuzz.hash(bytes) % 64 == 0 else { return 0 }
    let file = root.appendingPathComponent(trust ? "trust.json" : "state.json")
    guard FileManager.default.createFile(atPath: file.path, contents: content) else { fatalError("cannot write \(file)") }
    defer { unlink(file.path) }
    if trust {
        if let store = try? directory.loadTrust(deviceName: "fuzz") {
            roundTrips(store)
        } else if (try? AtomicFile.read(file)) != content {
            fatalError("a refused trust.json was overwritten")
        }
    } else if (try? directory.loadState()) == nil, (try? AtomicFile.read(file)) != content {
        fatalError("a refused state.json was overwritten")
    }
    return 0
}

/// An accepted store validates and writes back to one that loads equal.
private func roundTrips(_ store: TrustStore) {
    guard (try? store.validate()) != nil, let again = try? TrustStore.load(from: try store.encoded()),
          again == store else { fatalError("an accepted trust store does not round-trip") }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = root
    Fuzz.writeSeedsIfAsked(try {
        var store = try TrustStore.create(deviceName: "fuzz")
        let peer = try TrustStore.create(deviceName: "peer")
        store.adopt(group: store.group, devices: [peer.identity.asTrustedDevice])
        let encoder = JSONEncoder()
        return [[0] + [UInt8](try store.encoded()),
                [1] + [UInt8](try encoder.encode(DaemonState(ownerUID: 1000, lastSequence: 42))),
                [1] + Array("{}".utf8)]
    }())
    return 0
}
