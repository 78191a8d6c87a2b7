import Foundation

/// A multipart ZeroMQ message: an ordered list of frames.
public struct Message: Equatable, Sendable {
    public var frames: [Data]

    public init(_ frames: [Data] = []) { self.frames = frames }

    public init(strings: [String]) { self.frames = strings.map { Data($0.utf8) } }

    public var count: Int { frames.count }
    public var isEmpty: Bool { frames.isEmpty }

    public subscript(index: Int) -> Data { frames[index] }

    /// The frame at `index` decoded as UTF-8, or nil when it is missing or not UTF-8.
    public func string(at index: Int) -> String? {
        guard frames.indices.contains(index) else { return nil }
        return String(data: frames[index], encoding: .utf8)
    }

    /// Total bytes over all frames.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.count } }

    public mutating func append(_ frame: Data) { frames.append(frame) }
    public mutating func append(_ text: String) { frames.append(Data(text.utf8)) }
}
