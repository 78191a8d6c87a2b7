import Foundation

/// Base64 with the URL-safe alphabet and no padding, as every part of a JWT is written (RFC 7515 §2).
enum Base64URL {
    static func encode(_ bytes: Data) -> String {
        var text = bytes.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
