/// The checks of `handoff doctor`: pure functions from ``DoctorFacts`` to ``Finding``s, in the order printed.
///
/// What a stranger in radio range learns is judged from what the kernel really does (``ControllerInfo``), not
/// from what main.conf asks for; main.conf only explains a difference. Docs/privacy.md has the reasoning.
public enum DoctorChecks {
    /// The oldest bluetoothd handoff is tested with.
    public static let minimumBlueZ = (major: 5, minor: 66)
    /// The name the fixes suggest for an adapter: says nothing about its owner.
    public static let neutralName = "Linux"

    /// Every finding for `facts`.
    public static func run(_ facts: DoctorFacts) -> [Finding] {
        privacy(facts) + adapterName(facts) + discoverable(facts) + [bluetoothd(facts)] + adapterInUse(facts)
            + [experimental(facts), leCoC(facts), fastLane(facts), busPolicy(facts)] + stateDirectory(facts)
    }

    static let restartBluetooth = "sudo systemctl restart bluetooth"

    private static func leControllers(_ facts: DoctorFacts) -> [ControllerInfo]? {
        guard case .success(let all) = facts.controllers else { return nil }
        return all.filter { $0.settings.contains(.le) }
    }

    // MARK: LE privacy

    /// Whether each LE controller advertises from resolvable private addresses.
    public static func privacy(_ facts: DoctorFacts) -> [Finding] {
        let conf = facts.mainConf
        let asked = conf?.privacyEnabled ?? false
        let confText = conf?["General", "Privacy"].map { "Privacy = \($0)" } ?? "no Privacy line (default off)"
        let confFix = ["in \(facts.mainConfPath), section [General]: Privacy = device", restartBluetooth]
        let why = "Without LE privacy every advertisement, and so every offer of an activity, carries the same " +
            "address wherever the machine goes: anyone can recognise and follow it. With privacy the kernel " +
            "advertises from a resolvable private address that changes; only bonded devices can resolve it, and " +
            "handoff needs no bond (it never identifies peers by address)."
        guard let controllers = leControllers(facts) else {
            if case .failure(let failure) = facts.controllers {
                // Nothing to judge on the air; main.conf still says what bluetoothd will do once it can.
                return [Finding(.privacy, .warning,
                                "cannot read the controllers (\(failure.message)); main.conf: \(confText)",
                                detail: asked ? "main.conf asks for privacy; whether the kernel applies it could " +
                                    "not be checked." : why,
                                fix: asked ? [] : confFix)]
            }
            return []
        }
        if controllers.isEmpty {
            return [Finding(.privacy, .warning, "no Bluetooth LE controller; main.conf: \(confText)",
                            fix: ["bluetoothctl list   (a controller must show up; check rfkill list)"])]
        }
        return controllers.map { controller in
            if controller.settings.contains(.privacy) {
                return Finding(.privacy, .ok, "\(controller.name) advertises from resolvable private addresses " +
                               "(kernel setting privacy; main.conf: \(confText))")
            }
            let address = controller.hasPublicAddress ? "its public address \(controller.address)" :
                "a static random address (it has no public one), the same at every boot"
            if asked {
                return Finding(.privacy, .unsafe,
                               "\(controller.name) advertises from \(address): main.conf says \(confText) but the " +
                               "kernel runs \(controller.name) without privacy (bluetoothd was not restarted, or " +
                               "the controller cannot do it)", detail: why, fix: [restartBluetooth])
            }
            return Finding(.privacy, .unsafe, "\(controller.name) advertises from \(address) (LE privacy off; " +
                           "main.conf: \(confText))", detail: why, fix: confFix)
        }
    }

    // MARK: Adapter name

    /// Whether the name bluetoothd serves to anyone who connects (GAP Device Name) identifies the machine.
    public static func adapterName(_ facts: DoctorFacts) -> [Finding] {
        guard let controllers = leControllers(facts) else { return [] }
        let why = "bluetoothd serves this name as the GAP Device Name to anyone who connects, without pairing; " +
            "handoff's transfer service must accept connections, so a stranger can read it. handoff does not " +
            "rename the adapter itself: the name is global (headphones, phones and settings panels show it too)."
        return controllers.map { controller in
            let name = controller.localName
            let fix = ["sudo busctl set-property org.bluez /org/bluez/\(controller.name) org.bluez.Adapter1 " +
                       "Alias s '\(neutralName)'   (or: bluetoothctl system-alias '\(neutralName)')"]
            if name.isEmpty {
                return Finding(.adapterName, .ok, "\(controller.name) has no name")
            }
            if let matched = facts.identifyingNames.first(where: { identifies(name, $0) }) {
                return Finding(.adapterName, .unsafe,
                               "\(controller.name) is called '\(name)', which gives away '\(matched)'",
                               detail: why, fix: fix)
            }
            return Finding(.adapterName, .info,
                           "\(controller.name) is called '\(name)'; anyone who connects can read it",
                           detail: why + " Keep it a name that says nothing about you.", fix: [])
        }
    }

    /// Whether `name` contains `identifying` (case-insensitively, ignoring separators), for names of three or
    /// more letters.
    static func identifies(_ name: String, _ identifying: String) -> Bool {
        func squeeze(_ text: String) -> String {
            String(String.UnicodeScalarView(text.lowercased().unicodeScalars.filter {
                $0.properties.isAlphabetic || $0.properties.numericType != nil
            }))
        }
        let needle = squeeze(identifying)
        return needle.count >= 3 && squeeze(name).contains(needle)
    }

    // MARK: Discoverable

    /// Whether a controller is discoverable: it then broadcasts its name to anyone scanning.
    public static func discoverable(_ facts: DoctorFacts) -> [Finding] {
        guard case .success(let controllers) = facts.controllers else { return [] }
        let timeout = facts.mainConf?.discoverableTimeout ?? 180
        return controllers.map { controller in
            guard controller.settings.contains(.discoverable) else {
                return Finding(.discoverable, .ok, "\(controller.name) is not discoverable")
            }
            let why = "A discoverable adapter answers every scan with its name '\(controller.localName)' and its " +
                "address. handoff never needs it: paired devices find each other by their sealed beacons."
            if timeout == 0 {
                return Finding(.discoverable, .unsafe, "\(controller.name) is discoverable, with no time limit " +
                               "(DiscoverableTimeout = 0)", detail: why,
                               fix: ["bluetoothctl discoverable off",
                                     "in \(facts.mainConfPath), section [General]: DiscoverableTimeout = 180",
                                     restartBluetooth])
            }
            return Finding(.discoverable, .warning, "\(controller.name) is discoverable (for at most \(timeout) s)",
                           detail: why, fix: ["bluetoothctl discoverable off"])
        }
    }

    // MARK: bluetoothd

    /// The bluetoothd version.
    public static func bluetoothd(_ facts: DoctorFacts) -> Finding {
        guard let daemon = facts.bluetoothd else {
            return Finding(.bluetoothd, .warning, "bluetoothd is not running: handoff cannot reach Bluetooth",
                           fix: ["sudo systemctl enable --now bluetooth"])
        }
        let minimum = "\(minimumBlueZ.major).\(minimumBlueZ.minor)"
        guard let version = daemon.version else {
            return Finding(.bluetoothd, .warning, "bluetoothd runs (\(daemon.commandLine.first ?? "?")) but its " +
                           "version could not be read; handoff needs \(minimum) or newer")
        }
        let parts = version.split(separator: ".").compactMap { Int($0) }
        let recent = parts.count >= 2 && (parts[0], parts[1]) >= (minimumBlueZ.major, minimumBlueZ.minor)
        if recent {
            return Finding(.bluetoothd, .ok, "bluetoothd \(version) (\(minimum) or newer)")
        }
        return Finding(.bluetoothd, .warning, "bluetoothd \(version) is older than \(minimum), the oldest handoff " +
                       "is tested with", detail: "Older versions lack the ATT MTU and advertising behaviour " +
                       "handoff relies on (Docs/bluez.md).", fix: ["sudo apt-get install bluez   (5.66 or newer)"])
    }

    // MARK: Adapter in use

    /// Which adapter the running handoffd uses, and whether it has one; nothing when the daemon was not asked.
    public static func adapterInUse(_ facts: DoctorFacts) -> [Finding] {
        guard let daemon = facts.daemon else { return [] }
        let rule = "Without --adapter handoffd uses BlueZ's default adapter (the lowest-numbered) and keeps to its " +
            "address: while it is away another adapter stands in, and when it is back (under any hciN) it is used " +
            "again. With --adapter it uses that adapter only, by address, and waits while it is away."
        switch daemon {
        case .failure(let failure):
            return [Finding(.adapterInUse, .info, "cannot ask handoffd which adapter it uses: \(failure.message)",
                            detail: rule)]
        case .success(let adapter):
            let choice = adapter.choice.map { " (\($0))" } ?? ""
            guard let name = adapter.name else {
                return [Finding(.adapterInUse, .warning, "handoffd has no adapter\(choice): it neither offers nor " +
                                "sees activities until one is there", detail: rule,
                                fix: ["bluetoothctl list   (plug the adapter in, or check rfkill list)"])]
            }
            let used = name + (adapter.address.map { " \($0)" } ?? "")
            guard adapter.powered else {
                return [Finding(.adapterInUse, .warning, "handoffd uses \(used)\(choice), which is off",
                                detail: "handoffd never switches it on itself after it took it up.",
                                fix: ["bluetoothctl power on   (or: rfkill unblock bluetooth)"])]
            }
            return [Finding(.adapterInUse, .ok, "handoffd uses \(used)\(choice)")]
        }
    }

    /// Whether bluetoothd runs its experimental interfaces.
    public static func experimental(_ facts: DoctorFacts) -> Finding {
        let flag = facts.bluetoothd?.experimentalFlag ?? false
        let conf = facts.mainConf?.experimental ?? false
        guard flag || conf else {
            return Finding(.experimental, .ok, "bluetoothd runs without experimental interfaces (handoff needs none)")
        }
        let source = [flag ? "-E on its command line" : nil, conf ? "Experimental = true in main.conf" : nil]
            .compactMap { $0 }.joined(separator: " and ")
        return Finding(.experimental, .info, "bluetoothd runs with experimental interfaces (\(source))",
                       detail: "handoff needs none of them (without them it assumes 31-byte legacy advertising); " +
                       "they are BlueZ's unstable interfaces, so leave them off unless something else needs them.",
                       fix: [])
    }

    // MARK: LE CoC

    /// Whether the kernel offers LE credit-based L2CAP channels.
    public static func leCoC(_ facts: DoctorFacts) -> Finding {
        switch facts.leCoC {
        case .available(let psm):
            return Finding(.leCoC, .ok, "the kernel offers LE credit-based L2CAP channels (a listening socket got " +
                           "PSM 0x\(String(psm, radix: 16, uppercase: true)))")
        case .unavailable(let step, let error):
            return Finding(.leCoC, .warning, "the kernel offers no LE credit-based L2CAP channels (\(step): \(error))",
                           detail: "handoff cannot use L2CAP channels here; a kernel with Bluetooth (bluetooth " +
                           "module, CONFIG_BT_LE) offers them.", fix: ["sudo modprobe bluetooth"])
        }
    }

    // MARK: Fast lane

    /// Whether big transfers can move to a network both machines share (Docs/protocol.md §9): this machine needs
    /// an address to offer and a TCP socket that can listen. Whether the peer reaches it is up to the network
    /// between them, which no probe on one machine can know.
    public static func fastLane(_ facts: DoctorFacts) -> Finding {
        let lane = facts.fastLane
        let unreachable = "Whether the peer reaches it depends on the network between the two: a firewall that " +
            "drops incoming TCP, or a Wi-Fi that isolates its clients, keeps shares on Bluetooth (slower, nothing " +
            "fails). handoffd --no-fast-lane turns the lane off."
        switch lane.listener {
        case .failure(let failure):
            return Finding(.fastLane, .warning, "no TCP socket can listen here (\(failure.message)): big transfers " +
                           "stay on Bluetooth",
                           detail: "The fast lane needs a listening TCP socket on a port the kernel picks, for the " +
                           "length of one offer.", fix: [])
        case .success(let port):
            guard !lane.addresses.isEmpty else {
                return Finding(.fastLane, .info, "no network to share: no interface has an address a peer could " +
                               "reach (loopback and link-local are never offered); big transfers stay on Bluetooth",
                               detail: "When both machines are on one LAN, VPN or Wi-Fi Direct group, big " +
                               "transfers move there by themselves; nothing is joined or created for it.", fix: [])
            }
            return Finding(.fastLane, .ok, "big transfers can move to a network both machines share: this machine " +
                           "would offer \(lane.addresses.joined(separator: ", ")) (a listening socket got port " +
                           "\(port))", detail: unreachable, fix: [])
        }
    }

    // MARK: Bus policy

    /// Whether the installed bus policy is the one handoff ships, and only root can change it.
    public static func busPolicy(_ facts: DoctorFacts) -> Finding {
        let install = "sudo install -m 0644 -o root -g root dbus-policy/org.handoff.Handoff1.conf " +
            "/etc/dbus-1/system.d/   (from the source tree; or sudo make install)"
        guard !facts.installedPolicies.isEmpty else {
            return Finding(.busPolicy, .warning, "no bus policy for org.handoff.Handoff1 at \(facts.policyPath)",
                           detail: "The system bus then lets nobody own the daemon's name: handoffd cannot start " +
                           "on the system bus.", fix: [install])
        }
        for file in facts.installedPolicies {
            if file.owner != 0 || file.mode & 0o022 != 0 {
                return Finding(.busPolicy, .unsafe, "\(file.path) can be changed by a user other than root " +
                               "(owner uid \(file.owner), mode \(octal(file.mode)))",
                               detail: "Whoever can change it can let any user own org.handoff.Handoff1, pose as " +
                               "the daemon and read the notes other users offer.",
                               fix: ["sudo chown root:root \(file.path)", "sudo chmod 0644 \(file.path)"])
            }
            guard let contents = file.contents else {
                return Finding(.busPolicy, .warning, "\(file.path) cannot be read", fix: ["ls -l \(file.path)"])
            }
            if contents != facts.shippedPolicy {
                return Finding(.busPolicy, .unsafe, "\(file.path) differs from the policy handoff ships " +
                               "(\(firstDifference(contents, facts.shippedPolicy)))",
                               detail: "The shipped policy lets only root own org.handoff.Handoff1; a changed one " +
                               "may let another user pose as the daemon.", fix: [install])
            }
        }
        let paths = facts.installedPolicies.map(\.path).joined(separator: ", ")
        return Finding(.busPolicy, .ok, "\(paths): the shipped policy (only root may own org.handoff.Handoff1)")
    }

    static func firstDifference(_ a: String, _ b: String) -> String {
        let left = a.split(separator: "\n", omittingEmptySubsequences: false)
        let right = b.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? String(left[index]) : "end of file"
            let r = index < right.count ? String(right[index]) : "end of file"
            if l != r { return "line \(index + 1): '\(l.trimmed)' instead of '\(r.trimmed)'" }
        }
        return "identical lines"
    }

    // MARK: State directory

    /// Whether the state directory and its trust store (secret keys) are private to their owner.
    public static func stateDirectory(_ facts: DoctorFacts) -> [Finding] {
        let path = facts.stateDirectoryPath
        guard let directory = facts.stateDirectory else {
            return [Finding(.stateDirectory, .info, "\(path) does not exist yet (handoffd creates it, mode 0700, " +
                            "at its first start)")]
        }
        var findings: [Finding] = []
        let why = "It holds the group key and this device's secret key: whoever reads it can read and forge every " +
            "activity of your devices."
        if directory.mode & 0o077 != 0 {
            findings.append(Finding(.stateDirectory, .unsafe, "\(path) is mode \(octal(directory.mode)): other " +
                                    "users may enter it", detail: why, fix: ["sudo chmod 0700 \(path)"]))
        }
        if let trust = facts.trustFile, trust.mode & 0o077 != 0 {
            findings.append(Finding(.stateDirectory, .unsafe, "\(trust.path) is mode \(octal(trust.mode)): other " +
                                    "users may read it", detail: why, fix: ["sudo chmod 0600 \(trust.path)"]))
        }
        if directory.owner != 0 {
            findings.append(Finding(.stateDirectory, .warning, "\(path) belongs to uid \(directory.owner), not root",
                                    detail: "Right only if handoffd runs as that user; otherwise that user can " +
                                    "replace the trust store.", fix: ["sudo chown -R root:root \(path)"]))
        }
        if findings.isEmpty {
            let trust = facts.trustFile.map { ", \($0.path) mode \(octal($0.mode))" } ?? ""
            findings.append(Finding(.stateDirectory, .ok, "\(path) is mode \(octal(directory.mode)), owned by " +
                                    (directory.owner == 0 ? "root" : "uid \(directory.owner)") + trust))
        }
        return findings
    }

    static func octal(_ mode: UInt32) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}

extension String {
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
