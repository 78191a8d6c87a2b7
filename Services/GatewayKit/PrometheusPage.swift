/// A page in the Prometheus text format: each family's HELP and TYPE, then all of its samples
/// together, as the format requires.
struct PrometheusPage {
    private var families: [(name: String, header: [String], samples: [String])] = []

    /// Starts a family; samples added with its name go under it.
    mutating func family(_ name: String, _ type: String, _ help: String) {
        families.append((name, ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"], []))
    }

    /// One sample of the family `name` (declared before), e.g. `add("x_total", "service=\"a\"", 3)`.
    mutating func add(_ name: String, _ labels: String, _ value: CustomStringConvertible) {
        samples(name, [labels.isEmpty ? "\(name) \(value)" : "\(name){\(labels)} \(value)"])
    }

    /// Sample lines already written out (a histogram's buckets, sum and count).
    mutating func samples(_ name: String, _ lines: [String]) {
        guard let index = families.firstIndex(where: { $0.name == name }) else {
            preconditionFailure("metric family \(name) is declared before its samples")
        }
        families[index].samples += lines
    }

    /// `name="value"`, the value escaped as the text format says (backslash, double quote, line
    /// feed): a service name comes from whoever sent it, and must not end its sample or start another.
    static func label(_ name: String, _ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "\(name)=\"\(escaped)\""
    }

    var text: String {
        families.flatMap { $0.header + $0.samples }.joined(separator: "\n") + "\n"
    }
}
