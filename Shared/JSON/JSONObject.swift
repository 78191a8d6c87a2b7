/// A JSON object's members in the order read or set. A key that a document gives twice stays twice,
/// so parsing hashes nothing; reading takes the first of a key, as Foundation's decoder does. Two
/// objects are equal when they map the same keys to equal values, whatever the order.
public struct JSONObject: Hashable, Sendable {
    public private(set) var members: [(key: String, value: JSONValue)]

    init(members: [(key: String, value: JSONValue)]) { self.members = members }

    public init(_ dictionary: [String: JSONValue] = [:]) {
        members = dictionary.map { (key: $0.key, value: $0.value) }
    }

    public var isEmpty: Bool { members.isEmpty }

    /// How many keys it has.
    public var count: Int { members.count < 2 ? members.count : dictionary.count }

    /// Each key with its first value.
    public var dictionary: [String: JSONValue] {
        Dictionary(members.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The first value of `key`; setting replaces every value of `key`, nil removes them.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                members.removeAll { $0.key == key }
                if let newValue { members.insert((key, newValue), at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.dictionary == b.dictionary }

    public func hash(into hasher: inout Hasher) { hasher.combine(dictionary) }

    /// The members sorted by key as Foundation's `.sortedKeys` orders them (by Unicode scalar, which
    /// UTF-8 bytes sort the same way), one of each key: the last set when `keepingLast` (what an
    /// encoder's container does), else the first (what a decoder reads).
    func sorted(keepingLast: Bool) -> JSONObject {
        guard members.count > 1 else { return self }
        let order = members.indices.sorted { a, b in
            let (x, y) = (members[a].key, members[b].key)
            return x.precedesInByteOrder(y) || (x == y && a < b)
        }
        var result: [(key: String, value: JSONValue)] = []
        result.reserveCapacity(order.count)
        for (position, index) in order.enumerated() {
            let neighbour = keepingLast ? position + 1 : position - 1
            if order.indices.contains(neighbour), members[order[neighbour]].key == members[index].key { continue }
            result.append(members[index])
        }
        return JSONObject(members: result)
    }

    /// Sorts the members in place as `sorted(keepingLast:)` returns them. An encoder's object holds
    /// its members alone, so a small one (every reply and event) is sorted without a copy: by
    /// insertion, stable for equal keys as the sort of `sorted` is for so few.
    mutating func sort(keepingLast: Bool) {
        guard members.count > 1, !isSortedOnce else { return }
        guard members.count <= Self.sortedInPlaceUpTo else { return self = sorted(keepingLast: keepingLast) }
        for next in 1..<members.count {
            var slot = next
            while slot > 0, members[slot].key.precedesInByteOrder(members[slot - 1].key) {
                members.swapAt(slot, slot - 1)
                slot -= 1
            }
        }
        var kept = 1
        for index in 1..<members.count {
            if members[kept - 1].key == members[index].key {
                if keepingLast { members[kept - 1] = members[index] }
            } else {
                if kept != index { members[kept] = members[index] }
                kept += 1
            }
        }
        members.removeLast(members.count - kept)
    }

    /// Objects of up to this many members sort in place by insertion; larger ones are sorted anew.
    static let sortedInPlaceUpTo = 16

    /// Whether sorting changes nothing: the keys' bytes ascend strictly and no two neighbours are equal
    /// as `String`s (`é` composed and not are, and `sorted(keepingLast:)` keeps one of them).
    var isSortedOnce: Bool {
        members.indices.dropFirst().allSatisfy {
            members[$0 - 1].key.precedesInByteOrder(members[$0].key) && members[$0 - 1].key != members[$0].key
        }
    }

    func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        JSONObject(members: try members.map { ($0.key, try transform($0.value)) })
    }
}
