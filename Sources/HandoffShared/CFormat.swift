#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `format` filled in by the C library's vsnprintf(3): what Foundation's `String(format:)` does for numbers,
    /// without Foundation. The daemon's graph imports only FoundationEssentials (no `String(format:)` there), so
    /// that handoffd does not map full Foundation and ICU (Docs/performance.md, Memory). Only C formats: no `%@`.
    package init(cFormat format: String, _ arguments: any CVarArg...) {
        var capacity = 64
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let needed = withVaList(arguments) { list in
                buffer.withUnsafeMutableBufferPointer { Int(vsnprintf($0.baseAddress, $0.count, format, list)) }
            }
            if needed < 0 { self = ""; return }
            if needed < capacity {
                self = String(decoding: buffer[0..<needed].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            capacity = needed + 1
        }
    }
}
