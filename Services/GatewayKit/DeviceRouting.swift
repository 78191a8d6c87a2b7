import Foundation
import Schema

/// The virtual service `device`: the body is `[command, payload]`, and the command table in the
/// schema names the service that owns the command.
public enum DeviceRouting {
    public static let service = "device"

    public static func route(_ body: [Data]) -> Result<Service, CommandError> {
        guard let first = body.first, let name = String(data: first, encoding: .utf8), !name.isEmpty else {
            return .failure(.invalid("a device request is [command, JSON payload]; the command is missing"))
        }
        guard let command = Command(rawValue: name) else { return .failure(unknownCommand(name)) }
        guard body.count == 2 else {
            return .failure(.invalid("a device request is [command, JSON payload]; got \(body.count) frames"))
        }
        return .success(command.service)
    }

    /// The refusal of a command the table does not have (6017): the broker answers it before looking
    /// at a proof, since no signature makes an unknown command routable.
    public static func unknownCommand(_ name: String) -> CommandError { .invalid("unknown command \(name.prefix(64))") }
}
