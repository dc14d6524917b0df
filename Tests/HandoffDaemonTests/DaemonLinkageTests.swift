import Foundation
import Testing

/// handoffd runs all day, so its resident memory matters (issue 12 §3: at most 20 MB at rest), and most of it is
/// the shared libraries it maps. Full Foundation (libFoundation.so, with FoundationInternationalization and ICU)
/// cost 8.6 MB of it (Docs/performance.md, Memory); handoffd's graph imports only FoundationEssentials. This
/// guards that: an `import Foundation` anywhere in that graph links the binary against full Foundation again.
/// The CLI and the tests may use full Foundation.
@Suite struct DaemonLinkageTests {
    /// Libraries handoffd must not need (DT_NEEDED): full Foundation and what it brings.
    static let forbidden = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
                            "libFoundationNetworking.so", "libFoundationXML.so"]

    @Test func handoffdDoesNotLinkFullFoundation() throws {
        let binary = DaemonKillTests.root.appendingPathComponent(".build/debug/handoffd")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "\(binary.path) is missing: run `swift build --build-tests`")
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        readelf.arguments = ["readelf", "-d", binary.path]
        let output = Pipe()
        readelf.standardOutput = output
        try readelf.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        try #require(readelf.terminationStatus == 0, "readelf -d \(binary.path) failed")
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
        }
        #expect(needed.contains("libFoundationEssentials.so"), "readelf's output changed shape? \(needed)")
        let linked = needed.filter(Self.forbidden.contains)
        #expect(linked.isEmpty, """
            handoffd links \(linked): some target in its graph imports Foundation, not FoundationEssentials (or, \
            right after a change of imports, an incremental build kept an object's old autolink entries: look with \
            `readelf -p .swift1_autolink_entries` and remove that module's .build/debug/NAME.build)
            """)
    }
}
