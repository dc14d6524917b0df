import Foundation
import Testing

@testable import HandoffDoctor

/// Each check of `handoff doctor` over injected facts: what it flags, how bad, and the fix it gives.
@Suite struct DoctorChecksTests {
    static let publicAddress = "00:AA:01:00:00:00"

    static func controller(_ settings: ControllerInfo.Settings = [.powered, .le, .connectable, .advertising],
                           name: String = "BlueZ 5.66", address: String = publicAddress) -> ControllerInfo {
        ControllerInfo(name: "hci0", address: address, settings: settings, localName: name)
    }

    /// A machine set up as Docs/setup.md says.
    static func safe() -> DoctorFacts {
        DoctorFacts(
            mainConf: MainConf(parsing: "[General]\nPrivacy = device\n"),
            controllers: .success([controller([.powered, .le, .connectable, .advertising, .privacy])]),
            identifyingNames: ["alices-thinkpad", "alice"],
            bluetoothd: .init(commandLine: ["/usr/libexec/bluetooth/bluetoothd"], version: "5.66"),
            leCoC: .available(psm: 0x80),
            fastLane: .init(addresses: ["wlan0 192.168.1.20"], listener: .success(40123)),
            installedPolicies: [.init(path: "/etc/dbus-1/system.d/org.handoff.Handoff1.conf", mode: 0o644, owner: 0,
                                      contents: ShippedPolicy.text)],
            stateDirectory: .init(path: "/var/lib/handoff", mode: 0o700, owner: 0),
            trustFile: .init(path: "/var/lib/handoff/trust.json", mode: 0o600, owner: 0),
            daemon: .success(.init(name: "hci0", address: publicAddress, powered: true, choice: "BlueZ's default")))
    }

    static func only(_ check: Finding.Check, _ facts: DoctorFacts) -> [Finding] {
        DoctorChecks.run(facts).filter { $0.check == check }
    }

    @Test func aSafeMachineHasNothingUnsafe() {
        let findings = DoctorChecks.run(Self.safe())
        #expect(findings.allSatisfy { $0.severity <= .info }, "\(findings.filter { $0.severity > .info })")
        #expect(Set(findings.map(\.check)) == Set(Finding.Check.allCases))
    }

    // MARK: adapter in use

    @Test func theAdapterInUseIsNamedWithItsAddressAndHowItWasChosen() throws {
        let finding = try #require(Self.only(.adapterInUse, Self.safe()).first)
        #expect(finding.severity == .ok)
        #expect(finding.summary == "handoffd uses hci0 \(Self.publicAddress) (BlueZ's default)")
    }

    @Test func noAdapterIsAWarningThatSaysWhatTheDaemonWaitsFor() throws {
        var facts = Self.safe()
        facts.daemon = .success(.init(name: nil, address: nil, powered: false, choice: "waiting for --adapter hci1"))
        let finding = try #require(Self.only(.adapterInUse, facts).first)
        #expect(finding.severity == .warning)
        #expect(finding.summary.hasPrefix("handoffd has no adapter (waiting for --adapter hci1)"))
        #expect(finding.detail.contains("BlueZ's default adapter"), "the rule is explained")
    }

    @Test func anAdapterThatIsOffIsAWarningWithTheFix() throws {
        var facts = Self.safe()
        facts.daemon = .success(.init(name: "hci1", address: nil, powered: false, choice: nil))
        let finding = try #require(Self.only(.adapterInUse, facts).first)
        #expect(finding.severity == .warning)
        #expect(finding.summary == "handoffd uses hci1, which is off")
        #expect(finding.fix.first?.hasPrefix("bluetoothctl power on") == true)
    }

    @Test func aDaemonThatCannotBeAskedIsInformationOnly() throws {
        var facts = Self.safe()
        facts.daemon = .failure(.init("the handoff daemon is not reachable"))
        let finding = try #require(Self.only(.adapterInUse, facts).first)
        #expect(finding.severity == .info)
        #expect(finding.summary.contains("the handoff daemon is not reachable"))
        facts.daemon = nil
        #expect(Self.only(.adapterInUse, facts).isEmpty, "not asked: nothing said")
    }

    // MARK: privacy

    @Test func privacyOffIsUnsafeWithTheConfigLine() throws {
        var facts = Self.safe()
        facts.mainConf = MainConf(parsing: "[General]\n#Privacy = device\n[GATT]\nExchangeMTU = 517\n")
        facts.controllers = .success([Self.controller()])
        let finding = try #require(Self.only(.privacy, facts).first)
        #expect(finding.severity == .unsafe)
        #expect(finding.summary.contains("public address \(Self.publicAddress)"))
        #expect(finding.summary.contains("default off"))
        #expect(finding.fix == ["in /etc/bluetooth/main.conf, section [General]: Privacy = device",
                                "sudo systemctl restart bluetooth"])
    }

    @Test func privacyAskedButNotAppliedSaysRestart() throws {
        var facts = Self.safe()
        facts.controllers = .success([Self.controller()])
        let finding = try #require(Self.only(.privacy, facts).first)
        #expect(finding.severity == .unsafe)
        #expect(finding.summary.contains("main.conf says Privacy = device"))
        #expect(finding.fix == ["sudo systemctl restart bluetooth"])
    }

    @Test func aStaticAddressIsNamedAsSuch() throws {
        var facts = Self.safe()
        facts.mainConf = nil
        facts.controllers = .success([Self.controller([.le, .staticAddress], address: "00:00:00:00:00:00")])
        let finding = try #require(Self.only(.privacy, facts).first)
        #expect(finding.severity == .unsafe)
        #expect(finding.summary.contains("static random address"))
    }

    @Test func privacyIsJudgedPerLEController() {
        var facts = Self.safe()
        var second = Self.controller()
        second.name = "hci1"
        var classic = Self.controller([.powered, .bredr])
        classic.name = "hci2"
        facts.controllers = .success([Self.controller([.le, .privacy]), second, classic])
        let findings = Self.only(.privacy, facts)
        #expect(findings.map(\.severity) == [.ok, .unsafe])
        #expect(findings[1].summary.hasPrefix("hci1 "))
    }

    @Test func unreadableControllersAreAWarningNotAVerdict() throws {
        var facts = Self.safe()
        facts.controllers = .failure(.init("socket: Address family not supported by protocol"))
        let finding = try #require(Self.only(.privacy, facts).first)
        #expect(finding.severity == .warning)
        #expect(finding.summary.contains("Address family not supported"))
        #expect(Self.only(.adapterName, facts).isEmpty)
    }

    @Test func mainConfValues() {
        let conf = MainConf(parsing: """
            # comment
            [General]
            Privacy = Network
            Experimental=true
            DiscoverableTimeout = 0
            garbage
            """)
        #expect(conf.privacy == "network" && conf.privacyEnabled)
        #expect(conf.experimental)
        #expect(conf.discoverableTimeout == 0)
        #expect(conf.problems.count == 1)
        #expect(!MainConf(parsing: "").privacyEnabled)
        #expect(MainConf(parsing: "").discoverableTimeout == 180)
    }

    // MARK: adapter name

    @Test func anAdapterNamedAfterTheHostIsUnsafe() throws {
        var facts = Self.safe()
        facts.controllers = .success([Self.controller([.le, .privacy], name: "Alices-ThinkPad")])
        let finding = try #require(Self.only(.adapterName, facts).first)
        #expect(finding.severity == .unsafe)
        #expect(finding.summary.contains("gives away 'alices-thinkpad'"))
        #expect(finding.fix.first?.hasPrefix(
            "sudo busctl set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Alias s 'Linux'") == true)
    }

    @Test func anAdapterNamedAfterTheUserIsUnsafe() throws {
        var facts = Self.safe()
        facts.controllers = .success([Self.controller([.le, .privacy], name: "Alice's laptop")])
        #expect(try #require(Self.only(.adapterName, facts).first).severity == .unsafe)
    }

    @Test func aNeutralNameIsInformation() throws {
        let finding = try #require(Self.only(.adapterName, Self.safe()).first)
        #expect(finding.severity == .info)
        #expect(finding.summary.contains("'BlueZ 5.66'"))
        #expect(finding.detail.contains("GAP Device Name"))
    }

    @Test func shortIdentifyingNamesDoNotMatchEverything() {
        #expect(!DoctorChecks.identifies("BlueZ 5.66", "bl"))
        #expect(DoctorChecks.identifies("my-desktop.local", "MY DESKTOP"))
    }

    // MARK: discoverable

    @Test func discoverable() throws {
        var facts = Self.safe()
        facts.controllers = .success([Self.controller([.le, .privacy, .discoverable])])
        let limited = try #require(Self.only(.discoverable, facts).first)
        #expect(limited.severity == .warning)
        #expect(limited.summary.contains("at most 180 s"))
        #expect(limited.fix == ["bluetoothctl discoverable off"])
        facts.mainConf = MainConf(parsing: "[General]\nPrivacy = device\nDiscoverableTimeout = 0\n")
        let forever = try #require(Self.only(.discoverable, facts).first)
        #expect(forever.severity == .unsafe)
        #expect(forever.fix.contains("in /etc/bluetooth/main.conf, section [General]: DiscoverableTimeout = 180"))
    }

    // MARK: bluetoothd and experimental

    @Test func bluetoothdVersions() {
        var facts = Self.safe()
        #expect(DoctorChecks.bluetoothd(facts).severity == .ok)
        facts.bluetoothd?.version = "5.72"
        #expect(DoctorChecks.bluetoothd(facts).severity == .ok)
        facts.bluetoothd?.version = "5.55"
        #expect(DoctorChecks.bluetoothd(facts).severity == .warning)
        #expect(DoctorChecks.bluetoothd(facts).summary.contains("older than 5.66"))
        facts.bluetoothd?.version = nil
        #expect(DoctorChecks.bluetoothd(facts).severity == .warning)
        facts.bluetoothd = nil
        #expect(DoctorChecks.bluetoothd(facts).fix == ["sudo systemctl enable --now bluetooth"])
    }

    @Test func experimentalFromTheCommandLineOrMainConf() {
        var facts = Self.safe()
        #expect(DoctorChecks.experimental(facts).severity == .ok)
        facts.bluetoothd?.commandLine = ["bluetoothd", "-n", "-f", "/run/main.conf", "-E"]
        #expect(DoctorChecks.experimental(facts).severity == .info)
        #expect(DoctorChecks.experimental(facts).summary.contains("-E on its command line"))
        facts.bluetoothd?.commandLine = ["bluetoothd", "-nE"]
        #expect(DoctorFacts.Bluetoothd(commandLine: ["bluetoothd", "-nE"], version: nil).experimentalFlag)
        facts.bluetoothd?.commandLine = ["bluetoothd", "--nodetach"]
        facts.mainConf = MainConf(parsing: "[General]\nExperimental = true\n")
        #expect(DoctorChecks.experimental(facts).summary.contains("Experimental = true in main.conf"))
    }

    // MARK: LE CoC

    @Test func leCoC() {
        var facts = Self.safe()
        #expect(DoctorChecks.leCoC(facts).summary.contains("PSM 0x80"))
        facts.leCoC = .unavailable(step: "socket", error: "Address family not supported by protocol")
        #expect(DoctorChecks.leCoC(facts).severity == .warning)
    }

    // MARK: fast lane

    @Test func fastLaneSaysWhatWouldBeOfferedOrWhyBigTransfersStayOnBluetooth() {
        var facts = Self.safe()
        let ready = DoctorChecks.fastLane(facts)
        #expect(ready.severity == .ok)
        #expect(ready.summary.contains("wlan0 192.168.1.20") && ready.summary.contains("port 40123"))
        #expect(ready.detail.contains("firewall"))
        facts.fastLane.addresses = []
        let alone = DoctorChecks.fastLane(facts)
        #expect(alone.severity == .info && alone.summary.contains("stay on Bluetooth"))
        facts.fastLane.listener = .failure(.init("socket(AF_INET, SOCK_STREAM): Permission denied"))
        let refused = DoctorChecks.fastLane(facts)
        #expect(refused.severity == .warning && refused.summary.contains("Permission denied"))
    }

    /// The probe on this machine: it never offers loopback, and a listening socket gets a port.
    @Test func theLaneProbeOffersNoLoopbackAndListens() throws {
        let facts = LaneProbe.run()
        #expect(!facts.addresses.contains { $0.hasSuffix(" 127.0.0.1") || $0.hasSuffix(" 0:0:0:0:0:0:0:1") })
        #expect(!facts.addresses.contains { $0.hasPrefix("lo ") })
        let port = try facts.listener.get()
        #expect(port != 0)
    }

    // MARK: bus policy

    @Test func busPolicy() {
        var facts = Self.safe()
        #expect(DoctorChecks.busPolicy(facts).severity == .ok)
        facts.installedPolicies[0].contents = ShippedPolicy.text.replacingOccurrences(
            of: "<policy user=\"root\">", with: "<policy user=\"alice\">")
        let changed = DoctorChecks.busPolicy(facts)
        #expect(changed.severity == .unsafe)
        #expect(changed.summary.contains("'<policy user=\"alice\">' instead of '<policy user=\"root\">'"))
        facts = Self.safe()
        facts.installedPolicies[0].mode = 0o666
        #expect(DoctorChecks.busPolicy(facts).severity == .unsafe)
        #expect(DoctorChecks.busPolicy(facts).fix.last == "sudo chmod 0644 /etc/dbus-1/system.d/org.handoff.Handoff1.conf")
        facts.installedPolicies = []
        #expect(DoctorChecks.busPolicy(facts).severity == .warning)
    }

    /// The copy `handoff doctor` compares against is the file `make install` installs.
    @Test func theEmbeddedPolicyIsTheShippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = try String(contentsOf: root.appendingPathComponent("dbus-policy/org.handoff.Handoff1.conf"),
                                 encoding: .utf8)
        #expect(shipped == ShippedPolicy.text)
    }

    // MARK: state directory

    @Test func stateDirectory() {
        var facts = Self.safe()
        #expect(DoctorChecks.stateDirectory(facts).map(\.severity) == [.ok])
        facts.stateDirectory?.mode = 0o755
        facts.trustFile?.mode = 0o644
        let findings = DoctorChecks.stateDirectory(facts)
        #expect(findings.map(\.severity) == [.unsafe, .unsafe])
        #expect(findings.map(\.fix) == [["sudo chmod 0700 /var/lib/handoff"],
                                        ["sudo chmod 0600 /var/lib/handoff/trust.json"]])
        facts = Self.safe()
        facts.stateDirectory?.owner = 1000
        #expect(DoctorChecks.stateDirectory(facts).map(\.severity) == [.warning])
        facts.stateDirectory = nil
        #expect(DoctorChecks.stateDirectory(facts).map(\.severity) == [.info])
    }

    // MARK: the management reply

    @Test func controllerInfoFromAReadInfoReply() throws {
        var reply = [UInt8](repeating: 0, count: 280)
        reply.replaceSubrange(0..<6, with: [0x00, 0x00, 0x00, 0x01, 0xAA, 0x00])   // little endian
        let settings: UInt32 = 1 << 0 | 1 << 9 | 1 << 13
        reply.replaceSubrange(13..<17, with: withUnsafeBytes(of: settings.littleEndian, Array.init))
        reply.replaceSubrange(20..<27, with: Array("laptop!".utf8))
        let info = try #require(ControllerInfo(index: 1, reply: reply))
        #expect(info.name == "hci1")
        #expect(info.address == "00:AA:01:00:00:00")
        #expect(info.settings == [.powered, .le, .privacy])
        #expect(info.settings.names == ["powered", "le", "privacy"])
        #expect(info.localName == "laptop!")
        #expect(ControllerInfo(index: 0, reply: Array(reply.prefix(279))) == nil)
    }

    @Test func severitiesOrder() {
        #expect(Finding.Severity.ok < .info && Finding.Severity.info < .warning && Finding.Severity.warning < .unsafe)
    }
}
