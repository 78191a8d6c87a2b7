import CCrypto

/// libcrypto's reasons for the last failure on this thread, oldest first, and its error queue
/// emptied so the next failure does not report this one.
func openSSLErrors() -> String {
    var reasons: [String] = []
    var buffer = [CChar](repeating: 0, count: 256)
    var code = ERR_get_error()
    while code != 0 {
        ERR_error_string_n(code, &buffer, buffer.count)
        reasons.append(cText(buffer))
        code = ERR_get_error()
    }
    return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
}

/// The NUL-terminated text libcrypto wrote into `buffer`.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
