/// Why the launcher cannot start the stack.
enum LauncherError: Error, CustomStringConvertible {
    /// The CURVE key file cannot be written in the data directory.
    case curveKeyFile(path: String)

    var description: String {
        switch self {
        case .curveKeyFile(let path): "cannot write the CURVE key pair to \(path)"
        }
    }
}
