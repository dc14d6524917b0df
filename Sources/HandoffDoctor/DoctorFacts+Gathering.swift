import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DoctorFacts {
    /// Where to look.
    public struct Locations: Sendable {
        public var mainConf = "/etc/bluetooth/main.conf"
        /// The bus policy's file name, looked for in each of `policyDirectories`.
        public var policyName = "org.handoff.Handoff1.conf"
        /// Where the system bus reads policies from (`/usr/share` first, `/etc` overrides).
        public var policyDirectories = ["/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d"]
        public var stateDirectory = "/var/lib/handoff"
        /// Only this controller (`hci0`), or every one when nil.
        public var adapter: String?
        /// The process table, for the running bluetoothd.
        public var proc = "/proc"

        public init() {}
    }

    /// Reads the facts from this machine: files, the kernel's management interface, `/proc`, and
    /// `bluetoothd --version`. Needs no privileges and no D-Bus; what the caller may not read is said so.
    public static func gather(_ locations: Locations = Locations()) -> DoctorFacts {
        let conf = (try? String(contentsOfFile: locations.mainConf, encoding: .utf8)).map(MainConf.init(parsing:))
        let policies = locations.policyDirectories.compactMap { directory in
            file(directory + "/" + locations.policyName, readContents: true)
        }
        let state = file(locations.stateDirectory, readContents: false)
        return DoctorFacts(
            mainConfPath: locations.mainConf, mainConf: conf,
            controllers: controllers(only: locations.adapter), identifyingNames: identifyingNames(),
            bluetoothd: bluetoothd(proc: locations.proc), leCoC: L2CAPProbe.run(), fastLane: LaneProbe.run(),
            installedPolicies: policies,
            policyPath: (locations.policyDirectories.last ?? "/etc/dbus-1/system.d") + "/" + locations.policyName,
            stateDirectoryPath: locations.stateDirectory, stateDirectory: state,
            trustFile: state == nil ? nil : file(locations.stateDirectory + "/trust.json", readContents: false))
    }

    static func file(_ path: String, readContents: Bool) -> FileFacts? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let contents = readContents ? try? String(contentsOfFile: path, encoding: .utf8) : nil
        return FileFacts(path: path, mode: UInt32(info.st_mode) & 0o7777, owner: info.st_uid, contents: contents)
    }

    static func controllers(only adapter: String?) -> Result<[ControllerInfo], ProbeFailure> {
        do throws(ManagementSocket.Failure) {
            let socket = try ManagementSocket()
            var found: [ControllerInfo] = []
            for index in try socket.controllerIndexes().sorted() {
                guard adapter == nil || adapter == "hci\(index)" else { continue }
                if let info = try socket.controllerInfo(index) { found.append(info) }
            }
            if let adapter, found.isEmpty {
                return .failure(ProbeFailure("no controller \(adapter)"))
            }
            return .success(found)
        } catch {
            return .failure(ProbeFailure("the kernel's Bluetooth management interface: \(error)"))
        }
    }

    /// The host name, the pretty host name (`/etc/machine-info`), and the user's login and real names: what the
    /// adapter's name must not give away.
    static func identifyingNames() -> [String] {
        var names: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            names.append(host)
            if let short = host.split(separator: ".").first, short.count != host.count { names.append(String(short)) }
        }
        if let info = try? String(contentsOfFile: "/etc/machine-info", encoding: .utf8) {
            for line in info.split(separator: "\n") where line.hasPrefix("PRETTY_HOSTNAME=") {
                names.append(line.dropFirst("PRETTY_HOSTNAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")))
            }
        }
        let environment = ProcessInfo.processInfo.environment
        for uid in [getuid()] + (environment["SUDO_UID"].flatMap { uid_t($0) }.map { [$0] } ?? []) {
            guard let entry = getpwuid(uid) else { continue }
            names.append(String(cString: entry.pointee.pw_name))
            let real = String(cString: entry.pointee.pw_gecos).split(separator: ",").first.map(String.init) ?? ""
            names += real.split(separator: " ").map(String.init)
        }
        // root and the like identify nobody.
        let generic: Set = ["root", "localhost", "nobody", "user", "admin", "debian", "ubuntu"]
        var seen = Set<String>()
        return names.filter { !$0.isEmpty && !generic.contains($0.lowercased()) && seen.insert($0.lowercased()).inserted }
    }

    /// The running bluetoothd: its command line from `/proc`, its version from running the same binary with
    /// `--version`.
    static func bluetoothd(proc: String) -> Bluetoothd? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return nil }
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let comm = try? String(contentsOfFile: "\(proc)/\(pid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == "bluetoothd",
                  let raw = FileManager.default.contents(atPath: "\(proc)/\(pid)/cmdline") else { continue }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return Bluetoothd(commandLine: argv, version: argv.first.flatMap(version(of:)))
        }
        return nil
    }

    static func version(of binary: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !text.isEmpty ? text : nil
    }
}
