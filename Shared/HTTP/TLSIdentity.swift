import Foundation

/// A server's certificate chain and private key, PEM text, read from files at start.
public struct TLSIdentity: Sendable, Equatable {
    public let certificatePEM: String
    public let keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// Reads both files; throws `HTTPServerError.tls` naming the one that cannot be read.
    public init(certificateFile: String, keyFile: String) throws(HTTPServerError) {
        guard let certificate = try? String(contentsOfFile: certificateFile, encoding: .utf8), certificate.contains("-----BEGIN") else {
            throw .tls("cannot read a PEM certificate from \(certificateFile)")
        }
        guard let key = try? String(contentsOfFile: keyFile, encoding: .utf8), key.contains("-----BEGIN") else {
            throw .tls("cannot read a PEM private key from \(keyFile)")
        }
        self.init(certificatePEM: certificate, keyPEM: key)
    }

    /// The identity a `--tls-cert` / `--tls-key` pair names: nil for neither (plain HTTP), the files
    /// read for both; one without the other is refused.
    public static func load(certificateFile: String?, keyFile: String?) throws(HTTPServerError) -> TLSIdentity? {
        switch (certificateFile, keyFile) {
        case (nil, nil): return nil
        case (let certificate?, let key?): return try TLSIdentity(certificateFile: certificate, keyFile: key)
        default: throw .tls("--tls-cert and --tls-key go together")
        }
    }
}
