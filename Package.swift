// swift-tools-version:6.0
// handoff: Apple-style Handoff for Linux, over Bluetooth LE through BlueZ's D-Bus API.
//
// Layers, each a target with one job; dependencies point downward only (see Docs/architecture.md):
//   C shims (CDBus, CSodium) → DBus → BlueZ → HandoffBlueZ
//   HandoffKit (no D-Bus) → HandoffBlueZ / HandoffTesting → daemon and CLI
import PackageDescription

let package = Package(
    name: "handoff",
    platforms: [.macOS(.v14)],
    products: [
        // MARK: products
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "HandoffKit", targets: ["HandoffKit"]),
        .library(name: "HandoffTesting", targets: ["HandoffTesting"]),
        .executable(name: "handoff", targets: ["handoff"]),
        .executable(name: "handoff-radio-scenarios", targets: ["handoff-radio-scenarios"]),
        .library(name: "BlueZ", targets: ["BlueZ"]),
        .library(name: "HandoffDaemon", targets: ["HandoffDaemon"]),
        .library(name: "HandoffDBusClient", targets: ["HandoffDBusClient"]),
        .executable(name: "handoffd", targets: ["handoffd"]),
        .library(name: "HandoffBlueZ", targets: ["HandoffBlueZ"]),
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

        // MARK: D-Bus layer
        .target(name: "DBus", dependencies: ["CDBus"]),
        .target(name: "DBusTestSupport", dependencies: ["DBus"]),

        // MARK: BlueZ layer
        .target(name: "BlueZ", dependencies: ["DBus"]),
        // bluezoo on a private bus for tier-1 tests (scripts/bluezoo-bus.sh), shared by the BlueZ and radio tests.
        .target(name: "BlueZTestSupport", dependencies: ["BlueZ", "DBus"]),
        // HandoffKit's Radio over the BlueZ layer.
        .target(name: "HandoffBlueZ", dependencies: ["HandoffKit", "BlueZ", "DBus"]),

        // MARK: HandoffKit
        .target(name: "HandoffKit", dependencies: ["CSodium"]),
        .target(name: "HandoffTesting", dependencies: ["HandoffKit"]),

        // MARK: Executables
        // The CLI's own libraries: a declarative parser, the note store, the daemon-facing protocol.
        .target(name: "HandoffCommandLine"),
        .target(name: "HandoffNotes", dependencies: ["CSodium"]),
        .target(name: "HandoffClient"),
        // `handoff doctor`'s checks: files, the kernel's management interface, an L2CAP probe; no D-Bus.
        .target(name: "HandoffDoctor"),
        .executableTarget(
            name: "handoff",
            dependencies: ["HandoffCommandLine", "HandoffNotes", "HandoffClient", "HandoffDBusClient", "HandoffDoctor"]
        ),
        // The daemon: the D-Bus API over a HandoffEngine, and the CLI's client for it.
        .target(name: "HandoffDBusClient", dependencies: ["DBus", "HandoffClient"]),
        .target(name: "HandoffDaemon", dependencies: ["HandoffKit", "DBus", "HandoffClient", "HandoffDBusClient"]),
        .executableTarget(name: "handoffd", dependencies: ["HandoffDaemon", "HandoffBlueZ", "BlueZ", "DBus"]),
        .executableTarget(name: "dbus-bench", dependencies: ["DBus"], path: "bench/swift"),
        .executableTarget(name: "bluez-vm-scenarios", dependencies: ["BlueZ", "DBus"]),
        // Tier 2 of HandoffBlueZ: two engines on hci0/hci1 over the VM's real bluetoothd (scripts/vm/scenarios.list).
        .executableTarget(
            name: "handoff-radio-scenarios",
            dependencies: ["HandoffBlueZ", "HandoffKit", "HandoffTesting", "BlueZ", "DBus"]
        ),

        // MARK: Tests
        .testTarget(name: "DBusTests", dependencies: ["DBus", "DBusTestSupport"]),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "BlueZTestSupport", "DBus", "DBusTestSupport"]),
        .testTarget(name: "HandoffBlueZTests",
                    dependencies: ["HandoffBlueZ", "HandoffKit", "HandoffTesting", "BlueZ", "BlueZTestSupport"]),
        .testTarget(name: "HandoffKitTests", dependencies: ["HandoffKit", "HandoffTesting"]),
        .testTarget(name: "HandoffCommandLineTests", dependencies: ["HandoffCommandLine"]),
        .testTarget(name: "HandoffNotesTests", dependencies: ["HandoffNotes"]),
        .testTarget(name: "HandoffDoctorTests", dependencies: ["HandoffDoctor"]),
        .testTarget(
            name: "HandoffDaemonTests",
            dependencies: ["HandoffDaemon", "HandoffDBusClient", "HandoffClient", "HandoffTesting", "HandoffKit",
                           "DBus", "DBusTestSupport"]
        ),
        .testTarget(name: "CLITests", dependencies: ["HandoffNotes", "handoff", "HandoffDoctor"], exclude: ["zsh-complete.zsh"]),
    ]
)
