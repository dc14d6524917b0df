import CDBus
@testable import DBus
import FuzzSupport
@testable import HandoffDaemon
import HandoffBusContract
import HandoffKit

/// The daemon's D-Bus method arguments, through the real message path: libdbus parses a whole message from wire
/// bytes (`dbus_message_demarshal`, which is how libdbus reads what the bus delivers), the D-Bus layer decodes its
/// body as the object server does, and a SetCurrentActivity or UpdateCurrentActivity call's arguments go through
/// the handler's typed argument reads and the daemon's userInfo decoding (`HandoffDaemon.decodeUserInfo`).
///
/// First byte even: the rest is a whole marshalled message. Odd: the rest is the `ay userInfo` of a
/// SetCurrentActivity call built by the D-Bus layer, marshalled and demarshalled again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let wire = mode.isMultiple(of: 2) ? Array(bytes.dropFirst()) : call(userInfo: Array(bytes.dropFirst()))
    guard let message = demarshal(wire) else { return 0 }
    dispatch(message)
    return 0
}

/// What the object server and the daemon's SetCurrentActivity/UpdateCurrentActivity handlers do with a call.
private func dispatch(_ message: Message) {
    guard let arguments = try? message.arguments() else { return }
    // As the object server does, the input signature is checked before the handler runs. Any member with
    // SetCurrentActivity's signature goes on, so a mutated member name does not hide the decoder from the fuzzer.
    guard message.signatureText == "ssay" else { return }
    let call = MethodCall(message: message, arguments: arguments)
    guard let _: String = try? call.argument(0), let _: String = try? call.argument(1),
          let userInfo: [UInt8] = try? call.argument(2) else {
        fatalError("an ssay message's arguments do not read as String, String, [UInt8]")
    }
    _ = try? HandoffDaemon.decodeUserInfo(userInfo)
}

private func demarshal(_ wire: [UInt8]) -> Message? {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let raw = wire.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.flatMap { base in
            dbus_message_demarshal(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                                   &error)
        }
    }
    return raw.map { Message(adopting: $0) }
}

private func marshal(_ message: Message) -> [UInt8] {
    var buffer: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(message.raw, &buffer, &length) != 0, let buffer else { return [] }
    defer { dbus_free(buffer) }
    return UnsafeRawBufferPointer(start: buffer, count: Int(length)).map { $0 }
}

/// A SetCurrentActivity call as `handoff note edit` sends it, with `userInfo` as its third argument.
private func call(userInfo: [UInt8]) -> [UInt8] {
    guard let message = try? Message.methodCall(
        destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
        member: HandoffBusAPI.Method.setCurrentActivity.name,
        arguments: HandoffBusAPI.Method.setCurrentActivity.arguments("org.handoff.note", "Groceries", userInfo))
    else { return [] }
    dbus_message_set_serial(message.raw, 1)
    return marshal(message)
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    Fuzz.writeSeedsIfAsked(try {
        let info = try BinaryPropertyList.encode(["name": "groceries", "title": "Groceries", "content": "milk é\n"])
        return [[0] + call(userInfo: info), [1] + info, [1]]
    }())
    return 0
}
