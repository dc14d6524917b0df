import FoundationEssentials

/// A source-side transfer kept for resumption: the activity it was saved from and its sealed stream.
struct CachedTransfer {
    let activity: UserActivity
    let header: TransferHeader
    let stream: [UInt8]
    let sealer: TransferSealer
}

/// The source's transfers kept for resumption, without I/O: the `capacity` most recently used of them (made, asked
/// for again or fetched from), which request nonce each answers (so a repeated REQUEST gets the same transfer instead
/// of a second save), and their end at the first valid DONE (so a repeated or replayed DONE finds nothing, and the
/// app hears of a continuation once). Receivers fetching at once each keep theirs, up to `capacity` of them; a
/// transfer dropped for a newer one answers its receiver's next FETCH with "request the activity again".
struct TransferCache {
    private var transfers: [TransferID: CachedTransfer] = [:]
    private var order: [TransferID] = []
    private var requests: [Nonce: TransferID] = [:]
    /// How many transfers are kept (`HandoffConfiguration.cachedTransfers`, at least 1).
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// The transfer made for the REQUEST with `nonce`, if it is still kept (it is then the most recently used).
    mutating func answering(_ nonce: Nonce) -> CachedTransfer? {
        guard let id = requests[nonce], let transfer = transfers[id] else { return nil }
        use(id)
        return transfer
    }

    /// Keeps `transfer` as the answer to the REQUEST with `nonce`; the least recently used beyond `capacity` is
    /// dropped.
    mutating func keep(_ transfer: CachedTransfer, answering nonce: Nonce) {
        let id = transfer.header.transferID
        if transfers.updateValue(transfer, forKey: id) == nil { order.append(id) }
        requests[nonce] = id
        while order.count > capacity {
            drop(order[0])
        }
    }

    /// The transfer a FETCH up to `end` names (it is then the most recently used); nil when it is not kept or
    /// shorter.
    mutating func fetching(_ id: TransferID, upTo end: Int) -> CachedTransfer? {
        guard let transfer = transfers[id], end <= transfer.stream.count else { return nil }
        use(id)
        return transfer
    }

    /// A DONE for `id`: when its MAC proves the receiver opened the transfer, returns it and forgets it.
    mutating func finish(_ id: TransferID, mac: [UInt8], requests: UInt8? = nil) -> CachedTransfer? {
        guard let transfer = transfers[id],
              Sodium.constantTimeEqual(mac, requests.map { transfer.sealer.doneMAC(requests: $0) }
                                                ?? transfer.sealer.doneMAC())
        else { return nil }
        drop(id)
        return transfer
    }

    /// Forgets every transfer (the group key changed).
    mutating func removeAll() {
        self = TransferCache(capacity: capacity)
    }

    private mutating func use(_ id: TransferID) {
        guard order.last != id, let index = order.firstIndex(of: id) else { return }
        order.append(order.remove(at: index))
    }

    private mutating func drop(_ id: TransferID) {
        transfers[id] = nil
        order.removeAll { $0 == id }
        requests = requests.filter { $0.value != id }
    }
}
