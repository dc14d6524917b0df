import Foundation

/// What every harness shares: the input as bytes, and the seeds it writes for the repository's corpus.
///
/// Every harness makes its long-lived state in `LLVMFuzzerInitialize`, before the first input, and keeps no `Data`
/// in it: LeakSanitizer reports the storage of a `Data` held by a global as leaked whenever an input triggers a
/// full leak check (most likely because `Data`'s representation, a Swift enum, keeps its storage reference with
/// tag bits where LeakSanitizer does not recognise a pointer). Long-lived keys are `[UInt8]`, trust stores are
/// kept as JSON and decoded per input.
public enum Fuzz {
    /// The fuzzer's input as an array.
    public static func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: data, count: size))
    }

    /// When `HANDOFF_FUZZ_WRITE_SEEDS` names a directory, writes `seeds` there (one file each, named by index) and
    /// exits: `Fuzz/run.sh seeds` makes the committed corpora this way, from the real encoders.
    public static func writeSeedsIfAsked(_ seeds: @autoclosure () throws -> [[UInt8]]) {
        guard let directory = ProcessInfo.processInfo.environment["HANDOFF_FUZZ_WRITE_SEEDS"] else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (index, seed) in try seeds().enumerated() {
                try Data(seed).write(to: URL(fileURLWithPath: directory).appendingPathComponent("seed-\(index)"))
            }
            _exit(0)   // no exit-time leak check: seeds are not a fuzzing run
        } catch {
            fatalError("cannot write the seeds to \(directory): \(error)")
        }
    }

    /// A deterministic UUID, so seeds made in one run open in the next.
    public static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
    }

    /// FNV-1a over the input: the harnesses that also take a slow path (files on disk) take it for the inputs
    /// whose hash is 0 modulo some n, a choice that is the same on every run and for every copy of an input.
    public static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Splits `bytes` into pieces, each prefixed by a one-byte length (a way for one input to carry a sequence).
    public static func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            let start = index + 1
            let end = min(start + length, bytes.count)
            pieces.append(Array(bytes[start..<end]))
            index = end
        }
        return pieces
    }

    /// The inverse of ``pieces(_:)``, for seeds; pieces over 255 bytes are cut.
    public static func joined(_ pieces: [[UInt8]]) -> [UInt8] {
        pieces.flatMap { [UInt8(min($0.count, 255))] + $0.prefix(255) }
    }
}
