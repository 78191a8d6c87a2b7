import Foundation

/// One command-line flag: `--name value` (or `--name=value`; a switch takes no value), also read
/// from the environment variable `PUSHBUS_NAME` (upper case, `-` → `_`). The command line wins.
public struct Flag: Sendable {
    public let name: String
    public let help: String
    public let defaultValue: String?
    public let isSwitch: Bool

    public init(_ name: String, default defaultValue: String?, help: String) {
        self.name = name
        self.help = help
        self.defaultValue = defaultValue
        self.isSwitch = false
    }

    /// A boolean flag that is off unless given.
    public static func `switch`(_ name: String, help: String) -> Flag { Flag(switchNamed: name, help: help) }

    private init(switchNamed name: String, help: String) {
        self.name = name
        self.help = help
        self.defaultValue = nil
        self.isSwitch = true
    }

    public var environmentName: String {
        "PUSHBUS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}
