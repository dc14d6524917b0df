/// What each side tells the other once the code is confirmed (sealed under the pairing session key).
struct PairingOffer: Codable, Sendable {
    var device: TrustedDevice
    var group: TrustGroup
    var devices: [TrustedDevice]
}
