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
}
