import Foundation

/// Who signs a request or an event: a device, an app, the deployment's admin, or one of PushBus's
/// own services (a worker proving itself to the gateway, a publisher signing its events).
public enum Principal: Hashable, Sendable, CustomStringConvertible {
    case device(registrationID: String)
    case app(appKey: String)
    case admin
    /// An MDP service name, a shard's included (`tagging/1`).
    case service(name: String)

    public var description: String {
        var bytes: [UInt8] = []
        appendUTF8(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the principal as a proof names it (`device:<id>`, `app:<key>`, `admin`,
    /// `service:<name>`), its `description`, as UTF-8.
    func appendUTF8(to bytes: inout [UInt8]) {
        switch self {
        case .device(let id): bytes.append(contentsOf: "device:".utf8); bytes.append(contentsOf: id.utf8)
        case .app(let key): bytes.append(contentsOf: "app:".utf8); bytes.append(contentsOf: key.utf8)
        case .admin: bytes.append(contentsOf: "admin".utf8)
        case .service(let name): bytes.append(contentsOf: "service:".utf8); bytes.append(contentsOf: name.utf8)
        }
    }

    init?(_ text: Substring) {
        if text == "admin" { self = .admin }
        else if text.hasPrefix("device:"), text.count > 7 { self = .device(registrationID: String(text.dropFirst(7))) }
        else if text.hasPrefix("app:"), text.count > 4 { self = .app(appKey: String(text.dropFirst(4))) }
        else if text.hasPrefix("service:"), text.count > 8 { self = .service(name: String(text.dropFirst(8))) }
        else { return nil }
    }

    /// The same reading of ASCII bytes, in place: the one string made is the name after the prefix.
    /// (For ASCII, comparing bytes is comparing characters; other text goes through `init?(_:)`.)
    init?(ascii bytes: UnsafeBufferPointer<UInt8>) {
        func name(after prefix: StaticString) -> String? {
            let count = prefix.utf8CodeUnitCount
            guard bytes.count > count, memcmp(bytes.baseAddress!, prefix.utf8Start, count) == 0 else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[count...]), as: UTF8.self)
        }
        if bytes.elementsEqual("admin".utf8) { self = .admin }
        else if let id = name(after: "device:") { self = .device(registrationID: id) }
        else if let key = name(after: "app:") { self = .app(appKey: key) }
        else if let service = name(after: "service:") { self = .service(name: service) }
        else { return nil }
    }
}

/// The third body frame of a signed request: `v1 <principal> <hex HMAC-SHA256(key, command + "\n" + payload)>`.
public struct Proof: Equatable, Sendable {
    public let principal: Principal
    public let signature: String

    public init(principal: Principal, signature: String) {
        self.principal = principal
        self.signature = signature
    }

    /// Signs `payload` (which should carry `ts`) for `command` with `key`.
    public init(principal: Principal, key: String, command: String, payload: Data) {
        self.init(principal: principal, signature: Self.signature(key: key, command: command, payload: payload))
    }

    public static func signature(key: String, command: String, payload: Data) -> String {
        HMAC.sha256Hex(key: key, head: command, separator: 0x0A, body: payload)
    }

    /// The signature under a key made ready once.
    public static func signature(key: HMACKey, command: String, payload: Data) -> String {
        HMAC.sha256Hex(key: key, head: command, separator: 0x0A, body: payload)
    }

    public var frame: Data { Self.frame(principal) { $0.append(contentsOf: signature.utf8) } }

    /// The longest proof frame a relay passes on: `v1 `, a principal (an app_key or registration ID
    /// with its prefix) and 64 hex digits fit well within it.
    public static let maxFrameBytes = 256

    /// Whether `text` can be a device's proof frame (`v1 device:`, printable ASCII, at most
    /// `maxFrameBytes`): what a relay (the device edge, the channel) checks before passing a device's
    /// proof on unchanged; the gateway checks the rest. An app's or a service's proof, good on the bus,
    /// is not taken from the public side: a leaked master secret opens no door there.
    public static func looksLikeDeviceFrame(_ text: String) -> Bool {
        text.utf8.count <= maxFrameBytes && text.hasPrefix("v1 device:") && text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The frame of `Proof(principal:key:command:payload:)`, with the signature's digits written
    /// straight into it: no signature text made on the way (a publisher seals every event).
    public static func frame(principal: Principal, key: String, command: String, payload: Data) -> Data {
        frame(principal) { HMAC.appendSHA256Hex(key: .text(key), head: command, separator: 0x0A, body: payload, to: &$0) }
    }

    /// The same frame under a key made ready once (a publisher's, which seals every event).
    public static func frame(principal: Principal, key: HMACKey, command: String, payload: Data) -> Data {
        frame(principal) { HMAC.appendSHA256Hex(key: .prepared(key), head: command, separator: 0x0A, body: payload, to: &$0) }
    }

    /// `v1 <principal> <signature>`, the signature appended by `appendSignature`: bytes first, then
    /// one Data (appending to a Data byte by byte cost more than the strings it saved).
    private static func frame(_ principal: Principal, appendSignature: (inout [UInt8]) -> Void) -> Data {
        var frame: [UInt8] = []
        frame.reserveCapacity(160)
        frame.append(contentsOf: "v1 ".utf8)
        principal.appendUTF8(to: &frame)
        frame.append(UInt8(ascii: " "))
        appendSignature(&frame)
        return Data(frame)
    }

    /// The signature's first 64 bits, which name the proof where it is remembered (an HMAC is
    /// uniform and unforgeable without its key, so 64 bits tell proofs apart): the gateway's replay
    /// cache and each service's `ProofLedger` keep this instead of the 64-character text.
    public var fingerprint: UInt64 { Self.fingerprint(signature) }

    /// The first 16 hex digits of `signature` as a number (proofs are lower-case hex; anything else
    /// is hashed whole).
    public static func fingerprint(_ signature: String) -> UInt64 {
        var value: UInt64 = 0
        for byte in signature.utf8.prefix(16) {
            switch byte {
            case 0x30...0x39: value = value << 4 | UInt64(byte - 0x30)
            case 0x61...0x66: value = value << 4 | UInt64(byte - 0x61 + 10)
            default: return UInt64(bitPattern: Int64(signature.hashValue))
            }
        }
        return value
    }

    /// Parses the frame; nil when it is not a v1 proof. Reads the bytes in place: the gateway parses
    /// one per request.
    public init?(frame: Data) {
        let signatureLength = 64
        let parsed: (Principal, String)? = frame.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let space = UInt8(ascii: " ")
            let signatureStart = bytes.count - signatureLength
            guard bytes.count <= 512, signatureStart > 4,
                  bytes[0] == UInt8(ascii: "v"), bytes[1] == UInt8(ascii: "1"), bytes[2] == space,
                  bytes[signatureStart - 1] == space else { return nil }
            let principalBytes = UnsafeBufferPointer(rebasing: bytes[3..<(signatureStart - 1)])
            let signatureBytes = UnsafeBufferPointer(rebasing: bytes[signatureStart...])
            guard !principalBytes.contains(space),
                  signatureBytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
                  let principal = principalBytes.allSatisfy({ $0 < 0x80 })
                    ? Principal(ascii: principalBytes)
                    : String(validating: principalBytes, as: UTF8.self).flatMap({ Principal(Substring($0)) }) else { return nil }
            return (principal, String(decoding: signatureBytes, as: UTF8.self))
        }
        guard let (principal, signature) = parsed else { return nil }
        self.principal = principal
        self.signature = signature
    }
}
