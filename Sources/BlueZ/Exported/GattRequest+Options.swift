import DBus

extension GattRequest {
    /// Reads the `a{sv}` options of ReadValue/WriteValue; unknown or ill-typed entries are ignored.
    init(options: [String: Variant]) {
        let bag = PropertyBag(options)
        self.init(
            offset: bag.integer("offset") ?? 0, mtu: bag.integer("mtu"), device: bag.path("device"),
            link: bag.string("link"), writeType: bag.string("type"),
            prepareAuthorize: bag.bool("prepare-authorize") ?? false)
    }
}
