import CSodium
import FoundationEssentials

/// Thin, typed access to the libsodium primitives HandoffKit uses. Nothing here implements cryptography itself:
/// every function forwards to one libsodium call and turns its status into a `HandoffError`.
package enum Sodium {
    /// Length of an XChaCha20-Poly1305 key, a generic-hash key and an X25519 key, in bytes.
    package static let keyLength = 32
    /// Length of the Poly1305 tag that XChaCha20-Poly1305 appends, in bytes.
    package static let aeadTagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// Length of an XChaCha20 nonce, in bytes.
    package static let aeadNonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)

    /// Initialises libsodium. Safe to call many times and from many threads (sodium_init is idempotent).
    package static func ensureInitialized() throws(HandoffError) {
        if sodium_init() < 0 {
            throw HandoffError(.cryptoUnavailable, "libsodium failed to initialise (sodium_init returned -1)")
        }
    }

    /// `count` bytes from libsodium's CSPRNG.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        withOutput(count) { randombytes_buf($0, count) }
    }

    /// A uniformly random integer below `upperBound` (libsodium's randombytes_uniform).
    package static func randomUniform(_ upperBound: UInt32) -> UInt32 {
        randombytes_uniform(upperBound)
    }

    /// Calls `body` with a pointer to `bytes` (a valid pointer even when `bytes` is empty, as libsodium's
    /// non-null parameters require) and the byte count.
    private static func withInput<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        let backing = bytes.isEmpty ? [0] : bytes
        return backing.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array always has storage") }
            return body(base, bytes.count)
        }
    }

    /// `withInput` for a slice (the receiver opens records where they sit in its buffer, uncopied).
    private static func withInput<R>(_ bytes: ArraySlice<UInt8>, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return withInput([UInt8](), body) }
            return body(base, buffer.count)
        }
    }

    /// Calls `body` with a writable buffer of `count` bytes (at least one allocated) and returns its first `count`.
    /// `count` bytes that `body` writes, every one of them (each caller's libsodium function fills its whole
    /// output; a failed open's is dropped, `open` returns nil): not zeroed first and not copied afterwards, as
    /// sealing and opening the fast lane's records is most of its CPU.
    private static func withOutput(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(count, 1)) { buffer, initialized in
            guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array always has storage") }
            if count == 0 { base.initialize(to: 0) }   // one byte of room for a pointer; the array stays empty
            body(base)
            initialized = count
        }
    }

    /// BLAKE2b (crypto_generichash), optionally keyed. `length` must be within 16...64; `key` empty or 16...64 bytes.
    package static func genericHash(_ message: [UInt8], key: [UInt8] = [], length: Int = 32) -> [UInt8] {
        precondition(length >= Int(crypto_generichash_BYTES_MIN) && length <= Int(crypto_generichash_BYTES_MAX))
        precondition(key.isEmpty || (key.count >= Int(crypto_generichash_KEYBYTES_MIN)
            && key.count <= Int(crypto_generichash_KEYBYTES_MAX)))
        return withOutput(length) { o in
            withInput(message) { m, mCount in
                if key.isEmpty {
                    _ = crypto_generichash(o, length, m, UInt64(mCount), nil, 0)
                } else {
                    withInput(key) { k, kCount in _ = crypto_generichash(o, length, m, UInt64(mCount), k, kCount) }
                }
            }
        }
    }

    /// Constant-time comparison of two byte strings of equal length (sodium_memcmp).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return withInput(a) { pa, n in withInput(b) { pb, _ in sodium_memcmp(pa, pb, n) == 0 } }
    }

    /// XChaCha20 keystream XOR (crypto_stream_xchacha20_xor); used only for the 8-byte beacon body.
    package static func streamXOR(_ input: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(nonce.count == Int(crypto_stream_xchacha20_NONCEBYTES) && key.count == keyLength)
        return withOutput(input.count) { o in
            withInput(input) { i, n in _ = crypto_stream_xchacha20_xor(o, i, UInt64(n), nonce, key) }
        }
    }

    /// XChaCha20-Poly1305-IETF encryption; returns ciphertext followed by the 16-byte tag.
    package static func seal(_ plaintext: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        seal(plaintext[...], additionalData: additionalData, nonce: nonce, key: key)
    }

    /// `seal` of bytes where they sit in a larger buffer.
    package static func seal(_ plaintext: ArraySlice<UInt8>, additionalData: [UInt8], nonce: [UInt8], key: [UInt8])
        -> [UInt8] {
        precondition(nonce.count == aeadNonceLength && key.count == keyLength)
        var outLength: UInt64 = 0
        return withOutput(plaintext.count + aeadTagLength) { o in
            withInput(plaintext) { p, pCount in
                withInput(additionalData) { a, aCount in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(o, &outLength, p, UInt64(pCount), a, UInt64(aCount),
                                                                   nil, nonce, key)
                }
            }
        }
    }

    /// XChaCha20-Poly1305-IETF decryption; `nil` when the tag does not verify.
    package static func open(_ sealed: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8]? {
        open(sealed[...], additionalData: additionalData, nonce: nonce, key: key)
    }

    /// `open` of bytes where they sit in a larger buffer.
    package static func open(_ sealed: ArraySlice<UInt8>, additionalData: [UInt8], nonce: [UInt8], key: [UInt8])
        -> [UInt8]? {
        guard sealed.count >= aeadTagLength, nonce.count == aeadNonceLength, key.count == keyLength else { return nil }
        var outLength: UInt64 = 0
        var status: Int32 = -1
        let out = withOutput(sealed.count - aeadTagLength) { o in
            withInput(sealed) { c, cCount in
                withInput(additionalData) { a, aCount in
                    status = crypto_aead_xchacha20poly1305_ietf_decrypt(o, &outLength, nil, c, UInt64(cCount), a,
                                                                        UInt64(aCount), nonce, key)
                }
            }
        }
        return status == 0 ? out : nil
    }

    /// A fresh X25519 key pair for crypto_kx: (publicKey, secretKey).
    package static func keyExchangeKeyPair() -> (publicKey: [UInt8], secretKey: [UInt8]) {
        var pk = [UInt8](repeating: 0, count: Int(crypto_kx_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(crypto_kx_SECRETKEYBYTES))
        crypto_kx_keypair(&pk, &sk)
        return (pk, sk)
    }

    /// crypto_kx session keys (receive, transmit) for the client (`isClient`) or server side; nil if the peer key
    /// is unacceptable.
    package static func sessionKeys(isClient: Bool, publicKey: [UInt8], secretKey: [UInt8],
                                    peerPublicKey: [UInt8]) -> (receive: [UInt8], transmit: [UInt8])? {
        guard publicKey.count == Int(crypto_kx_PUBLICKEYBYTES), secretKey.count == Int(crypto_kx_SECRETKEYBYTES),
              peerPublicKey.count == Int(crypto_kx_PUBLICKEYBYTES) else { return nil }
        var rx = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        var tx = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        let status = isClient
            ? crypto_kx_client_session_keys(&rx, &tx, publicKey, secretKey, peerPublicKey)
            : crypto_kx_server_session_keys(&rx, &tx, publicKey, secretKey, peerPublicKey)
        return status == 0 ? (rx, tx) : nil
    }
}
