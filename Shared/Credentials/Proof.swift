import Foundation

/// Who signs a request: a device, an app, or the deployment's admin.
public enum Principal: Equatable, Sendable, CustomStringConvertible {
    case device(registrationID: String)
    case app(appKey: String)
    case admin

    public var description: String {
        switch self {
        case .device(let id): "device:\(id)"
        case .app(let key): "app:\(key)"
        case .admin: "admin"
        }
    }

    init?(_ text: Substring) {
        if text == "admin" { self = .admin }
        else if text.hasPrefix("device:"), text.count > 7 { self = .device(registrationID: String(text.dropFirst(7))) }
        else if text.hasPrefix("app:"), text.count > 4 { self = .app(appKey: String(text.dropFirst(4))) }
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
        var message = Data(command.utf8)
        message.append(0x0A)
        message.append(payload)
        return HMAC.sha256Hex(key: key, message: message)
    }

    public var frame: Data { Data("v1 \(principal) \(signature)".utf8) }

    /// Parses the frame; nil when it is not a v1 proof.
    public init?(frame: Data) {
        guard frame.count <= 512, let text = String(data: frame, encoding: .utf8) else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let principal = Principal(parts[1]),
              parts[2].count == 64, parts[2].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            return nil
        }
        self.principal = principal
        signature = String(parts[2])
    }
}
