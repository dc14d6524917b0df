import Foundation
import HandoffKit

/// The payload codec's cost (issue 12 §5): `ActivitySnapshot.encodedPayload()` then `init(payload:)` of a note,
/// per round trip, as the source encodes and the receiver decodes it. bench/codec/run.sh runs this and the same
/// round trip through Python's plistlib in one run and prints the ratio.
///
/// Usage: codec-bench [--seconds S] [--reps N] [--only PAYLOAD] [--iterations N]; prints one JSON object per payload
/// on stdout. `--iterations N` runs exactly N round trips of each payload and times nothing: for `perf stat`, whose
/// instruction counts do not depend on the machine's load as CPU times do.
///
/// `codec-bench --userinfo FILE` instead reads FILE as a caller's userInfo and does what handoffd does with one
/// (issue 25 §2): decodes it with the strict reader (`decodeDictionary`, as `HandoffDaemon.decodeUserInfo`), then
/// encodes the payload the engine would size. It prints the outcome, the best of five wall times for the decode,
/// and the process's peak RSS (VmHWM) before and after: bench/codec/amplification.sh runs it once per input, each
/// in a fresh process, to size the unit's MemoryMax.
@main
struct CodecBench {
    static func main() throws {
        var seconds = 1.0
        var reps = 5
        var only: String?
        var iterations: Int?
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
            case "--reps": reps = Int(arguments.popFirst() ?? "") ?? reps
            case "--only": only = arguments.popFirst()
            case "--iterations": iterations = Int(arguments.popFirst() ?? "")
            case "--userinfo":
                try userInfo(at: arguments.popFirst() ?? "")
                return
            default:
                FileHandle.standardError.write(Data("codec-bench: unknown argument \(argument)\n".utf8))
                exit(64)
            }
        }
        for (name, snapshot) in payloads() where only == nil || only == name {
            let size = try snapshot.encodedPayload().count
            if let iterations {
                for _ in 0..<iterations { try roundTrip(snapshot) }
                print("{\"payload\":\"\(name)\",\"bytes\":\(size),\"iterations\":\(iterations)}")
                continue
            }
            var perRep: [Double] = []
            for _ in 0..<reps {
                perRep.append(try measure(snapshot, seconds: seconds))
            }
            perRep.sort()
            let json = "{\"payload\":\"\(name)\",\"bytes\":\(size),\"reps\":\(reps),"
                + "\"median_us\":\(format(perRep[perRep.count / 2])),\"min_us\":\(format(perRep[0])),"
                + "\"max_us\":\(format(perRep[perRep.count - 1]))}"
            print(json)
        }
    }

    /// Microseconds of this thread's CPU time per encode-and-decode, over about `seconds` of it. CPU time, not
    /// wall time, so that other processes on a busy machine do not count against either side of the ratio.
    static func measure(_ snapshot: ActivitySnapshot, seconds: Double) throws -> Double {
        var iterations = 0
        let start = cpuMicroseconds()
        while cpuMicroseconds() - start < seconds * 1e6 {
            for _ in 0..<64 { try roundTrip(snapshot) }
            iterations += 64
        }
        return (cpuMicroseconds() - start) / Double(iterations)
    }

    static func roundTrip(_ snapshot: ActivitySnapshot) throws {
        let decoded = try ActivitySnapshot(payload: try snapshot.encodedPayload())
        guard decoded.activityType == snapshot.activityType else { fatalError("the round trip lost the type") }
    }

    static func cpuMicroseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e6 + Double(now.tv_nsec) / 1e3
    }

    /// The `--userinfo` measurement (above).
    static func userInfo(at path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let before = peakResidentKiB()
        var best = Double.infinity
        var outcome = "accepted"
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let info = try BinaryPropertyList.decodeDictionary(bytes)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                let payload = try BinaryPropertyList.encode(.dictionary(info))
                outcome = "accepted, payload \(payload.count) bytes"
            } catch {
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                outcome = "refused: \(error)"
            }
        }
        print("{\"input\":\"\((path as NSString).lastPathComponent)\",\"bytes\":\(bytes.count),"
            + "\"decode_ms\":\(format(best)),\"peak_rss_kib_before\":\(before),"
            + "\"peak_rss_kib_after\":\(peakResidentKiB()),\"outcome\":\"\(outcome)\"}")
    }

    /// VmHWM from /proc/self/status: the most resident memory this process has had.
    static func peakResidentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }

    /// The note payloads `handoff note edit` sends: about 3 KB of text, plain ASCII and with some non-ASCII.
    static func payloads() -> [(String, ActivitySnapshot)] {
        func note(_ content: String) -> ActivitySnapshot {
            var snapshot = ActivitySnapshot(activityType: "org.handoff.note")
            snapshot.title = "Groceries"
            snapshot.userInfo = ["name": "groceries", "title": "Groceries", "content": .string(content)]
            return snapshot
        }
        let line = "buy milk, eggs, flour and a loaf of bread for the week ahead\n"
        let ascii = String(repeating: line, count: 3000 / line.utf8.count + 1)
        let unicode = String(repeating: "café crème, œufs, farine — et du pain ☕\n", count: 70)
        return [("note-3k-ascii", note(ascii)), ("note-3k-unicode", note(unicode))]
    }
}
