import Foundation

/// What the integration tests need from the machine, and the programs they drive: Chromium through chromedriver,
/// a local web server, Neovim. A program that is missing is an error, never a skip (scripts/deps.sh test installs
/// them all).
struct MissingProgram: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) is not installed; run scripts/deps.sh test" }
}

enum RealPrograms {
    /// The program's path in /usr/bin or /bin.
    static func path(of name: String) throws -> String {
        for folder in ["/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        throw MissingProgram(name: name)
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw CocoaError(.fileWriteUnknown) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `path arguments` with its output discarded.
    static func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs `path arguments` to its end, returning its status and standard output (with its standard error when
    /// `errorsToo`: Neovim 0.7's `--remote-expr` prints its answer there, later ones on standard output).
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                    errorsToo: Bool = false) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errorsToo ? output : FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Stops a process this test started, and waits for it. SIGKILL, since chromedriver blocks SIGTERM in all its
    /// threads and would never end (its browser is closed first, by ending the WebDriver session).
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Polls `condition` every 100 ms until it holds, for up to `seconds`; returns whether it did.
    static func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<Int(seconds * 10) {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    /// The repository's root folder.
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}

/// HTTP/1.1 to 127.0.0.1 over a plain socket, one request per connection (`Connection: close`), on a thread of its
/// own: all that chromedriver and the test's web server need. (Foundation's URLSession hung in the test process.)
enum LocalHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends a request and returns the status and the body.
    static func request(port: Int, method: String, path: String, body: Data? = nil, timeout: Int = 60)
        async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingRequest(port: port, method: method, path: path,
                                                                       body: body, timeout: timeout) })
            }
        }
    }

    private static func blockingRequest(port: Int, method: String, path: String, body: Data?, timeout: Int) throws
        -> (status: Int, body: Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port): errno \(errno)") }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        let bytes = Array((request + "\r\n").utf8) + Array(body ?? Data())
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += count
        }
        // Read to the end of the body its Content-Length gives, else to the end of the connection: chromedriver
        // answers "Connection:close" and then keeps the connection open.
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator = Array("\r\n\r\n".utf8)
        func headEnd() -> Int? {
            (0..<max(0, response.count - 3)).first { Array(response[$0..<$0 + 4]) == separator }
        }
        func contentLength(head: String) -> Int? {
            head.split(separator: "\r\n").lazy.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first
        }
        while true {
            if let end = headEnd(),
               let length = contentLength(head: String(decoding: response[..<end], as: UTF8.self)),
               response.count >= end + 4 + length {
                response.removeLast(response.count - (end + 4 + length))
                break
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw Failure(description: "no answer from port \(port) (errno \(errno))") }
            response += buffer[..<count]
        }
        guard let end = headEnd() else { throw Failure(description: "a malformed answer from port \(port)") }
        let head = String(decoding: response[..<end], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var content = Data(response[(end + 4)...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = dechunked(content) }
        return (status, content)
    }

    private static func dechunked(_ data: Data) -> Data {
        var bytes = [UInt8](data), out = Data()
        while let lineEnd = (0..<max(0, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
              let size = Int(String(decoding: bytes[..<lineEnd], as: UTF8.self), radix: 16), size > 0,
              bytes.count >= lineEnd + 2 + size {
            out.append(contentsOf: bytes[(lineEnd + 2)..<(lineEnd + 2 + size)])
            bytes.removeFirst(min(bytes.count, lineEnd + 4 + size))
        }
        return out
    }
}

/// A W3C WebDriver session on chromedriver, over its HTTP API.
struct WebDriver {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    let session: String

    /// Starts a session with `capabilities` on the chromedriver at `port`, waiting for it to answer first.
    static func session(port: Int, capabilities: [String: Any]) async throws -> WebDriver {
        let probe = WebDriver(port: port, session: "")
        let ready = try await RealPrograms.eventually(seconds: 10) {
            (try? await probe.request("GET", "/status")) != nil
        }
        guard ready else { throw Failure(description: "chromedriver did not answer on port \(port)") }
        let answer = try await probe.request("POST", "/session", ["capabilities": ["alwaysMatch": capabilities]])
        guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
            throw Failure(description: "chromedriver made no session: \(String(describing: answer))")
        }
        return WebDriver(port: port, session: id)
    }

    /// Loads `url` in the current tab and waits for it.
    func navigate(to url: String) async throws {
        _ = try await request("POST", "/session/\(session)/url", ["url": url])
    }

    /// A Chrome DevTools Protocol command, through chromedriver; its result.
    func devTools(_ command: String, _ parameters: [String: Any] = [:]) async throws -> [String: Any] {
        let value = try await request("POST", "/session/\(session)/goog/cdp/execute",
                                      ["cmd": command, "params": parameters])
        return value as? [String: Any] ?? [:]
    }

    /// Ends the session (and its browser).
    func quit() async {
        _ = try? await request("DELETE", "/session/\(session)")
    }

    /// One WebDriver command; its `value`.
    @discardableResult
    func request(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let json = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let (status, data) = try await LocalHTTP.request(port: port, method: method, path: path, body: json)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard status == 200 else {
            throw Failure(description: "\(method) \(path): \(String(decoding: data, as: UTF8.self).prefix(500))")
        }
        return object?["value"] ?? nil
    }
}
