/// Settings read from flags and `PUSHBUS_*` variables: a struct whose initial values are the
/// defaults, and one `Option` per flag naming the property it sets. `flags` (for `Flags` and
/// `--help`) and `init(_:)` (for parsing) both come from that table.
public protocol Options: Sendable {
    /// Every setting at its default.
    init()
    static var options: [Option<Self>] { get }
    /// Checks that concern more than one flag, after every flag is read.
    func validate() throws(UsageError)
}

extension Options {
    public func validate() throws(UsageError) {}

    /// The flags, with the defaults of `init()`.
    public static var flags: [Flag] { flags(defaults: Self()) }

    /// The flags, with `defaults`' values as their defaults (a service that wants another default
    /// than every worker's, such as a sender's credit).
    public static func flags(defaults: Self) -> [Flag] { options.map { $0.flag(defaults) } }

    /// The settings of this process's command line and environment; prints usage and exits 0 on
    /// `--help`, prints a one-line reason and exits 64 on a usage error.
    public static func parseOrExit(program: String, summary: String) -> Self {
        let flags = Flags.parseOrExit(program: program, summary: summary, flags: Self.flags)
        do { return try Self(flags) } catch { Flags.exitUsage(program, error) }
    }

    /// The defaults with `change` made: `WorkerOptions { $0.credit = 8 }`.
    public init(_ change: (inout Self) -> Void) {
        self.init()
        change(&self)
    }

    /// The settings `flags` holds (each from the command line, its variable, or its default).
    public init(_ flags: Flags) throws(UsageError) { try self.init(flags, defaults: Self()) }

    /// `defaults` with the command line's and environment's settings made.
    public init(_ flags: Flags, defaults: Self) throws(UsageError) {
        self = defaults
        for option in Self.options {
            if let text = flags.values[option.name] { try option.set(&self, text) }
        }
        try validate()
    }
}

/// The settings of a program with no flags of its own.
public struct NoSettings: Options {
    public init() {}
    public static let options: [Option<NoSettings>] = []
}
