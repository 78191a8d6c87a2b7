import Testing
@testable import JSON

/// `JSONObject.sort(keepingLast:)` (in place, what the encoder uses) orders and keeps members
/// exactly as `sorted(keepingLast:)` does, duplicate and canonically equal keys included.
@Suite("JSON object sort")
struct JSONObjectSortTests {
    @Test func sortingInPlaceKeepsWhatSortedKeeps() {
        var generator = SystemRandomNumberGenerator()
        let keys = ["a", "b", "B", "aa", "a1", "_", "10", "9", "é", "e\u{301}", "code", "seq", "z", "中"]
        for round in 0..<2_000 {
            let count = Int.random(in: 0...20, using: &generator)
            let members = (0..<count).map { index in (key: keys.randomElement(using: &generator)!, value: JSONValue.number(JSONNumber(index))) }
            for keepingLast in [true, false] {
                var inPlace = JSONObject(members: members)
                inPlace.sort(keepingLast: keepingLast)
                let expected = JSONObject(members: members).sorted(keepingLast: keepingLast)
                #expect(inPlace.members.map(\.key) == expected.members.map(\.key), "round \(round)")
                #expect(inPlace.members.map(\.value) == expected.members.map(\.value), "round \(round)")
            }
        }
    }
}
