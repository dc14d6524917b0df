/// Everything `handoff doctor` judges, gathered once (``DoctorFacts/gather(_:)``) or written by a test.
///
/// The checks (``DoctorChecks``) are pure functions of these facts, so each is tested over injected inputs.
public struct DoctorFacts: Sendable, Equatable {
    /// A file as `handoff doctor` saw it.
    public struct FileFacts: Sendable, Equatable {
        public var path: String
        /// `st_mode & 0o7777`.
        public var mode: UInt32
        public var owner: UInt32
        /// The contents, when the file was readable (and the check needs them).
        public var contents: String?

        public init(path: String, mode: UInt32, owner: UInt32, contents: String? = nil) {
            self.path = path
            self.mode = mode
            self.owner = owner
            self.contents = contents
        }
    }

    /// The running bluetoothd, as its process shows it.
    public struct Bluetoothd: Sendable, Equatable {
        /// Its command line (argv).
        public var commandLine: [String]
        /// What `bluetoothd --version` printed (`5.66`), nil when it could not be run.
        public var version: String?

        public init(commandLine: [String], version: String?) {
            self.commandLine = commandLine
            self.version = version
        }

        /// Whether it runs with `-E` / `--experimental`.
        public var experimentalFlag: Bool {
            commandLine.dropFirst().contains { argument in
                argument == "--experimental" || argument == "-E"
                    || (argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.contains("E"))
            }
        }
    }

    /// The path main.conf was looked for at.
    public var mainConfPath: String
    /// main.conf, nil when absent (bluetoothd then runs with its defaults: privacy off).
    public var mainConf: MainConf?
    /// The controllers, or why the kernel's management interface could not be read.
    public var controllers: Result<[ControllerInfo], ProbeFailure>
    /// This machine's names a stranger could recognise: host name, pretty host name, the user's login and real
    /// names.
    public var identifyingNames: [String]
    /// The running bluetoothd, nil when none runs.
    public var bluetoothd: Bluetoothd?
    /// The LE CoC probe.
    public var leCoC: L2CAPProbe.Result
    /// The fast lane's probe: the addresses a peer could be offered, and a listening TCP socket.
    public var fastLane: LaneProbe.Facts
    /// The bus policy files found, in the order the bus reads them (`/usr/share/dbus-1/system.d`, then
    /// `/etc/dbus-1/system.d`), and where it should be.
    public var installedPolicies: [FileFacts]
    public var policyPath: String
    /// The policy handoff ships (``ShippedPolicy/text``).
    public var shippedPolicy: String
    /// The state directory's path, its facts (nil when absent), and its trust store's (nil when absent or not
    /// visible to the caller).
    public var stateDirectoryPath: String
    public var stateDirectory: FileFacts?
    public var trustFile: FileFacts?

    /// What the running handoffd says of the adapter it uses (`handoff status`), or why it could not be asked;
    /// nil when it was not asked.
    public var daemon: Result<DaemonAdapter, ProbeFailure>?

    /// The adapter handoffd uses, as its Status says.
    public struct DaemonAdapter: Sendable, Equatable {
        /// Its name (`hci0`); nil when the daemon has none.
        public var name: String?
        /// Its address, when the daemon says.
        public var address: String?
        public var powered: Bool
        /// How the daemon chose it, or what it waits for (`BlueZ's default`, `waiting for an adapter`).
        public var choice: String?

        public init(name: String?, address: String?, powered: Bool, choice: String?) {
            self.name = name
            self.address = address
            self.powered = powered
            self.choice = choice
        }
    }

    /// A probe that failed, in words.
    public struct ProbeFailure: Error, Sendable, Equatable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    public init(
        mainConfPath: String = "/etc/bluetooth/main.conf", mainConf: MainConf?,
        controllers: Result<[ControllerInfo], ProbeFailure>, identifyingNames: [String], bluetoothd: Bluetoothd?,
        leCoC: L2CAPProbe.Result, fastLane: LaneProbe.Facts, installedPolicies: [FileFacts],
        policyPath: String = "/etc/dbus-1/system.d/org.handoff.Handoff1.conf",
        shippedPolicy: String = ShippedPolicy.text, stateDirectoryPath: String = "/var/lib/handoff",
        stateDirectory: FileFacts?, trustFile: FileFacts?, daemon: Result<DaemonAdapter, ProbeFailure>? = nil
    ) {
        self.mainConfPath = mainConfPath
        self.mainConf = mainConf
        self.controllers = controllers
        self.identifyingNames = identifyingNames
        self.bluetoothd = bluetoothd
        self.leCoC = leCoC
        self.fastLane = fastLane
        self.installedPolicies = installedPolicies
        self.policyPath = policyPath
        self.shippedPolicy = shippedPolicy
        self.stateDirectoryPath = stateDirectoryPath
        self.stateDirectory = stateDirectory
        self.trustFile = trustFile
        self.daemon = daemon
    }
}
