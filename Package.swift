// swift-tools-version:6.0
// handoff: Apple-style Handoff for Linux, over Bluetooth LE through BlueZ's D-Bus API.
//
// Linux only: the code needs Glibc, inotify, the kernel's Bluetooth sockets and BlueZ. SwiftPM has no way to
// declare a Linux-only package (`platforms:` lists only Apple platforms' minimum versions), so there is no
// `platforms:` line; README.md says what the code runs on.
//
// Layers, each a target with one job; dependencies point downward only. Docs/architecture.md draws every target
// with its arrows and says who may import what. Sources/ is what ships; Tools/ holds the VM scenario and bench
// executables, which nothing imports.
import PackageDescription

let package = Package(
    name: "handoff",
    products: [
        // MARK: products
        // What ships. The Tools/ executables are not listed: SwiftPM gives every executable target of the root
        // package a product of its own name, which is all `swift build --product handoff-radio-scenarios` and
        // scripts/vm-test.sh's `@build=` need, without offering them to packages that depend on this one.
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "HandoffKit", targets: ["HandoffKit"]),
        .library(name: "HandoffTesting", targets: ["HandoffTesting"]),
        .executable(name: "handoff", targets: ["handoff"]),
        .library(name: "BlueZ", targets: ["BlueZ"]),
        .library(name: "HandoffDaemon", targets: ["HandoffDaemon"]),
        .library(name: "HandoffBusContract", targets: ["HandoffBusContract"]),
        .library(name: "HandoffDBusClient", targets: ["HandoffDBusClient"]),
        .executable(name: "handoffd", targets: ["handoffd"]),
        .library(name: "HandoffBlueZ", targets: ["HandoffBlueZ"]),
        .library(name: "L2CAP", targets: ["L2CAP"]),
    ],
    targets: [
        // MARK: C shims
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CBluetooth",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        // Linux's eventfd and timerfd headers (glibc's own; Swift's Glibc module leaves them out), for LoopExecutor.
        .systemLibrary(name: "CLinuxEvents"),

        // MARK: Shared building blocks
        // The one lock box and the one broadcaster every layer uses, and handoffd's executor (package access only, not
        // a product).
        .target(name: "HandoffShared", dependencies: ["CLinuxEvents"]),

        // MARK: D-Bus layer
        .target(name: "DBus", dependencies: ["CDBus", "HandoffShared"]),
        .target(name: "DBusTestSupport", dependencies: ["DBus"]),

        // MARK: BlueZ layer
        .target(name: "BlueZ", dependencies: ["DBus", "HandoffShared"]),
        // bluezoo on a private bus for tier-1 tests (scripts/bluezoo-bus.sh), shared by the BlueZ and radio tests.
        .target(name: "BlueZTestSupport", dependencies: ["BlueZ", "DBus", "HandoffShared"]),
        // LE credit-based L2CAP channels over the kernel's Bluetooth sockets (Docs/l2cap.md).
        .target(name: "L2CAP", dependencies: ["CBluetooth", "HandoffShared"]),
        // HandoffKit's Radio over the BlueZ layer.
        .target(name: "HandoffBlueZ", dependencies: ["HandoffKit", "BlueZ", "DBus", "L2CAP", "HandoffShared"]),

        // MARK: HandoffKit
        .target(name: "HandoffKit", dependencies: ["CSodium", "HandoffShared"]),
        .target(name: "HandoffTesting", dependencies: ["HandoffKit", "HandoffShared"]),
        // HandoffKit's fast lane over TCP sockets (Docs/protocol.md §9): a LaneNetwork, as HandoffBlueZ is a Radio.
        .target(name: "HandoffLane", dependencies: ["HandoffKit", "HandoffShared"]),

        // MARK: Executables
        // The CLI's own libraries: a declarative parser, the note store, the daemon-facing protocol.
        .target(name: "HandoffCommandLine"),
        .target(name: "HandoffNotes", dependencies: ["CSodium", "HandoffShared"]),
        .target(name: "HandoffClient", dependencies: ["HandoffShared"]),
        // The desktop around the CLI, through its own programs found at run time (wl-clipboard, xclip, xdg-open,
        // git): the clipboard, web links, the terminal's place and local clones. No D-Bus.
        .target(name: "HandoffDesktop", dependencies: ["CSodium", "HandoffClient", "HandoffShared"]),
        // `handoff doctor`'s checks: files, the kernel's management interface, an L2CAP probe; no D-Bus.
        .target(name: "HandoffDoctor"),
        .executableTarget(
            name: "handoff",
            dependencies: ["DBus", "HandoffCommandLine", "HandoffNotes", "HandoffClient", "HandoffDBusClient",
                           "HandoffDesktop", "HandoffDoctor", "HandoffShared"]
        ),
        // The daemon's D-Bus API as both sides see it: names, method and signal declarations, the values' shapes.
        .target(name: "HandoffBusContract", dependencies: ["DBus", "HandoffClient", "HandoffKit"]),
        // The daemon: the D-Bus API over a HandoffEngine, and the CLI's client for it.
        .target(name: "HandoffDBusClient", dependencies: ["DBus", "HandoffBusContract", "HandoffClient", "HandoffShared"]),
        .target(name: "HandoffDaemon",
                dependencies: ["HandoffKit", "DBus", "HandoffBusContract", "HandoffClient", "HandoffShared"]),
        .executableTarget(name: "handoffd",
                          dependencies: ["HandoffDaemon", "HandoffBlueZ", "HandoffKit", "HandoffLane", "BlueZ", "DBus",
                                         "HandoffShared"]),

        // MARK: Tools (Tools/): test and bench executables, run by scripts; nothing imports them
        // The benchmarks' Swift clients (bench/README.md, bench/codec/run.sh).
        .executableTarget(name: "dbus-bench", dependencies: ["DBus"], path: "Tools/dbus-bench"),
        .executableTarget(name: "codec-bench", dependencies: ["HandoffKit"], path: "Tools/codec-bench"),
        // The fast lane between two network namespaces (scripts/netns-fastlane.sh, bench/lane.sh).
        .executableTarget(name: "lane-netns", dependencies: ["HandoffKit", "HandoffLane", "HandoffTesting", "HandoffShared"],
                          path: "Tools/lane-netns"),
        // What the two runners below share: failures, reports, checks, the two powered adapters.
        .target(name: "ScenarioSupport", dependencies: ["BlueZ"], path: "Tools/ScenarioSupport"),
        // The BlueZ layer on the VM's real bluetoothd (scripts/vm/scenarios.list, Docs/bluez-api.md).
        .executableTarget(name: "bluez-vm-scenarios", dependencies: ["BlueZ", "DBus", "ScenarioSupport", "HandoffShared"],
                          path: "Tools/bluez-vm-scenarios"),
        // The L2CAP layer on the VM's real kernel and bluetoothd (scripts/vm/scenarios.list, Docs/l2cap.md).
        .executableTarget(name: "l2cap-vm-scenarios", dependencies: ["L2CAP", "BlueZ", "DBus", "ScenarioSupport"],
                          path: "Tools/l2cap-vm-scenarios"),
        // Tier 2 of HandoffBlueZ: two engines on hci0/hci1 over the VM's real bluetoothd (scripts/vm/scenarios.list).
        .executableTarget(
            name: "handoff-radio-scenarios",
            dependencies: ["HandoffBlueZ", "HandoffKit", "HandoffTesting", "BlueZ", "DBus", "HandoffShared"],
            path: "Tools/handoff-radio-scenarios"
        ),

        // MARK: Tests
        .testTarget(name: "DBusTests", dependencies: ["DBus", "DBusTestSupport", "HandoffShared"]),
        .testTarget(name: "BlueZTests",
                    dependencies: ["BlueZ", "BlueZTestSupport", "DBus", "DBusTestSupport", "HandoffShared"]),
        .testTarget(name: "HandoffBlueZTests",
                    dependencies: ["HandoffBlueZ", "HandoffKit", "HandoffTesting", "BlueZ", "BlueZTestSupport", "DBus",
                                   "HandoffShared"]),
        .testTarget(name: "L2CAPTests", dependencies: ["L2CAP", "CBluetooth"]),
        .testTarget(name: "HandoffSharedTests", dependencies: ["HandoffShared"]),
        .testTarget(name: "HandoffKitTests", dependencies: ["HandoffKit", "HandoffTesting", "HandoffShared"]),
        .testTarget(name: "HandoffLaneTests", dependencies: ["HandoffLane", "HandoffKit", "HandoffTesting", "HandoffShared"]),
        .testTarget(name: "HandoffCommandLineTests", dependencies: ["HandoffCommandLine"]),
        .testTarget(name: "HandoffNotesTests", dependencies: ["HandoffNotes"]),
        .testTarget(name: "HandoffDesktopTests", dependencies: ["HandoffDesktop", "HandoffClient", "HandoffShared"]),
        .testTarget(name: "HandoffDoctorTests", dependencies: ["HandoffDoctor"]),
        .testTarget(
            name: "HandoffDaemonTests",
            dependencies: ["HandoffDaemon", "HandoffBusContract", "HandoffDBusClient", "HandoffClient", "HandoffTesting",
                           "HandoffKit", "HandoffLane", "DBus", "DBusTestSupport", "HandoffDesktop", "HandoffShared"]
        ),
        .testTarget(name: "CLITests",
                    dependencies: ["HandoffNotes", "handoff", "HandoffDoctor", "HandoffClient", "HandoffCommandLine"],
                    exclude: ["zsh-complete.zsh"]),
    ]
)

// MARK: fuzz targets
// libFuzzer harnesses, one per decoder of outside input (Fuzz/README.md). They have no `main` of their own
// (libFuzzer brings it), so they exist only in a fuzzing build, which Fuzz/run.sh makes:
// `HANDOFF_FUZZ=1 swift build --sanitize=fuzzer --sanitize=address --scratch-path .build/fuzz ...`.
if Context.environment["HANDOFF_FUZZ"] != nil {
    let fuzzTargets: [(String, [Target.Dependency])] = [
        ("beacon", ["HandoffKit"]),
        ("frame", ["HandoffKit"]),
        ("sealed-stream", ["HandoffKit"]),
        ("plist", ["HandoffKit"]),
        ("plist-amplification", ["HandoffKit"]),
        ("dbus-arguments", ["HandoffDaemon", "HandoffBusContract", "HandoffKit", "DBus", "CDBus"]),
        ("note-file", ["HandoffNotes"]),
        ("state-json", ["HandoffDaemon", "HandoffKit"]),
        ("pairing", ["HandoffKit", "CSodium"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support"))
    for (name, dependencies) in fuzzTargets {
        package.targets.append(.executableTarget(
            name: "fuzz-\(name)", dependencies: dependencies + ["FuzzSupport"], path: "Fuzz/Targets/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-enable-testing"])]))
    }
}
