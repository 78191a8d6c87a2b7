import CTLS

/// The loop's OpenSSL client context: TLS 1.2 or later, ALPN offering only "h2", peers verified
/// against `caFile` or the system's store (never off). Loop-owned; each connection makes its
/// `SSL` from it.
final class TLSContext {
    let context: OpaquePointer

    init(caFile: String?) throws(HTTP2Error) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .setup("SSL_CTX_new: \(Self.lastError())") }
        self.context = context
        guard pushbus_tls_configure(context) == 1 else { throw .setup("TLS 1.2 minimum refused: \(Self.lastError())") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else { throw .setup("cannot load CA file \(caFile): \(Self.lastError())") }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw .setup("no system CA store: \(Self.lastError())") }
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        // 0 is success here, unlike the rest of OpenSSL.
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else { throw .setup("ALPN refused: \(Self.lastError())") }
    }

    deinit { SSL_CTX_free(context) }

    /// A client `SSL` on `fd` for `host`: SNI and name check for a DNS name, address check for an IP.
    func session(fd: Int32, host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        let isAddress = Resolver.isAddress(host)
        let checked = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) : SSL_set1_host(ssl, host)
        guard checked == 1, isAddress || pushbus_tls_set_server_name(ssl, host) == 1 else {
            SSL_free(ssl)
            return nil
        }
        return ssl
    }

    /// OpenSSL's last error on this thread as text ("" when none); clears its queue.
    static func lastError() -> String {
        var text = [CChar](repeating: 0, count: 256)
        pushbus_tls_error_text(&text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
