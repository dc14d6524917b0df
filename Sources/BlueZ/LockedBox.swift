import Foundation

/// A value shared between exported-object handlers (which run on any task) and the BlueZ actor.
/// Every access takes the lock, which is what makes the `Sendable` claim true.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }

    @discardableResult
    func update<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
