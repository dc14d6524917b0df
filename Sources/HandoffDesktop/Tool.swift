import Foundation
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// A desktop program (`wl-copy`, `xclip`, `xdg-open`, `git`) found on `PATH` when it is needed, and run with an
/// argument vector: nothing handoff passes to it is ever read by a shell.
public struct Tool: Sendable, Equatable {
    /// A tool at a known path.
    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }

    /// The name looked up (`wl-paste`).
    public let name: String
    /// Its absolute path.
    public let path: String

    /// What one run produced.
    public struct Result: Sendable {
        /// The exit status (128 + N when killed by signal N).
        public var status: Int32
        /// Everything written to standard output (empty when it was discarded).
        public var output: Data
        /// Standard error as text, trimmed.
        public var errorText: String
    }

    /// The first executable `name` in `environment["PATH"]`, or nil.
    public static func find(_ name: String, in environment: [String: String]) -> Tool? {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for directory in directories where directory.hasPrefix("/") {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return Tool(name: name, path: String(path)) }
        }
        return nil
    }

    /// Runs the tool with `arguments`, writing `input` to its standard input (else it reads /dev/null).
    /// `keepsOutput` false sends standard output and error to /dev/null: programs such as `wl-copy` and `xclip -i`
    /// leave a child behind that serves the clipboard and would hold a pipe open for ever.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: Process learns that its child exited through a
    /// descriptor the child inherits, which such a daemonising child keeps open, so it would wait for ever.
    public func run(_ arguments: [String], input: Data? = nil, environment: [String: String],
                    keepsOutput: Bool = true) async throws(DesktopError) -> Result {
        let spawned = try spawn(arguments, environment: environment, input: input != nil, keepsOutput: keepsOutput)
        return await withCheckedContinuation { continuation in
            // Reading, writing and waiting block: each on a thread of its own, so a large image cannot deadlock.
            // Plain threads, not Dispatch workers: `handoff clipboard follow` runs tools all day, and the first
            // Dispatch worker would start libdispatch's 1 Hz workqueue monitor (Docs/performance.md, "At rest").
            DetachedThread.start {
                let group = DispatchGroup()
                let output = Drained(spawned.output, group: group), errors = Drained(spawned.errors, group: group)
                if let fd = spawned.input, let input {
                    try? FileDescriptorIO.writeAll(fd, input)   // EPIPE: the tool stopped reading; its status says why
                    close(fd)
                }
                group.wait()
                var status: Int32 = 0
                while waitpid(spawned.pid, &status, 0) < 0 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
                let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                let errorText = String(decoding: errors.data, as: UTF8.self)
                continuation.resume(returning: Result(
                    status: exit, output: output.data,
                    errorText: errorText.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
    }

    /// A tool left running (a compositor, `wl-paste --watch`), with its standard output when `keepsOutput`.
    public final class Running: Sendable {
        /// Its process id.
        public let pid: pid_t
        /// The read end of its standard output, if kept.
        public let output: FileHandle?

        fileprivate init(pid: pid_t, output: Int32?) {
            self.pid = pid
            self.output = output.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        }

        /// Sends SIGTERM and waits for it to exit; returns its exit status.
        @discardableResult
        public func terminate() -> Int32 {
            kill(pid, SIGTERM)
            return wait()
        }

        /// Waits for it to exit (blocking); returns its exit status.
        @discardableResult
        public func wait() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        }
    }

    /// Starts the tool and leaves it running: standard input /dev/null, standard error /dev/null, standard
    /// output a pipe (``Running/output``) when `keepsOutput`, else /dev/null.
    public func start(_ arguments: [String], environment: [String: String], keepsOutput: Bool = false)
        throws(DesktopError) -> Running {
        let spawned = try spawn(arguments, environment: environment, input: false, keepsOutput: keepsOutput,
                                keepsErrors: false)
        return Running(pid: spawned.pid, output: spawned.output)
    }

    private struct Spawned {
        var pid: pid_t
        var input: Int32?
        var output: Int32?
        var errors: Int32?
    }

    private func spawn(_ arguments: [String], environment: [String: String], input: Bool, keepsOutput: Bool,
                       keepsErrors: Bool? = nil) throws(DesktopError) -> Spawned {
        // A tool that exits without reading everything must not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = [], childEnds: [Int32] = []
        func pipePair() -> (read: Int32, write: Int32)? {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            // Only the duplicates on 0, 1 and 2 reach the tool (posix_spawn's dup2 clears close-on-exec there).
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
        var spawned = Spawned(pid: 0)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        if input, let pair = pipePair() {
            posix_spawn_file_actions_adddup2(&actions, pair.read, 0)
            spawned.input = pair.write
            parentEnds.append(pair.write); childEnds.append(pair.read)
        } else {
            posix_spawn_file_actions_adddup2(&actions, null, 0)
        }
        for (target, keyPath, keeps) in [(Int32(1), \Spawned.output, keepsOutput),
                                         (Int32(2), \Spawned.errors, keepsErrors ?? keepsOutput)] {
            if keeps, let pair = pipePair() {
                posix_spawn_file_actions_adddup2(&actions, pair.write, target)
                spawned[keyPath: keyPath] = pair.read
                parentEnds.append(pair.read); childEnds.append(pair.write)
            } else {
                posix_spawn_file_actions_adddup2(&actions, null, target)
            }
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The tool starts with no signal blocked and every signal at its default: threads of the dispatch pool
        // block signals, and we ignore SIGPIPE, and both would otherwise be inherited across exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let result = posix_spawn(&spawned.pid, path, &actions, &attributes, argv, envp)
        childEnds.forEach { close($0) }
        guard result == 0 else {
            parentEnds.forEach { close($0) }
            throw DesktopError(.toolFailed, "cannot start \(path): \(String(cString: strerror(result)))")
        }
        return spawned
    }

    /// Runs the tool and returns its standard output, or throws with its standard error when it fails.
    public func output(_ arguments: [String], input: Data? = nil, environment: [String: String])
        async throws(DesktopError) -> Data {
        let result = try await run(arguments, input: input, environment: environment)
        guard result.status == 0 else {
            throw DesktopError(.toolFailed, "\(name) failed (exit \(result.status))"
                + (result.errorText.isEmpty ? "" : ": \(result.errorText)"))
        }
        return result.output
    }
}

/// Everything a descriptor delivers until end of file, read on a thread of its own; the descriptor is closed.
private final class Drained: Sendable {
    private let received = Locked(Data())

    /// Starts reading; `group` is left once the descriptor reached its end.
    init(_ fd: Int32?, group: DispatchGroup) {
        guard let fd else { return }
        group.enter()
        DetachedThread.start { [self] in
            let data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
            received.withLock { $0 = data }
            group.leave()
        }
    }

    /// What was read (complete once the group is done).
    var data: Data { received.withLock { $0 } }
}
