
/// What a push does to a stored badge, as the public push API writes it: `"N"` sets it, `"+N"` and
/// `"-N"` change it, N in 0...99. The result is always clamped to the stored range 0...99999.
public enum BadgeChange: Equatable, Sendable {
    case set(Int)
    case add(Int)

    /// The values a device's badge may hold (`setBadge:` accepts exactly these).
    public static let range = 0...99_999
    /// The N a push may give.
    public static let stepRange = 0...99

    /// Parses `"N"`, `"+N"` or `"-N"`: missing or empty is 6001, anything else malformed is 6017.
    public init(_ text: String?) throws(CommandError) {
        guard let text, !text.isEmpty else { throw .empty("badge is missing") }
        var digits = Substring(text)
        let sign = digits.first == "+" || digits.first == "-" ? digits.removeFirst() : nil
        guard !digits.isEmpty, digits.count <= 2, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = Int(digits), Self.stepRange.contains(n) else {
            throw .invalid("badge must be \"N\", \"+N\" or \"-N\" with N in 0...99, got \(text.prefix(16))")
        }
        switch sign {
        case "+": self = .add(n)
        case "-": self = .add(-n)
        default: self = .set(n)
        }
    }

    /// The badge after this change to `current`, clamped to `range`.
    public func applied(to current: Int) -> Int {
        let raw = switch self {
        case .set(let n): n
        case .add(let delta): current + delta
        }
        return min(max(raw, Self.range.lowerBound), Self.range.upperBound)
    }

    /// One spelling per change (`"+05"` → `"+5"`), so a retried push is recognised whatever zeros it carries.
    public var text: String {
        switch self {
        case .set(let n): String(n)
        case .add(let delta): delta < 0 ? String(delta) : "+\(delta)"
        }
    }
}
