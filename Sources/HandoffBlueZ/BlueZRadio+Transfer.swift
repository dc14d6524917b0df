import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import L2CAP
import HandoffShared

extension BlueZRadio {
    /// Registers the transfer service (a GATT application under `/org/handoff/…`) on the adapter.
    /// - Throws: `RadioError` `.failed` when a service is already open on this radio or bluetoothd refuses it.
    public func openTransferService() async throws -> any TransferService {
        guard !serviceOpen else { throw RadioError(.failed, "the transfer service is already open on \(adapterName)") }
        serviceOpen = true
        do {
            let name = adapterName
            let log = options.log
            let notice = options.notice ?? options.log
            return try await BlueZTransferService.open(
                on: adapter, bluez: bluez, options: options, traffic: leases.traffic,
                log: { text in log?("radio \(name): \(text)") },
                notice: { text in notice?("radio \(name): \(text)") },
                onClose: { [weak self] in await self?.serviceClosed() })
        } catch {
            serviceOpen = false
            throw RadioError(error, while: "cannot register the transfer service on \(adapterName)")
        }
    }

    func serviceClosed() {
        serviceOpen = false
    }

    /// Connects to `peer` (a device path from a `ScanEvent`, or a Bluetooth address seen by this adapter) and
    /// returns the link: an L2CAP channel to the PSM the peer publishes, unless `options.transport` is `.gatt`,
    /// else the GATT characteristics, subscribed. The link's `transport` says which, and why it fell back.
    /// - Throws: `RadioError` `.unreachable` when the device is unknown, cannot be connected or serves no transfer
    ///   service (or, with `.l2cap`, no channel); `.disconnected` when it drops while subscribing.
    ///
    /// A link to the same device that is still open or closing is waited for, never reused (`DeviceLeases`).
    /// A PSM read once is remembered for the device: the next link opens the channel at once, and the kernel
    /// makes the LE connection itself, with no GATT connection, discovery or subscription to wait for; a refused
    /// or failed channel forgets it and reads it again over GATT. A channel refused on the connection bluetoothd
    /// made is tried once more on a connection of its own before the link falls back to GATT.
    ///
    /// When the PSM read or the subscription is refused because bluetoothd's cached attribute table of the peer is
    /// stale (see `StaleAttributeCache`), the device is disconnected and removed, which drops the cache, and the
    /// connection is made once more from the peer's next advertisement, with a fresh service discovery.
    public func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let path = try devicePath(of: peer)
        let device = await bluez.device(at: path)
        let name = adapterName
        let log = options.log
        let say: @Sendable (String) -> Void = { text in log?("radio \(name): \(text)") }
        let waiting = options.clock.now
        if leases.isHeld(path) { say("\(peer): waiting for the previous link to it to close") }
        await leases.acquire(path)
        let lease = DeviceLease(path: path, leases: leases)
        var setup: [LinkSetupPhase] = []
        let waited = options.clock.duration(since: waiting)
        if waited > .milliseconds(5) { setup.append(LinkSetupPhase("previous-link", waited)) }
        do {
            return try await openLink(to: peer, device: device, lease: lease, setup: setup, say: say)
        } catch {
            lease.release()
            throw error
        }
    }

    private func openLink(to peer: PeerAddress, device: Device1, lease: DeviceLease, setup: [LinkSetupPhase],
                          say: @escaping @Sendable (String) -> Void) async throws -> any RadioLink {
        var setup = setup
        let wantChannel = options.transport != .gatt
        let published = knownPSMs[device.path]
        if wantChannel, let psm = published {
            let started = options.clock.now
            switch await openChannelOnOwnConnection(to: device, psm: psm) {
            case .success(let channel):
                say("\(peer): channel opened on the known PSM 0x\(String(psm, radix: 16)), no GATT needed")
                return BlueZChannelLink(peer: peer, channel: channel, device: device, lease: lease,
                                        setup: setup + [LinkSetupPhase("channel",
                                                                       options.clock.duration(since: started))],
                                        linger: options.channelLinger, clock: options.clock, log: say)
            case .failure(let error):
                knownPSMs[device.path] = nil
                say("\(peer): the channel to the known PSM 0x\(String(psm, radix: 16)) failed (\(ErrorChain.text(error))); "
                    + "reading the PSM again over GATT")
            }
        }
        if staleCaches.take(device.path) {
            say("\(peer): a write showed the cached attribute table to be stale; forgetting the device and "
                + "connecting afresh")
            try? await device.disconnect(timeout: .seconds(5))
            try? await adapter.removeDevice(device)
        }
        let changes = try await BlueZRadioLink.watch(device, peer: peer)
        setup += try await establish(peer, device: device, say: say)
        do {
            return try await resolvedLink(to: peer, device: device, lease: lease, changes: changes, setup: setup,
                                          published: published,
                                          say: say)
        } catch let stale as StaleAttributeCache {
            say("\(peer): the cached attribute table looks stale (\(stale.underlying)); forgetting the device and "
                + "connecting afresh")
            try? await device.disconnect(timeout: .seconds(5))
            try? await adapter.removeDevice(device)
        }
        let again = try await BlueZRadioLink.watch(device, peer: peer)
        setup += try await establish(peer, device: device, say: say)
        do {
            return try await resolvedLink(to: peer, device: device, lease: lease, changes: again, setup: setup,
                                          published: nil,
                                          say: say)
        } catch let stale as StaleAttributeCache {
            // bluetoothd before 5.87 keeps the cached table of a peer that advertises no name through RemoveDevice
            // (Docs/reliability.md), so this is what a stale cache looks like there.
            throw RadioError(stale.underlying, while: "\(peer)'s cached attribute table is still refused after the "
                                 + "device was forgotten (bluetoothd before 5.87 keeps it)", fallback: .disconnected)
        }
    }

    /// On a connection whose services resolved: the channel to the PSM the peer publishes, else the GATT link.
    /// - Throws: `StaleAttributeCache` when the PSM read or the subscription is refused in a way that says
    ///   bluetoothd's cached attribute table of the peer is out of date. The PSM read is the first use of a
    ///   handle that a stale table gets wrong: bluetoothd 5.66 skips the discovery when the peer's Database Hash
    ///   matches the cached one, and the hash it keeps can be newer than the services it kept (a rediscovery cut
    ///   short stores the hash first), so the request characteristic's handle may name another attribute. Found
    ///   here, before the link is handed out, the engine's first write goes to the right handle (issue 14 §2).
    ///
    /// A channel refused on the connection bluetoothd made is tried once more on a connection the kernel makes for
    /// it (``openChannelOnOwnConnection(to:psm:)``). Linux 6.1 can refuse it with "Source CID already allocated"
    /// when both bluetoothds opened their EATT channels at once: the two kernels' signalling identifiers collide,
    /// one EATT response is matched to the wrong channel, and the peer keeps a channel the refusal names. Two
    /// machines that have met before do this on most connections; a connection the kernel makes has no EATT.
    /// Only when that is refused too does the link fall back to GATT, on a connection made afresh.
    ///
    /// `published` is the PSM the peer published before. A table without the PSM characteristic then says that
    /// bluetoothd read the peer's services while they were incomplete (the peer's bluetoothd had just restarted
    /// and not yet taken our application back), not that the peer stopped serving channels: it is treated as a
    /// stale table, once, rather than as a reason to fall back to GATT on a link that may not be ready for it either.
    /// So is a table without the transfer service at all.
    private func resolvedLink(to peer: PeerAddress, device: Device1, lease: DeviceLease, changes: ConnectionChanges,
                              setup: [LinkSetupPhase], published: UInt16?,
                              say: @escaping @Sendable (String) -> Void) async throws
        -> any RadioLink {
        var setup = setup
        var changes = changes
        let wantChannel = options.transport != .gatt
        var transport = LinkTransport.gatt
        if wantChannel {
            let started = options.clock.now
            let psm = try await readPSM(of: device)
            setup.append(LinkSetupPhase("psm", options.clock.duration(since: started)))
            if let psm {
                let opening = options.clock.now
                switch await openChannel(to: device, psm: psm) {
                case .success(let channel):
                    knownPSMs[device.path] = psm
                    return BlueZChannelLink(peer: peer, channel: channel, device: device, lease: lease,
                                            setup: setup + [LinkSetupPhase("channel",
                                                                           options.clock.duration(since: opening))],
                                            linger: options.channelLinger, clock: options.clock, log: say)
                case .failure(let error) where error.kind == .refused:
                    say("\(peer): the channel to PSM 0x\(String(psm, radix: 16)) was refused on the connection "
                        + "bluetoothd made (\(ErrorChain.text(error))); trying it on a connection of its own")
                    try? await device.disconnect(timeout: .seconds(5))
                    let again = options.clock.now
                    switch await openChannelOnOwnConnection(to: device, psm: psm) {
                    case .success(let channel):
                        knownPSMs[device.path] = psm
                        return BlueZChannelLink(
                            peer: peer, channel: channel, device: device, lease: lease,
                            setup: setup + [LinkSetupPhase("refused", opening.duration(to: again)),
                                            LinkSetupPhase("channel", options.clock.duration(since: again))],
                            linger: options.channelLinger, clock: options.clock, log: say)
                    case .failure(let second):
                        transport = LinkTransport(fallback: .refused,
                                                  detail: "PSM 0x\(String(psm, radix: 16)): \(ErrorChain.text(error)); again: \(second)")
                        // The GATT link needs the connection back, and a watch that has not seen it drop.
                        changes = try await BlueZRadioLink.watch(device, peer: peer)
                        setup += try await establish(peer, device: device, say: say)
                    }
                case .failure(let error):
                    let reason: LinkTransport.Fallback = switch error.kind {
                    case .refused: .refused
                    case .unsupported: .unsupported
                    default: .failed
                    }
                    transport = LinkTransport(fallback: reason, detail: "PSM 0x\(String(psm, radix: 16)): \(ErrorChain.text(error))")
                }
            } else if let published {
                throw StaleAttributeCache(underlying: BlueZError(
                    .att(.attributeNotFound), "\(peer) published PSM 0x\(String(published, radix: 16)) before and now "
                        + "has no PSM characteristic in bluetoothd's table of it"))
            } else if await !device.services().contains(BlueZTransferService.serviceUUID) {
                // Its beacon says it runs handoff, and every build serves the transfer service: bluetoothd read
                // its table before the service was back (its bluetoothd had just restarted).
                throw StaleAttributeCache(underlying: BlueZError(
                    .att(.attributeNotFound), "\(peer) has no transfer service in bluetoothd's table of it"))
            } else {
                transport = LinkTransport(fallback: .notPublished, detail: "\(peer) publishes no PSM characteristic")
            }
            guard options.transport == .auto else {
                throw RadioError(.unreachable, "\(peer): no L2CAP channel (\(transport.detail)) and "
                                     + "HANDOFF_TRANSPORT=l2cap allows no GATT fallback")
            }
            say("\(peer): falling back to GATT (\(transport.fallback?.rawValue ?? "?"): \(transport.detail))")
        }
        return try await BlueZRadioLink.subscribe(to: peer, device: device, bluez: bluez, options: options,
                                                  changes: changes, lease: lease, staleCaches: staleCaches,
                                                  transport: transport, setup: setup, log: say)
    }

    /// ``BlueZRadioLink/establish(_:device:bluez:options:nudge:connecting:log:)``, scanning meanwhile for a peer bluetoothd
    /// does not know yet (``searchForUnknownPeer()``), and leaving no discovery running that the radio did not.
    private func establish(_ peer: PeerAddress, device: Device1,
                           say: @escaping @Sendable (String) -> Void) async throws -> [LinkSetupPhase] {
        peerSearchers += 1
        let phases: [LinkSetupPhase]
        do {
            phases = try await BlueZRadioLink.establish(
                peer, device: device, bluez: bluez, options: options,
                nudge: { [weak self] in await self?.searchForUnknownPeer() },
                connecting: { [weak self] in await self?.nudgeDiscoveryForConnect() }, log: say)
        } catch {
            await endPeerSearch()
            throw error
        }
        await endPeerSearch()
        return phases
    }

    /// Scans afresh while a connect waits for a peer bluetoothd does not know: a controller (btvirt) may report
    /// an advertiser only when scanning starts. The radio's own discovery, when it has one, is restarted;
    /// otherwise (not scanning, or scanning with the advertisement monitor) a discovery is started for the wait
    /// and stopped by ``endPeerSearch()``, so a continue never leaves the adapter scanning.
    func searchForUnknownPeer() async {
        if discovery != nil, case .discovery = scanningState {
            await renewDiscovery(because: "a peer bluetoothd does not know")
        } else if let peerSearch {
            try? await peerSearch.restartDiscovery()
        } else if peerSearchers > 0 {
            let search = try? await adapter.scan(filter: Self.discoveryFilter)
            if let search { Task { for await _ in search {} } }  // only the scanning is wanted, not its events
            // The connect may have finished while StartDiscovery was under way.
            if peerSearchers > 0, peerSearch == nil { peerSearch = search } else { await search?.stopAndWait() }
        }
    }

    /// ``BlueZRadioOptions/connectNudge``, while bluetoothd or (on a channel to a known PSM) the kernel makes an
    /// LE connection: restart the radio's own discovery, so the pending connection meets the peer's next
    /// advertising report at once. Nothing when the radio scans with the monitor or not at all: the kernel then
    /// scans for the connection afresh by itself.
    func nudgeDiscoveryForConnect() async {
        if discovery != nil, case .discovery = scanningState {
            await renewDiscovery(because: "a pending connection")
        } else if let peerSearch {
            try? await peerSearch.restartDiscovery()
        } else {
            return
        }
        debug("discovery restarted for a pending connection")
    }

    /// One connect has stopped waiting for its peer; the last one stops the discovery started for them.
    private func endPeerSearch() async {
        peerSearchers -= 1
        guard peerSearchers == 0, let search = peerSearch else { return }
        peerSearch = nil
        await search.stopAndWait()
    }

    /// The PSM the peer serves (little-endian `uint16` in the PSM characteristic), nil when it serves none.
    /// The characteristic follows the data characteristic in the table, so the mirror may add it a moment after
    /// `establish` saw the other two. The mirror applies bluetoothd's signals in order, and bluetoothd exports
    /// every attribute before it sets `ServicesResolved`, so once the mirror shows that flag a missing PSM
    /// characteristic is really missing; either is waited for up to half a second.
    /// - Throws: `StaleAttributeCache` when the read is refused with an ATT error a stale cache explains.
    private func readPSM(of device: Device1) async throws(StaleAttributeCache) -> UInt16? {
        let path = device.path
        let wanted = BlueZTransferService.psmUUID.string
        try? await bluez.wait(timeout: .milliseconds(500), "the PSM characteristic of \(path)") { tree in
            if (try? tree.properties(path, BlueZNames.device1)?["ServicesResolved"]?.get(Bool.self)) == true {
                return true
            }
            return tree.paths(with: BlueZNames.gattCharacteristic1).contains { characteristic in
                path.isAncestor(of: characteristic)
                    && (try? tree.properties(characteristic, BlueZNames.gattCharacteristic1)?["UUID"]?
                        .get(String.self))?.lowercased() == wanted
            }
        }
        guard let characteristic = try? await device.characteristic(BlueZTransferService.psmUUID,
                                                                    service: BlueZTransferService.serviceUUID)
        else { return nil }
        let value: Data
        do {
            value = try await characteristic.read()
        } catch {
            // The characteristic is readable by every build that publishes it: a refusal means the cached handle
            // names another attribute.
            if StaleAttributeCache.explains(error) { throw StaleAttributeCache(underlying: error) }
            return nil
        }
        guard value.count == 2 else { return nil }
        let psm = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
        return psm == 0 ? nil : psm
    }

    /// Opens a channel to `device` on `psm` while no connection to it is up: the kernel makes the LE connection,
    /// with the radio's discovery nudged meanwhile (``BlueZRadioOptions/connectNudge``).
    private func openChannelOnOwnConnection(to device: Device1, psm: UInt16) async -> Result<L2CAPChannel, L2CAPError> {
        await BlueZRadioLink.nudging(after: options.connectNudge, clock: options.clock,
                                     { [weak self] in await self?.nudgeDiscoveryForConnect() }) {
            await openChannel(to: device, psm: psm)
        }
    }

    /// Opens a channel from this adapter to `device` on `psm`, with the device's address type.
    private func openChannel(to device: Device1, psm: UInt16) async -> Result<L2CAPChannel, L2CAPError> {
        guard let local = await localChannelAddress() else {
            return .failure(L2CAPError(.failed, message: "the address of \(adapterName) is unknown"))
        }
        guard let properties = try? await device.properties(),
              let remote = L2CAPAddress(properties.address.string, addressType: properties.addressType ?? "public")
        else {
            return .failure(L2CAPError(.failed, message: "the address of \(device.path) is unknown"))
        }
        do {
            return .success(try await L2CAPChannel.connect(from: local, to: remote, psm: psm,
                                                           receiveMTU: min(max(options.channelMTU, 23), 65535),
                                                           timeout: options.channelConnectTimeout))
        } catch {
            return .failure(error)
        }
    }

    /// This adapter's address and address type, as a channel's source.
    private func localChannelAddress() async -> L2CAPAddress? {
        if let localAddress { return localAddress }
        guard let address = await bluez.adapters().first(where: { $0.path == adapter.path })?.address?.string else {
            return nil
        }
        let type = await adapter.addressTypeNow() ?? "public"
        localAddress = L2CAPAddress(address, addressType: type)
        return localAddress
    }

    /// The Device1 path for a peer: its own text when it is a path under this adapter, or the path BlueZ gives
    /// the address under this adapter.
    func devicePath(of peer: PeerAddress) throws -> ObjectPath {
        if let path = ObjectPath(rawValue: peer.rawValue), peer.rawValue.hasPrefix("/") {
            guard adapter.path.isAncestor(of: path) else {
                throw RadioError(.unreachable, "\(peer) is not a device of \(adapterName)")
            }
            return path
        }
        guard let address = BluetoothAddress(peer.rawValue),
              let path = ObjectPath(rawValue: "\(adapter.path.rawValue)/\(address.pathElement)") else {
            throw RadioError(.unreachable, "\(peer) is neither a BlueZ device path nor a Bluetooth address")
        }
        return path
    }
}
