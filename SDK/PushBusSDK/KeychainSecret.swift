#if canImport(Security) && canImport(Darwin)
// The device secret in the Keychain on Apple platforms (Security's SecItem API, a generic password
// per state file). Written against Apple's documented API; not compiled by CI, which runs on Linux,
// where the secret stays in the 0600 state file.
import Foundation
import Security

enum KeychainSecret {
    static let service = "io.pushbus.device-secret"

    /// The query naming the secret of the state file at `account`.
    private static func query(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    /// Stores `secret`, replacing the one kept; readable after the first unlock, this device only.
    static func write(_ secret: String, account: String) throws {
        let data = Data(secret.utf8)
        let update: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query(account) as CFDictionary, update as CFDictionary)
        if status == errSecItemNotFound {
            var item = query(account)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw TransportError("the Keychain refused the device secret (OSStatus \(status))") }
    }

    static func read(account: String) -> String? {
        var item = query(account)
        item[kSecReturnData as String] = true
        item[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(item as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    static func delete(account: String) {
        SecItemDelete(query(account) as CFDictionary)
    }
}
#endif
