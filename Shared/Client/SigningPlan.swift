import Foundation
import Signing

/// What signing one payload for one command needs to know of them, read once (`Signer.plan`): a
/// replay works it out for every recorded call before it starts, so sending a call only stamps,
/// looks the key up and signs. Good for that payload only, byte for byte.
public struct SigningPlan: Sendable {
    let command: String
    /// The command as the body's first frame.
    let commandFrame: Data
    /// The payload's fields; nil when it goes unsigned (or is not a JSON object).
    let fields: SigningFields?
    /// Who may sign it, in the order tried.
    let signers: [SigningPolicy.Role]

    init(command: String, fields: SigningFields?, signers: [SigningPolicy.Role]) {
        self.command = command
        commandFrame = Data(command.utf8)
        self.fields = fields
        self.signers = signers
    }
}
