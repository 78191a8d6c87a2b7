import Credentials
import Schema

/// Who may sign which command, and which payload fields name the principal (DESIGN.md, Security):
/// the one table the gateway checks a proof against and a client picks its key by. It relates the
/// command table (Schema) to principals (Credentials), so it lives beside both, in a module that
/// links neither SQLite nor ZeroMQ.
public enum SigningPolicy {
    /// A kind of principal, without its name.
    public enum Role: Sendable, Hashable, CaseIterable {
        case device, app, admin, service
    }

    /// How a command's payload names a device in `registration_id`.
    public enum DeviceNaming: Sendable, Equatable {
        /// The command is about one device and must name it (a missing one is code 6001).
        case required
        /// It may name one (a re-registration, an MA command a device signs); when present it is a string.
        case optional
        /// Not a device: an app-wide query's `registration_id` is a filter, a list for `audience.resolve`.
        case filter
    }

    /// The payload field that names the device a device principal signs for.
    public static let deviceField = "registration_id"
    /// The payload field that names the app of an app principal, and of a device.
    public static let appField = "app_key"

    /// The rule of one command; `nil` is an internal command outside the catalog (`events.fetch`).
    public struct Rule: Sendable, Equatable {
        /// Who may sign it; for internal commands, PushBus's own services before the admin.
        public let signers: [Role]
        /// Whether the gateway lets it through unsigned: only a `device.register`, whose service then
        /// refuses an unsigned one for an install that is registered already.
        public let acceptsUnsigned: Bool
        public let device: DeviceNaming

        /// Whether a client sends it unsigned: a first registration, which names no device yet.
        public func goesUnsigned(namingDevice: Bool) -> Bool { acceptsUnsigned && !namingDevice }
    }

    /// Devices call their own device commands; their app's server may call those of registration and
    /// tagging too (the REST device API), which refuse a device that is not the app's, and never
    /// learn a device from the app (badge and the scheduler would, so they stay the device's own); apps their app-wide queries, MA commands and
    /// re-registrations; a device its MA commands but not `ma.erase`, and `stats.report` only a
    /// device; `app.create` the admin; internal commands PushBus's own services and the admin.
    public static func rule(for command: Command?) -> Rule {
        guard let command else { return Rule(signers: [.service, .admin], acceptsUnsigned: false, device: .optional) }
        switch command {
        case .appCreate, .appList: return Rule(signers: [.admin], acceptsUnsigned: false, device: .optional)
        case _ where command.isInternal: return Rule(signers: [.service, .admin], acceptsUnsigned: false, device: .filter)
        case .apnsCredentials: return Rule(signers: [.app, .admin], acceptsUnsigned: false, device: .filter)
        case .deviceRegister: return Rule(signers: [.device, .app], acceptsUnsigned: true, device: .optional)
        case .maErase: return Rule(signers: [.app], acceptsUnsigned: false, device: .optional)
        case .statsReport: return Rule(signers: [.device], acceptsUnsigned: false, device: .optional)
        case _ where command.isAppWide: return Rule(signers: [.app], acceptsUnsigned: false, device: .filter)
        case _ where command.service == .analytics: return Rule(signers: [.device, .app], acceptsUnsigned: false, device: .optional)
        case _ where command.service == .registration || command.service == .tagging:
            return Rule(signers: [.device, .app], acceptsUnsigned: false, device: .required)
        default: return Rule(signers: [.device], acceptsUnsigned: false, device: .required)
        }
    }

    /// Whether a device sends `command`: it may sign it (a first `device.register` goes unsigned).
    /// What the device edge and the channel relay; internal, app-wide and admin commands are not.
    public static func isDeviceCommand(_ command: Command) -> Bool {
        !command.isInternal && rule(for: command).signers.contains(.device)
    }

    /// Whom a client signs `command` as, the first it holds a key for: an internal command or
    /// `app.create` as the rule's signers; any other command as the device its payload names in
    /// `registration_id` (a string, and not the filter of an app-wide query), or the app when the command
    /// lets it and the client holds no key of the device, else as the app. A
    /// client speaks for whom the payload names, so a device asking what only its app may
    /// (`ma.erase`) is refused by the gateway, not signed as the app behind its back.
    public static func clientSigners(for command: Command?, namingDevice: Bool) -> [Role] {
        let rule = rule(for: command)
        guard let command, command != .appCreate, command != .appList, !command.isInternal else { return rule.signers }
        guard rule.device != .filter && namingDevice else { return [.app] }
        return rule.signers.contains(.device) ? rule.signers.filter { $0 == .device || $0 == .app } : [.device]
    }
}

extension Principal {
    /// Its kind, without its name.
    public var role: SigningPolicy.Role {
        switch self {
        case .device: .device
        case .app: .app
        case .admin: .admin
        case .service: .service
        }
    }
}
