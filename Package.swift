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

        // MARK: HandoffKit

        // MARK: Executables
        .executableTarget(name: "dbus-bench", dependencies: ["DBus"], path: "bench/swift"),

        // MARK: Tests
        .testTarget(name: "DBusTests", dependencies: ["DBus", "DBusTestSupport"]),
    ]
)
