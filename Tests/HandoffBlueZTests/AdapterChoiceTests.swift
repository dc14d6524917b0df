import BlueZ
import HandoffBlueZ
import HandoffShared
import Testing

/// The rule that picks the adapter (``AdapterChoice``), decided from adapters present and explicit instants: no
/// BlueZ, no clock. Each test tells the story a user lives through: a dongle unplugged and plugged in again under
/// another index, a second adapter, bluetoothd restarting.
@Suite("Which adapter handoffd uses")
struct AdapterChoiceTests {
    static let a = BluetoothAddress("00:AA:01:00:00:00")
    static let b = BluetoothAddress("00:AA:01:01:00:01")
    static let c = BluetoothAddress("00:AA:01:02:00:02")
    /// bluetoothd's unique bus name, and the one it has after a restart.
    static let bluetoothd = ":1.4"
    static let restarted = ":1.9"

    static func adapter(_ name: String, _ address: BluetoothAddress?, on powered: Bool = true)
        -> AdapterChoice.Adapter {
        AdapterChoice.Adapter(name: name, address: address, powered: powered)
    }

    static func at(_ seconds: Int) -> HandoffInstant { HandoffInstant(offset: .seconds(seconds)) }

    @Test("without --adapter the first is BlueZ's default, the lowest-numbered, even when it is off")
    func firstIsBlueZsDefault() {
        var choice = AdapterChoice(request: .automatic)
        let present = [Self.adapter("hci10", Self.c), Self.adapter("hci1", Self.b), Self.adapter("hci2", Self.a,
                                                                                                 on: false)]
        #expect(choice.decide(present: present, bluetoothd: Self.bluetoothd, now: Self.at(0)) == .use(present[1]))
        #expect(choice.preferred == Self.b)
        #expect(choice.summary == "BlueZ's default")
    }

    @Test("with no adapter it waits, and takes the first that comes at once")
    func waitsForTheFirst() {
        var choice = AdapterChoice(request: .automatic)
        #expect(choice.decide(present: [], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .stay)
        #expect(choice.summary == "waiting for an adapter")
        let dongle = Self.adapter("hci0", Self.a)
        #expect(choice.decide(present: [dongle], bluetoothd: Self.bluetoothd, now: Self.at(60)) == .use(dongle))
    }

    @Test("an adapter appearing, or being switched off, moves nothing")
    func noFlappingWhileTheAdapterStays() {
        var choice = AdapterChoice(request: .automatic)
        let hci1 = Self.adapter("hci1", Self.b)
        #expect(choice.decide(present: [hci1], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .use(hci1))
        let hci0 = Self.adapter("hci0", Self.a)
        #expect(choice.decide(present: [hci0, hci1], bluetoothd: Self.bluetoothd, now: Self.at(1)) == .stay)
        #expect(choice.decide(present: [hci0, Self.adapter("hci1", Self.b, on: false)], bluetoothd: Self.bluetoothd,
                              now: Self.at(100)) == .stay)
    }

    @Test("the adapter in use goes away: let go at once, another stands in after the settle time")
    func anotherStandsIn() {
        var choice = AdapterChoice(request: .automatic, settle: .seconds(2))
        let hci0 = Self.adapter("hci0", Self.a)
        let hci1 = Self.adapter("hci1", Self.b, on: false)
        let hci2 = Self.adapter("hci2", Self.c)
        #expect(choice.decide(present: [hci0, hci1, hci2], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .use(hci0))
        #expect(choice.decide(present: [hci1, hci2], bluetoothd: Self.bluetoothd, now: Self.at(10)) == .release)
        #expect(choice.current == nil)
        #expect(choice.decide(present: [hci1, hci2], bluetoothd: Self.bluetoothd, now: Self.at(10)) == .wait(until: Self.at(12)))
        #expect(choice.decide(present: [hci1, hci2], bluetoothd: Self.bluetoothd, now: Self.at(11)) == .wait(until: Self.at(12)))
        // A powered adapter stands in before a lower-numbered one that is off.
        #expect(choice.decide(present: [hci1, hci2], bluetoothd: Self.bluetoothd, now: Self.at(12)) == .use(hci2))
        #expect(choice.summary == "in place of 00:AA:01:00:00:00 (away)")
    }

    @Test("the preferred adapter back under another index is used again, after the settle time")
    func thePreferredComesBack() {
        var choice = AdapterChoice(request: .automatic, settle: .seconds(2))
        let dongle = Self.adapter("hci0", Self.a)
        let builtIn = Self.adapter("hci1", Self.b)
        _ = choice.decide(present: [dongle, builtIn], bluetoothd: Self.bluetoothd, now: Self.at(0))
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(5)) == .release)
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(5)) == .wait(until: Self.at(7)))
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(7)) == .use(builtIn))
        let back = Self.adapter("hci2", Self.a)
        #expect(choice.decide(present: [builtIn, back], bluetoothd: Self.bluetoothd, now: Self.at(30))
                == .wait(until: Self.at(32)))
        #expect(choice.decide(present: [builtIn, back], bluetoothd: Self.bluetoothd, now: Self.at(32)) == .use(back))
        // hci1 is BlueZ's default now; status must not call hci2 that.
        #expect(choice.summary == "the first one used (BlueZ's default is now hci1)")
        #expect(choice.decide(present: [back], bluetoothd: Self.bluetoothd, now: Self.at(40)) == .stay)
        #expect(choice.summary == "BlueZ's default")
        #expect(choice.preferred == Self.a)
    }

    @Test("an adapter that comes and goes again within the settle time is never taken")
    func shortLivedAdaptersAreNotTaken() {
        var choice = AdapterChoice(request: .automatic, settle: .seconds(2))
        let builtIn = Self.adapter("hci1", Self.b)
        _ = choice.decide(present: [Self.adapter("hci0", Self.a), builtIn], bluetoothd: Self.bluetoothd, now: Self.at(0))
        _ = choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(5))   // let go
        _ = choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(5))   // settling
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(7)) == .use(builtIn))
        let flicker = Self.adapter("hci2", Self.a)
        #expect(choice.decide(present: [builtIn, flicker], bluetoothd: Self.bluetoothd, now: Self.at(10))
                == .wait(until: Self.at(12)))
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(11)) == .stay)
        #expect(choice.decide(present: [builtIn], bluetoothd: Self.bluetoothd, now: Self.at(12)) == .stay)
        // Back once more: the settle time starts afresh.
        #expect(choice.decide(present: [builtIn, flicker], bluetoothd: Self.bluetoothd, now: Self.at(13))
                == .wait(until: Self.at(15)))
    }

    @Test("while bluetoothd is away the adapter in use is kept, and kept when bluetoothd is back with it")
    func bluetoothdRestarts() {
        var choice = AdapterChoice(request: .automatic)
        let hci0 = Self.adapter("hci0", Self.a)
        let hci1 = Self.adapter("hci1", Self.b)
        _ = choice.decide(present: [hci0, hci1], bluetoothd: Self.bluetoothd, now: Self.at(0))
        #expect(choice.decide(present: [], bluetoothd: nil, now: Self.at(1)) == .stay)
        #expect(choice.current == hci0)
        // bluetoothd is back and has registered hci1 but not yet hci0: hci0 has the settle time to come back, and
        // hci1 is not taken meanwhile.
        let hci1Off = Self.adapter("hci1", Self.b, on: false)
        #expect(choice.decide(present: [], bluetoothd: Self.restarted, now: Self.at(8)) == .wait(until: Self.at(10)))
        #expect(choice.decide(present: [hci1Off], bluetoothd: Self.restarted, now: Self.at(9))
                == .wait(until: Self.at(11)))
        #expect(choice.decide(present: [hci0, hci1], bluetoothd: Self.restarted, now: Self.at(9)) == .stay)
        #expect(choice.decide(present: [hci0, hci1], bluetoothd: Self.restarted, now: Self.at(11)) == .stay)
        #expect(choice.current == hci0)
        // Under that bluetoothd, hci0 going away is hci0 unplugged: let go at once.
        #expect(choice.decide(present: [hci1], bluetoothd: Self.restarted, now: Self.at(20)) == .release)
    }

    @Test("bluetoothd back without the adapter in use: after the settle time it is let go, or another stands in")
    func bluetoothdBackWithoutTheAdapter() {
        var named = AdapterChoice(request: .named("hci0"))
        _ = named.decide(present: [Self.adapter("hci0", Self.a)], bluetoothd: Self.bluetoothd, now: Self.at(0))
        _ = named.decide(present: [], bluetoothd: nil, now: Self.at(1))
        let hci1 = Self.adapter("hci1", Self.b)
        #expect(named.decide(present: [hci1], bluetoothd: Self.restarted, now: Self.at(5)) == .wait(until: Self.at(7)))
        #expect(named.decide(present: [hci1], bluetoothd: Self.restarted, now: Self.at(7)) == .release)

        var automatic = AdapterChoice(request: .automatic)
        _ = automatic.decide(present: [Self.adapter("hci0", Self.a)], bluetoothd: Self.bluetoothd, now: Self.at(0))
        #expect(automatic.decide(present: [hci1], bluetoothd: Self.restarted, now: Self.at(5))
                == .wait(until: Self.at(7)))
        #expect(automatic.decide(present: [hci1], bluetoothd: Self.restarted, now: Self.at(7)) == .use(hci1))
    }

    @Test("bluetoothd back with every adapter at once: the one in use carries on")
    func bluetoothdBackWithTheSameAdapter() {
        var choice = AdapterChoice(request: .automatic)
        let hci0 = Self.adapter("hci0", Self.a)
        _ = choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(0))
        _ = choice.decide(present: [], bluetoothd: nil, now: Self.at(1))
        #expect(choice.decide(present: [Self.adapter("hci0", Self.a, on: false)], bluetoothd: Self.restarted,
                              now: Self.at(5)) == .stay)
    }

    @Test("--adapter by name: that adapter, then its address wherever it comes back; never another")
    func namedByName() {
        var choice = AdapterChoice(request: .named("hci1"))
        let hci0 = Self.adapter("hci0", Self.a)
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .stay)
        #expect(choice.summary == "waiting for --adapter hci1")
        let hci1 = Self.adapter("hci1", Self.b)
        #expect(choice.decide(present: [hci0, hci1], bluetoothd: Self.bluetoothd, now: Self.at(1)) == .use(hci1))
        #expect(choice.summary == "as --adapter hci1 (00:AA:01:01:00:01) asks")
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(2)) == .release)
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(60)) == .stay)
        #expect(choice.summary == "waiting for --adapter hci1 (00:AA:01:01:00:01)")
        // Another dongle under the name hci1 is not the one asked for.
        let stranger = Self.adapter("hci1", Self.c)
        #expect(choice.decide(present: [hci0, stranger], bluetoothd: Self.bluetoothd, now: Self.at(61)) == .stay)
        let back = Self.adapter("hci2", Self.b)
        #expect(choice.decide(present: [hci0, stranger, back], bluetoothd: Self.bluetoothd, now: Self.at(62))
                == .wait(until: Self.at(64)))
        #expect(choice.decide(present: [hci0, stranger, back], bluetoothd: Self.bluetoothd, now: Self.at(64)) == .use(back))
    }

    @Test("--adapter by address: only that address, whatever its name")
    func namedByAddress() {
        var choice = AdapterChoice(request: .named("00:aa:01:02:00:02"))
        #expect(choice.preferred == Self.c)
        let hci0 = Self.adapter("hci0", Self.a)
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .stay)
        let dongle = Self.adapter("hci3", Self.c)
        #expect(choice.decide(present: [hci0, dongle], bluetoothd: Self.bluetoothd, now: Self.at(1)) == .use(dongle))
        #expect(choice.summary == "as --adapter 00:aa:01:02:00:02 asks")
    }

    @Test("an adapter that could not be used is tried again after the settle time, not at once")
    func aFailedUseIsRetriedLater() {
        var choice = AdapterChoice(request: .automatic, settle: .seconds(2))
        let hci0 = Self.adapter("hci0", Self.a)
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .use(hci0))
        choice.couldNotUse()
        #expect(choice.current == nil)
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(0)) == .wait(until: Self.at(2)))
        #expect(choice.decide(present: [hci0], bluetoothd: Self.bluetoothd, now: Self.at(2)) == .use(hci0))
    }
}
