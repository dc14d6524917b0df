import DBus
import Foundation
import HandoffShared

/// The "note" object the third-party client tests talk to.
enum NoteService {
    static let interface: InterfaceName = "org.handoff.Test.Note1"
    static let path: ObjectPath = "/org/handoff/test/note"

    static func make(title: Locked<String>, pings: Locked<Int>) -> ExportedInterface {
        var note = ExportedInterface(interface)
        note.method("Describe", in: "su", out: "s", inputNames: ["prefix", "count"], outputNames: ["text"]) { call in
            let prefix = try call.argument(0, as: String.self)
            let count = try call.argument(1, as: UInt32.self)
            return [.string("\(prefix):\(count):\(title.value)")]
        }
        note.method("Sum", in: "ai", out: "x") { call in
            let numbers = try call.argument(0, as: [Int32].self)
            return [.int64(numbers.reduce(0) { $0 + Int64($1) })]
        }
        note.method("Ping", noReply: true) { _ in
            pings.withLock { $0 += 1 }
            return []
        }
        note.method("Fail") { _ in
            throw DBusError(name: "org.handoff.Error.NotPermitted", message: "no, thank you")
        }
        note.method("Crash") { _ in
            struct Oops: Error {}
            throw Oops()
        }
        note.property("Title", get: { title.value }, set: { title.value = $0 })
        note.property("Length", get: { UInt32(title.value.utf8.count) })
        note.signal("Edited", "s", argumentNames: ["title"])
        return note
    }
}
