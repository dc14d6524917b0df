import Foundation
import HandoffClient
import HandoffTesting
import Testing

/// A third machine that pairs with one machine of a group joins the whole group: it learns every member. `handoff
/// pair` must still name the machine it exchanged codes with, not whichever member the group listed first (seen in
/// the nine-VM run: desk8 paired with the laptop and said "paired with 'desk1'").
@Suite(.serialized) struct JoiningAGroupTests {
    @Test func theNewMachineNamesTheOneItPairedWithNotAnotherMember() async throws {
        let machines = try await TwoMachines.make()   // laptop and desktop, paired
        let studio = try await Machine(name: "studio", ether: machines.ether, configure: { _ in })
        defer { Task { await machines.shutDown(); await studio.shutDown() } }
        let laptop = try await machines.laptop.client()
        let joining = try await studio.client()
        async let fromLaptop = laptop.pair { _ in true }
        async let fromStudio = joining.pair { _ in true }
        let (laptopSaw, studioSaw) = try await (fromLaptop, fromStudio)
        #expect(laptopSaw.name == "studio")
        #expect(studioSaw.name == "laptop", "the studio paired with the laptop but was told '\(studioSaw.name)'")
        // It did join the group: the desktop, which took no part, is one of its devices too.
        #expect(Set(try await joining.devices().map(\.name)) == ["laptop", "desktop"])
    }
}
