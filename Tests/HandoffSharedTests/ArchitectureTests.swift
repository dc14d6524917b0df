import Foundation
import Testing

/// Docs/architecture.md is held to Package.swift (issue 26): its drawing's arrows and its table's "depends on"
/// column are exactly the targets' `dependencies:` as `swift package dump-package` gives them, and no target's
/// sources import a module of the package that its `dependencies:` do not name.
@Suite struct ArchitectureTests {
    /// The package's root: three folders above this file (Tests/HandoffSharedTests/ArchitectureTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One target as Package.swift declares it.
    struct Target: Equatable {
        var name: String
        /// `regular`, `executable`, `test`, `system`.
        var type: String
        /// Its folder, relative to the root.
        var path: String
        var dependencies: Set<String>
    }

    /// The targets of `swift package dump-package`, read once for the suite.
    static let targets = Result { try declaredTargets() }

    /// The targets of `swift package dump-package`, by name. Its manifest is compiled in a scratch folder of its
    /// own, so a running `swift build` or `swift test` holding the package's lock does not block it.
    static func declaredTargets() throws -> [String: Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("architecture-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "dump-package", "--package-path", root.path,
                             "--scratch-path", scratch.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let manifest = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let targets = manifest["targets"] as? [[String: Any]]
        else { throw Failure("swift package dump-package failed (status \(process.terminationStatus))") }
        var result: [String: Target] = [:]
        for target in targets {
            guard let name = target["name"] as? String, let type = target["type"] as? String else {
                throw Failure("a target without a name or a type: \(target)")
            }
            // Each dependency is one of {"byName": [name, condition]}, {"target": [...]}, {"product": [...]}.
            let dependencies = (target["dependencies"] as? [[String: [Any]]] ?? []).compactMap {
                $0.values.first?.first as? String
            }
            let path = target["path"] as? String ?? (type == "test" ? "Tests/\(name)" : "Sources/\(name)")
            result[name] = Target(name: name, type: type, path: path, dependencies: Set(dependencies))
        }
        return result
    }

    static func architecture() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Docs/architecture.md"), encoding: .utf8)
    }

    /// The drawing's arrows, by the name of the target they leave: `A --> B & C` lines of the mermaid block, with
    /// its nodes' labels (`handoff["handoff (CLI)"]`, `radioScen[handoff-radio-scenarios]`) read as target names.
    static func drawnArrows(_ document: String) throws -> [String: Set<String>] {
        guard let drawing = document.components(separatedBy: "```mermaid").dropFirst().first?
            .components(separatedBy: "```").first
        else { throw Failure("Docs/architecture.md has no mermaid drawing") }
        var labels: [String: String] = [:]
        var arrows: [String: Set<String>] = [:]
        for line in drawing.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("subgraph ") { continue }
            if let open = line.firstIndex(of: "["), line.hasSuffix("]") {
                let node = String(line[..<open])
                let label = line[line.index(after: open)..<line.index(before: line.endIndex)]
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                labels[node] = label.components(separatedBy: " (").first ?? label
            } else if let arrow = line.range(of: " --> ") {
                let from = String(line[..<arrow.lowerBound])
                let to = line[arrow.upperBound...].components(separatedBy: "&").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                arrows[from, default: []].formUnion(to)
            }
        }
        let name = { (node: String) in labels[node] ?? node }
        return Dictionary(uniqueKeysWithValues: arrows.map { (name($0.key), Set($0.value.map(name))) })
    }

    /// The table's "depends on" column, by target: the names it lists, with what stands in parentheses left out
    /// and `—` for none.
    static func tabledDependencies(_ document: String) throws -> [String: Set<String>] {
        let header = "| target | folder | job | depends on (Package.swift) | who may import it |"
        guard let table = document.components(separatedBy: header).dropFirst().first else {
            throw Failure("Docs/architecture.md has no table of targets")
        }
        var result: [String: Set<String>] = [:]
        for line in table.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.trimmingCharacters(in: CharacterSet(charactersIn: "| ")).components(separatedBy: " | ")
            guard cells.count == 5 else { throw Failure("a row of the table has \(cells.count) cells: \(line)") }
            let target = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let listed = withoutParentheses(cells[3]).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            result[target] = Set(listed.filter { !$0.isEmpty && $0 != "—" })
        }
        return result
    }

    private static func withoutParentheses(_ text: String) -> String {
        var depth = 0
        return String(text.filter { character in
            if character == "(" { depth += 1 }
            defer { if character == ")" { depth -= 1 } }
            return depth == 0 && character != ")"
        })
    }

    /// The modules a target's sources import (`import X`, `@testable import X`, `import struct X.Y`, …).
    static func importedModules(of target: Target) -> Set<String> {
        let folder = root.appendingPathComponent(target.path)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var modules: Set<String> = []
        let prefixes: Set<String> = ["@testable", "@_exported", "@preconcurrency", "public", "package", "internal"]
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        for case let file as URL in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init)[...]
                while let first = words.first, prefixes.contains(first) { words = words.dropFirst() }
                guard words.first == "import" else { continue }
                words = words.dropFirst()
                if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
                if let module = words.first?.split(separator: ".").first { modules.insert(String(module)) }
            }
        }
        return modules
    }

    @Test func theDrawingHasAnArrowForEveryDependencyAndNoOther() throws {
        let targets = try Self.targets.get()
        let arrows = try Self.drawnArrows(try Self.architecture())
        for target in targets.values where target.type != "test" {
            #expect(arrows[target.name] ?? [] == target.dependencies, "\(target.name)'s arrows")
        }
        #expect(Set(arrows.keys).subtracting(targets.keys).isEmpty, "arrows from targets Package.swift lacks")
    }

    @Test func theTableListsEveryTargetWithItsDependencies() throws {
        let targets = try Self.targets.get()
        let table = try Self.tabledDependencies(try Self.architecture())
        for target in targets.values {
            #expect(table[target.name] == target.dependencies, "\(target.name)'s row")
        }
        #expect(Set(table.keys).subtracting(targets.keys).isEmpty, "rows for targets Package.swift lacks")
    }

    @Test func noTargetImportsAModuleOfThePackageItDoesNotDeclare() throws {
        let targets = try Self.targets.get()
        for target in targets.values where target.type != "system" {
            let undeclared = Self.importedModules(of: target)
                .filter { targets[$0] != nil && $0 != target.name && !target.dependencies.contains($0) }
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring it")
        }
    }

    @Test func theReadersSeeWhatTheyParse() throws {
        // A check of the checks: each reader finds what a known line says.
        let arrows = try Self.drawnArrows(try Self.architecture())
        #expect(arrows["handoffd"]?.contains("HandoffDaemon") == true)
        #expect(arrows["handoff-radio-scenarios"]?.contains("HandoffBlueZ") == true)
        let table = try Self.tabledDependencies(try Self.architecture())
        #expect(table["CDBus"] == [])
        #expect(table["HandoffKit"]?.contains("CSodium") == true)
        let targets = try Self.targets.get()
        let shared = try #require(targets["HandoffSharedTests"])
        #expect(Self.importedModules(of: shared).isSuperset(of: ["HandoffShared", "Testing", "Foundation"]))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
