@testable import HandoffBlueZ
import HandoffKit
import Testing

/// The transfer service's channel places (`ChannelTable`): a stranger that opens channels and holds them silent
/// cannot keep the user's own devices, which write at once, off the fast path.
struct ChannelTableTests {
    /// Stands in for an L2CAP channel (the table only holds it).
    struct Channel: Sendable, Equatable { let name: String }

    private func central(_ n: Int) -> PeerAddress { PeerAddress("l2cap:F0:F0:F0:F0:F0:03#\(n)") }

    @Test func aNewcomerTakesThePlaceOfTheOldestSilentChannel() {
        let table = ChannelTable<Channel>()
        for n in 1...4 {
            guard case .added(nil) = table.add(Channel(name: "held\(n)"), as: central(n), limit: 4) else {
                Issue.record("channel \(n) was not added to a table with room")
                return
            }
        }
        table.noteWrite(from: central(1))   // a member's channel: it wrote its REQUEST
        guard case .added(let evicted) = table.add(Channel(name: "member"), as: central(5), limit: 4) else {
            Issue.record("the newcomer was refused while silent channels held places")
            return
        }
        #expect(evicted == Channel(name: "held2"), "the oldest silent one makes room, not the one that wrote")
        #expect(table.channel(of: central(2)) == nil)
        #expect(table.channel(of: central(1)) == Channel(name: "held1"))
        #expect(table.channel(of: central(5)) == Channel(name: "member"))
    }

    @Test func aTableOfChannelsThatAllWroteRefusesTheNewcomer() {
        let table = ChannelTable<Channel>()
        for n in 1...3 {
            _ = table.add(Channel(name: "\(n)"), as: central(n), limit: 3)
            table.noteWrite(from: central(n))
        }
        guard case .full = table.add(Channel(name: "late"), as: central(4), limit: 3) else {
            Issue.record("a table of busy channels took a fourth")
            return
        }
        #expect(table.channel(of: central(4)) == nil)
        #expect(!table.isSilent(central(1)))
    }

    @Test func silenceIsTheChannelsUntilItWrites() {
        let table = ChannelTable<Channel>()
        _ = table.add(Channel(name: "a"), as: central(1), limit: 2)
        #expect(table.isSilent(central(1)))
        table.noteWrite(from: central(1))
        #expect(!table.isSilent(central(1)))
        #expect(!table.isSilent(central(9)), "a channel that is gone is not silent: nothing to close")
    }
}
