import HandoffShared

/// Pairing mode's decisions (the responder's side), without I/O: a desk that answers up to `capacity` devices'
/// exchanges at once, each a central's session with its own `PairingResponder`, until one of them reaches its
/// code. It is told of each pairing write, the tick, the user's answer to the code and a central that could not be
/// reached, and returns what to do. It reads no clock (the time comes with each call) and draws no random number
/// (each exchange's responder comes from `makeResponder`). `HandoffEngine.acceptPairing` carries the actions out.
///
/// The rules: until a code is shown, a device whose bytes do not parse, or that is quiet for `quietLimit`, is told
/// so and dropped alone, and the others carry on; a start beyond `capacity` exchanges is refused and the running
/// ones are not touched. The first exchange to reach its code is the pairing: the others are told and dropped, new
/// starts are refused, and from then on that exchange's end (the code rejected, an error, the finish) is the
/// pairing's end.
struct PairingResponderDesk: Sendable {
    /// Where an exchange's answers go: a central, and the session it named.
    struct Address: Hashable, Sendable, CustomStringConvertible {
        var central: PeerAddress
        var session: Nonce

        var description: String { "\(central) (session \(session))" }
    }

    /// What the driver does, in order. `.finish` and `.fail` end the pairing: nothing after them is carried out.
    enum Action: Sendable, Equatable {
        /// Notify this pairing message to the central, split into fragments that fit `mtu`. If that fails, call
        /// `unreachable(_:_:)`.
        case send([UInt8], to: Address, mtu: Int)
        /// Notify this error frame to the central (its failure changes nothing).
        case refuse(HandoffError, to: Address, mtu: Int)
        /// Show the user the code of this exchange; call `answered(_:)` with the answer.
        case show(code: String, for: Address)
        /// The pairing succeeded: adopt and return this trust state.
        case finish(TrustStore)
        /// The pairing failed.
        case fail(HandoffError)
    }

    static let anotherDevice = "this device is pairing with another device"
    /// What the central is told when the user here says no, and what this side fails with when the central says
    /// its user did (ABORT).
    static let rejected = "the code was rejected on the other device"

    private enum Step: Sendable {
        /// Waiting for message 1 (HELLO), then message 3 (NONCE).
        case hello, nonce
        /// The code is shown; the user has not answered. A whole message the central sends meanwhile (its
        /// CONFIRM) waits here until then; its ABORT (the code rejected there) ends the pairing at once.
        case code(held: [UInt8]?)
        /// The user confirmed: waiting for message 5 (CONFIRM).
        case confirm
    }

    private struct Exchange: Sendable {
        let address: Address
        var mtu: Int
        var responder: PairingResponder
        var fragments = PairingFragments()
        var step = Step.hello
        var heard: HandoffInstant

        func refuse(_ error: HandoffError) -> Action { .refuse(error, to: address, mtu: mtu) }
    }

    private enum Phase: Sendable {
        /// No code shown yet: these exchanges run side by side, in the order they started.
        case answering([Exchange])
        /// This exchange's code was shown: it is the pairing.
        case chosen(Exchange)
        /// Finished or failed; every later call returns no action.
        case ended
    }

    private let capacity: Int
    private let quietLimit: Duration
    private let makeResponder: @Sendable () throws(HandoffError) -> PairingResponder
    private var phase = Phase.answering([])

    /// - Parameters:
    ///   - capacity: how many exchanges run at once before a new start is refused.
    ///   - quietLimit: how long a device whose code is not shown yet may go quiet (`pairingQuietLimit`).
    ///   - makeResponder: a fresh responder for each exchange (a new ephemeral key pair each).
    init(capacity: Int = 8, quietLimit: Duration,
         makeResponder: @escaping @Sendable () throws(HandoffError) -> PairingResponder) {
        self.capacity = capacity
        self.quietLimit = quietLimit
        self.makeResponder = makeResponder
    }

    /// The centrals being answered, in the order they started (the chosen one alone once its code is shown).
    var exchanges: [Address] {
        switch phase {
        case .answering(let exchanges): exchanges.map(\.address)
        case .chosen(let exchange): [exchange.address]
        case .ended: []
        }
    }

    /// Whether the pairing has finished or failed.
    var hasEnded: Bool {
        if case .ended = phase { true } else { false }
    }

    /// When `tick(at:)` next has something to do: the earliest instant an exchange whose code is not shown yet
    /// will have been quiet for `quietLimit`; nil when none waits (arm no timer then).
    var nextDeadline: HandoffInstant? {
        guard case .answering(let exchanges) = phase else { return nil }
        return exchanges.map { $0.heard + quietLimit }.min()
    }

    /// A central wrote a pairing fragment at `now`.
    mutating func received(_ write: HandoffEngine.PairingWrite, at now: HandoffInstant) -> [Action] {
        let address = Address(central: write.central, session: write.session)
        switch phase {
        case .ended:
            return []
        case .chosen(var exchange):
            guard exchange.address == address else {
                return [.refuse(HandoffError(.pairingFailed, Self.anotherDevice), to: address, mtu: write.mtu)]
            }
            exchange.mtu = write.mtu
            exchange.heard = now
            return advanceChosen(exchange, with: write)
        case .answering(var exchanges):
            let index: Int
            if let running = exchanges.firstIndex(where: { $0.address == address }) {
                index = running
            } else {
                guard exchanges.count < capacity else {
                    return [.refuse(HandoffError(.pairingFailed, "this device is answering \(capacity) pairings at "
                                                     + "once; try again in a moment"), to: address, mtu: write.mtu)]
                }
                let responder: PairingResponder
                do throws(HandoffError) {
                    responder = try makeResponder()
                } catch {
                    phase = .ended
                    return [.refuse(error, to: address, mtu: write.mtu), .fail(error)]
                }
                exchanges.append(Exchange(address: address, mtu: write.mtu, responder: responder, heard: now))
                index = exchanges.count - 1
            }
            var exchange = exchanges[index]
            exchange.mtu = write.mtu
            exchange.heard = now
            do throws(HandoffError) {
                guard let message = try exchange.fragments.add(index: write.index, count: write.count,
                                                                chunk: write.chunk) else {
                    exchanges[index] = exchange
                    phase = .answering(exchanges)
                    return []
                }
                switch exchange.step {
                case .hello:
                    let commit = try exchange.responder.receiveHello(message)
                    exchange.step = .nonce
                    exchanges[index] = exchange
                    phase = .answering(exchanges)
                    return [.send(commit, to: address, mtu: exchange.mtu)]
                case .code, .confirm:
                    throw HandoffError(.pairingFailed, "a pairing message arrived out of order")
                case .nonce:
                    let reveal = try exchange.responder.receiveNonce(message)
                    guard let code = exchange.responder.confirmationCode else {
                        throw HandoffError(.pairingFailed, "no code after the exchange")
                    }
                    // This one is the pairing: the others are told and dropped.
                    exchange.step = .code(held: nil)
                    exchanges.remove(at: index)
                    phase = .chosen(exchange)
                    let others = exchanges.map { $0.refuse(HandoffError(.pairingFailed, Self.anotherDevice)) }
                    return [.send(reveal, to: address, mtu: exchange.mtu)] + others + [.show(code: code, for: address)]
                }
            } catch {
                // Only this device's bad start: it alone is dropped.
                exchanges.remove(at: index)
                phase = .answering(exchanges)
                return [exchange.refuse(error)]
            }
        }
    }

    /// The time is `now`: each device whose code is not shown yet and that has been quiet for `quietLimit` is told
    /// and dropped.
    mutating func tick(at now: HandoffInstant) -> [Action] {
        guard case .answering(let exchanges) = phase else { return [] }
        let quiet = exchanges.filter { $0.heard + quietLimit <= now }
        phase = .answering(exchanges.filter { $0.heard + quietLimit > now })
        let timedOut = HandoffError(.remoteApplicationTimedOut,
                                    "this device stopped waiting for the pairing; start again")
        return quiet.map { $0.refuse(timedOut) }
    }

    /// The user answered the shown code: on yes, the central's message held meanwhile is taken up; on no, the
    /// pairing fails.
    mutating func answered(_ confirmed: Bool) -> [Action] {
        guard case .chosen(var exchange) = phase, case .code(let held) = exchange.step else { return [] }
        guard confirmed else { return end(exchange, HandoffError(.pairingFailed, Self.rejected)) }
        exchange.step = .confirm
        guard let held else {
            phase = .chosen(exchange)
            return []
        }
        return confirm(exchange, with: held)
    }

    /// A message to `address` could not be sent (`error`, the central left): before its code, that device alone
    /// is dropped; once its code was shown, the pairing fails.
    mutating func unreachable(_ address: Address, _ error: HandoffError) -> [Action] {
        switch phase {
        case .ended:
            return []
        case .chosen(let exchange):
            guard exchange.address == address else { return [] }
            return end(exchange, error)
        case .answering(var exchanges):
            guard let index = exchanges.firstIndex(where: { $0.address == address }) else { return [] }
            let exchange = exchanges.remove(at: index)
            phase = .answering(exchanges)
            return [exchange.refuse(error)]
        }
    }

    // MARK: - Steps

    private mutating func advanceChosen(_ exchange: Exchange, with write: HandoffEngine.PairingWrite) -> [Action] {
        var exchange = exchange
        do throws(HandoffError) {
            guard let message = try exchange.fragments.add(index: write.index, count: write.count,
                                                            chunk: write.chunk) else {
                phase = .chosen(exchange)
                return []
            }
            if message.count >= 2, message[1] == PairingMessage.abort {
                return end(exchange, HandoffError(.pairingFailed, Self.rejected))
            }
            switch exchange.step {
            case .code(held: nil):
                exchange.step = .code(held: message)
                phase = .chosen(exchange)
                return []
            case .confirm:
                return confirm(exchange, with: message)
            default:
                throw HandoffError(.pairingFailed, "a pairing message arrived out of order")
            }
        } catch {
            return end(exchange, error)
        }
    }

    /// The chosen exchange's CONFIRM, the user having said yes: the pairing finishes or fails.
    private mutating func confirm(_ exchange: Exchange, with message: [UInt8]) -> [Action] {
        do throws(HandoffError) {
            let (finish, store) = try exchange.responder.receiveConfirm(message)
            phase = .ended
            return [.send(finish, to: exchange.address, mtu: exchange.mtu), .finish(store)]
        } catch {
            return end(exchange, error)
        }
    }

    /// The chosen exchange ends the pairing with `error`: its central is told.
    private mutating func end(_ exchange: Exchange, _ error: HandoffError) -> [Action] {
        phase = .ended
        return [exchange.refuse(error), .fail(error)]
    }
}
