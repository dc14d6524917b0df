#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock box: a value guarded by a mutex, reached only with the mutex held. Every target that
/// shares mutable state between tasks, threads or exported-object handlers uses this (`package` access: the
/// package's targets and tests see it, a user of one of its products does not).
///
/// It has `Synchronization.Mutex`'s shape (``withLock(_:)``) but a pthread mutex inside, on purpose: on Linux
/// `Mutex` is a bare futex that ThreadSanitizer cannot see, so `make test-tsan` reported the state it guards as a
/// race (the D-Bus loop's bookkeeping, commit 9a2c1de); a pthread mutex is intercepted and the suites are clean.
/// Unlike `Mutex` it is a class, so closures can share it without a wrapper of their own.
///
/// `@unchecked Sendable` is true because every access to the stored value happens with the mutex held.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var stored: Value

    package init(_ value: Value) {
        stored = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call back into this lock.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&stored)
    }

    /// The value, read or replaced under the lock. A read followed by a write is two locks: a change that depends
    /// on the old value goes through ``withLock(_:)``.
    package var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
