import Foundation
import Signing

/// One payload for one command, with what signing it needs to know of them, read once
/// (`Signer.plan`): a replay works it out for every recorded call before it starts, so sending a call
/// only stamps, looks the key up and signs. It holds its payload, so it signs nothing else.
public struct SigningPlan: Sendable {
    let command: String
    let payload: Data
    /// The command as the body's first frame.
    let commandFrame: Data
    /// The payload's fields; nil when it goes unsigned (or is not a JSON object).
    let fields: SigningFields?
    /// Who may sign it, in the order tried.
    let signers: [SigningPolicy.Role]

    init(command: String, payload: Data, fields: SigningFields?, signers: [SigningPolicy.Role]) {
        self.command = command
        self.payload = payload
        commandFrame = Data(command.utf8)
        self.fields = fields
        self.signers = signers
    }
}
