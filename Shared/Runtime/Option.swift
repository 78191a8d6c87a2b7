/// One flag of an `Options` struct, declared once: its name, its help, and the property it sets and
/// how its text becomes that property's value. The default is the property's initial value: parsing
/// starts from it and `--help` prints it, so no flag's name, default or help is written twice.
public struct Option<Root>: Sendable {
    public let name: String
    public let help: String
    let isSwitch: Bool
    /// The default as `--help` shows it (nil: none), read from a value of `Root` at its defaults.
    let defaultText: @Sendable (Root) -> String?
    /// Sets the property from the flag's text.
    let set: @Sendable (inout Root, String) throws(UsageError) -> Void

    /// Any flag: `parse` turns its text into the value, `format` shows the default in `--help`.
    public init<Value>(_ name: String, _ property: WritableKeyPath<Root, Value> & Sendable, help: String,
                       format: @escaping @Sendable (Value) -> String?,
                       parse: @escaping @Sendable (String) throws(UsageError) -> Value) {
        self.name = name
        self.help = help
        isSwitch = false
        defaultText = { format($0[keyPath: property]) }
        set = { root, text throws(UsageError) in root[keyPath: property] = try parse(text) }
    }

    /// The flag as `Flags` reads it, its default taken from `defaults`.
    public func flag(_ defaults: Root) -> Flag {
        isSwitch ? .switch(name, help: help) : Flag(name, default: defaultText(defaults), help: help)
    }

    private init(switchNamed name: String, _ property: WritableKeyPath<Root, Bool> & Sendable, help: String) {
        self.name = name
        self.help = help
        isSwitch = true
        defaultText = { _ in nil }
        set = { root, text in root[keyPath: property] = Flags.isOn(text) }
    }
}

extension Option {
    /// Text taken as given.
    public static func string(_ name: String, _ property: WritableKeyPath<Root, String> & Sendable, help: String) -> Option {
        Option(name, property, help: help, format: { $0 }, parse: { $0 })
    }

    /// Text where empty means none.
    public static func optional(_ name: String, _ property: WritableKeyPath<Root, String?> & Sendable, help: String) -> Option {
        Option(name, property, help: help, format: { $0 }, parse: { $0.isEmpty ? nil : $0 })
    }

    /// A whole number within `range`.
    public static func int(_ name: String, _ property: WritableKeyPath<Root, Int> & Sendable, in range: ClosedRange<Int>,
                           help: String) -> Option {
        Option(name, property, help: help, format: { String($0) }, parse: { text throws(UsageError) in try Flags.int(text, name, in: range) })
    }

    /// A whole number within `range`, kept as a `Double` (seconds, say).
    public static func int(_ name: String, _ property: WritableKeyPath<Root, Double> & Sendable, in range: ClosedRange<Int>,
                           help: String) -> Option {
        Option(name, property, help: help, format: { String(Int($0)) },
               parse: { text throws(UsageError) in Double(try Flags.int(text, name, in: range)) })
    }

    /// A boolean that is off unless given.
    public static func `switch`(_ name: String, _ property: WritableKeyPath<Root, Bool> & Sendable, help: String) -> Option {
        Option(switchNamed: name, property, help: help)
    }

    /// `--log-level`, the same in every executable.
    public static func logLevel(_ property: WritableKeyPath<Root, Logger.Level> & Sendable,
                                help: String = "trace, debug, info, notice, warning or error.") -> Option {
        Option("log-level", property, help: help, format: { "\($0)" }, parse: { text throws(UsageError) in
            guard let level = Logger.Level(name: text) else {
                throw UsageError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
            }
            return level
        })
    }
}
