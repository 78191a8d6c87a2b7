import Runtime

/// pushbus-backup's settings, from flags or `PUSHBUS_*` variables.
struct BackupOptions: Options {
    var dataDirectory = "./data"
    var out: String?

    init() {}

    static let options: [Option<BackupOptions>] = [
        .string("data-dir", \.dataDirectory, help: "The data directory to back up."),
        .optional("out", \.out, help: "Directory for the copies (created; must be empty or new)."),
    ]
}
