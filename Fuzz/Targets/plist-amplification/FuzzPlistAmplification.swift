import Foundation
import FuzzSupport
@testable import HandoffKit

/// Property lists whose objects are shared by many references (issue 25 §2), built from the input: the input is
/// not the property list but a recipe for one, so a few hundred bytes describe megabytes of strings reached by
/// thousands of references, a "billion laughs" of arrays, or a dictionary whose values all name one object.
///
/// Checks, beyond "never traps, never leaks, never goes past the RSS and malloc limits `Fuzz/run.sh` sets for this
/// target": an accepted list decodes to no more than `Limits.maximumDecodedSize`, counted independently of the
/// reader by walking the decoded value; a refused one is refused by name, never by running out of memory. The
/// budget is 4 MiB here, not the standard 32: the bound works the same way at any size, and under ASan and coverage
/// a copy costs a hundred times what it does in a release build (the standard budget is the unit tests' and the
/// bench's, `PlistAmplificationTests`, bench/codec/amplification.sh).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlistAmplification(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Recipe.build(Fuzz.bytes(data, size))
    let limits = BinaryPropertyList.Limits(maximumDecodedSize: 4 << 20)
    switch Result(catching: { () throws(BinaryPropertyListError) in try BinaryPropertyList.decode(bytes, limits: limits) }) {
    case .success(let value):
        let size = decodedSize(value)
        guard size <= limits.maximumDecodedSize else {
            fatalError("accepted a list that decodes to \(size) bytes, above \(limits.maximumDecodedSize)")
        }
    case .failure:
        break
    }
    _ = try? BinaryPropertyList.decodeRootEntries(bytes, limits: limits)
    return 0
}

/// What the reader charges for `value`, recomputed from the value: a cost per value, UTF-8 bytes per string (at
/// most what the reader charged, which counts UTF-16 at three bytes a unit), bytes per data.
private func decodedSize(_ value: PlistValue) -> Int {
    let cost = BinaryPropertyList.Limits.decodedValueCost
    switch value {
    case .string(let text): return cost + text.utf8.count
    case .data(let data): return cost + data.count
    case .array(let items): return items.reduce(cost) { $0 + decodedSize($1) }
    case .dictionary(let entries):
        return entries.reduce(cost) { $0 + cost + $1.key.utf8.count + decodedSize($1.value) }
    case .url(let url): return 3 * cost + BinaryPropertyList.urlMarkerKey.utf8.count + url.absoluteString.utf8.count
    default: return cost
    }
}

/// Turns the fuzzer's bytes into a binary property list of shared objects. Object 0 is the root; each instruction
/// adds one object, and every reference points at an object by number (any number, so cycles and references past
/// the table happen too, and the reader must refuse them):
///
///     0 L      an ASCII string of length lengths[L]        3 N R…   an array of N references (R: one byte)
///     1 L      a UTF-16 string of lengths[L] units          4 N K R  a dictionary of N keys K, K+1, … all to R
///     2 L      data of lengths[L] bytes                     5 N R    an array of N×256 references to R
///     other    the integer 1
enum Recipe {
    /// From empty to 512 KiB: the sizes that matter for the budget, each reachable with one byte.
    static let lengths = [0, 1, 14, 15, 255, 4096, 65_536, 256 << 10, 512 << 10]

    static func build(_ input: [UInt8]) -> [UInt8] {
        var objects: [[UInt8]] = []
        var index = 0
        func next() -> Int {
            defer { index += 1 }
            return index < input.count ? Int(input[index]) : 0
        }
        var total = 0   // at most about 2 MiB of objects: a bigger list is only refused as too large
        while index < input.count, objects.count < 255, total < 2 << 20 {
            defer { total += objects.last?.count ?? 0 }
            switch next() {
            case 0: objects.append(sized(0x50, lengths[next() % lengths.count]) { [UInt8](repeating: 0x61, count: $0) })
            case 1: objects.append(sized(0x60, lengths[next() % lengths.count]) {
                [UInt8](repeating: 0, count: 2 * $0).enumerated().map { $0.offset % 2 == 0 ? 0x20 : 0xAC } })
            case 2: objects.append(sized(0x40, lengths[next() % lengths.count]) { [UInt8](repeating: 0xFF, count: $0) })
            case 3:
                let count = next()
                objects.append(sized(0xA0, count) { _ in (0..<count).map { _ in UInt8(next()) } })
            case 4:
                let (count, key, target) = (next(), next(), next())
                objects.append(sized(0xD0, count) { _ in
                    (0..<count).map { UInt8(truncatingIfNeeded: key + $0) } + [UInt8](repeating: UInt8(target), count: count)
                })
            case 5:
                let count = next() * 256
                let target = UInt8(next())
                objects.append(sized(0xA0, count) { [UInt8](repeating: target, count: $0) })
            default:
                objects.append([0x10, 1])
            }
        }
        if objects.isEmpty { objects.append([0xD0]) }
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 1]
        for field in [UInt64(objects.count), 0, UInt64(table)] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
        return bytes
    }

    /// A marker with `count` in its nibble or in the integer after it, then `body(count)`.
    private static func sized(_ marker: UInt8, _ count: Int, _ body: (Int) -> [UInt8]) -> [UInt8] {
        let head: [UInt8] = count < 15 ? [marker | UInt8(count)]
            : [marker | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(count).bigEndian, Array.init)
        return head + body(count)
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    // The shape ({k: [s × 262,144]}, s of 256 KiB), a billion laughs of arrays, a dictionary of shared
    // values, an honest list of a few strings.
    Fuzz.writeSeedsIfAsked([
        [4, 1, 1, 2, 0, 1, 5, 255, 3, 0, 7],
        [3, 2, 1, 1, 3, 2, 2, 2, 3, 2, 3, 3, 3, 2, 4, 4, 6],
        [4, 8, 1, 9, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 1, 6],
        [4, 2, 1, 3, 0, 0x61, 0, 0x62, 3, 3, 4, 5, 6, 0, 4, 1, 4, 2, 4],
    ])
    return 0
}
