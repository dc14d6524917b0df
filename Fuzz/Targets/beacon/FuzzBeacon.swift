import Foundation
import FuzzSupport
@testable import HandoffKit

/// Beacons and pairing beacons: the manufacturer data of any advertisement in radio range.
/// A beacon opens only if it is authentic, so besides "never traps", nothing but a seed may open.
private let devices = [Fuzz.uuid(1), Fuzz.uuid(2)]
private let codec: BeaconCodec = {
    do { try Sodium.ensureInitialized() } catch { fatalError("libsodium: \(error)") }
    return BeaconCodec(group: TrustGroup(key: Data(repeating: 0x42, count: 32), epoch: 1), devices: devices)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeacon(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let beacon = codec.open(bytes), !devices.contains(beacon.device) {
        fatalError("a beacon opened for a device not trusted: \(beacon)")
    }
    _ = PairingBeacon.decode(bytes)
    _ = BeaconCodec.version(of: bytes)
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = codec
    Fuzz.writeSeedsIfAsked([
        codec.seal(device: devices[0], typeTag: [1, 2, 3, 4], sequence: 7),
        codec.seal(device: devices[1], typeTag: [9, 9, 9, 9], sequence: .max),
        PairingBeacon.encode(name: "Laptop ☕"),
    ])
    return 0
}
