import Foundation

/// Finds the route of a request: by path (a trailing slash or not, as `/v3/tags/` is sent) and then
/// by method, with the path's parameters percent-decoded.
public struct Router: Sendable {
    public enum Match {
        case found(Route, parameters: [String: String])
        /// The path is known, not with this method.
        case wrongMethod(allowed: [String])
        case unknownPath
    }

    public let routes: [Route]

    public init(_ routes: [Route]) { self.routes = routes }

    public func match(method: String, path: String) -> Match {
        let parts = Self.segments(of: path)
        var allowed: [String] = []
        var found: (Route, [String: String])?
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: parts) else { continue }
            guard route.method == method else {
                allowed.append(route.method)
                continue
            }
            // A literal segment beats a parameter: `/v4/devices/status` before `/v4/devices/{registration_id}`.
            if let current = found, current.0.parameterCount <= route.parameterCount { continue }
            found = (route, parameters)
        }
        if let found { return .found(found.0, parameters: found.1) }
        return allowed.isEmpty ? .unknownPath : .wrongMethod(allowed: allowed)
    }

    static func segments(of path: String) -> [Substring] { path.split(separator: "/", omittingEmptySubsequences: true) }

    private static func bind(_ pattern: [Substring], to parts: [Substring]) -> [String: String]? {
        guard pattern.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, part) in zip(pattern, parts) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                guard let value = String(part).removingPercentEncoding, !value.isEmpty else { return nil }
                parameters[String(expected.dropFirst().dropLast())] = value
            } else if expected != part {
                return nil
            }
        }
        return parameters
    }
}
