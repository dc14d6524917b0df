/// One suspended caller of `receive`, `send`, `accept` or a connect: an id (to find it again on cancellation)
/// and its continuation. Continuations carry a `Result` so the public calls keep their typed throws.
struct Waiter<Value>: Sendable where Value: Sendable {
    let id: UInt64
    let continuation: CheckedContinuation<Result<Value, L2CAPError>, Never>

    func resume(_ result: Result<Value, L2CAPError>) { continuation.resume(returning: result) }
}

extension L2CAPError {
    static func closed(_ what: String) -> L2CAPError { L2CAPError(.closed, message: "\(what): the socket is closed") }
    static func cancelled(_ what: String) -> L2CAPError { L2CAPError(.cancelled, message: "\(what): cancelled") }
}
