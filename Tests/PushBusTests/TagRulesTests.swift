import Schema
import Testing

@Suite("tag and alias rules")
struct TagRulesTests {
    func code(_ tags: [String]?) -> Int? {
        do {
            _ = try TagRules.validateTags(tags)
            return 0
        } catch {
            return error.code.rawValue
        }
    }

    func aliasCode(_ alias: String?) -> Int? {
        do {
            _ = try TagRules.validateAlias(alias)
            return 0
        } catch {
            return error.code.rawValue
        }
    }

    @Test(arguments: ["game", "Old_Page", "女性", "a@b!c#d$e&f*g+h=i.j|k", "0123456789", "𠀀ext_b", "丽compat"])
    func allowedTags(_ tag: String) {
        #expect(code([tag]) == 0)
        #expect(aliasCode(tag) == 0)
    }

    @Test(arguments: ["with space", "dash-ed", "slash/ed", "emoji😀", "かな", "한글", "café", "tab\t", "", "percent%"])
    func refusedCharacters(_ tag: String) {
        #expect(code([tag]) == 6005)
        #expect(aliasCode(tag) == (tag.isEmpty ? 6001 : 6003))
    }

    @Test func lengthIsCountedInUTF8Bytes() {
        #expect(code([String(repeating: "a", count: 40)]) == 0)
        #expect(code([String(repeating: "a", count: 41)]) == 6006)
        #expect(code([String(repeating: "标", count: 13)]) == 0, "13 CJK characters are 39 bytes")
        #expect(code([String(repeating: "标", count: 14)]) == 6006, "14 CJK characters are 42 bytes")
        #expect(aliasCode(String(repeating: "别", count: 13)) == 0)
        #expect(aliasCode(String(repeating: "别", count: 14)) == 6004)
        #expect(aliasCode(String(repeating: "x", count: 41)) == 6004)
    }

    @Test func missingOrEmptySetIs6001() {
        #expect(code(nil) == 6001)
        #expect(code([]) == 6001)
        #expect(aliasCode(nil) == 6001)
    }

    @Test func atMost1000TagsPerCall() {
        #expect(code((0..<1000).map { "t\($0)" }) == 0)
        #expect(code((0...1000).map { "t\($0)" }) == 6007)
        #expect(code((0...1000).map { _ in "same" }) == 0, "a set: duplicates count once")
    }

    @Test func atMost5000BytesPerCall() {
        let forty = (0..<125).map { String(format: "%040d", $0) }
        #expect(code(forty) == 0, "125 × 40 = 5000 bytes")
        #expect(code(forty + ["x"]) == 6008, "5001 bytes")
    }

    @Test func checksRunInThePublicOrder() {
        let long = String(repeating: "l", count: 41)
        #expect(code(["bad tag", long]) == 6005, "charset before length")
        #expect(code([long] + (0...1000).map { "t\($0)" }) == 6006, "length before count")
        let big = (0...1000).map { String(format: "%040d", $0) }
        #expect(code(big) == 6007, "count before total bytes")
    }

    @Test func oneTag() throws {
        #expect(try TagRules.validateTag("vip") == "vip")
        #expect(throws: CommandError(.emptyRequest, "tag is missing")) { try TagRules.validateTag("") }
        #expect((try? TagRules.validateTag("a b")) == nil)
    }

    /// Names come back in NFC and are measured there: U+2F800 (4 bytes) is canonically U+4E3D (3).
    @Test func namesAreCheckedAndReturnedInNFC() throws {
        #expect(try TagRules.validateTag("\u{F900}").unicodeScalars.map(\.value) == [0x8C48])
        #expect(try TagRules.validateAlias("a\u{F900}").unicodeScalars.map(\.value) == [0x61, 0x8C48])
        #expect(try TagRules.validateTags(["\u{F900}", "\u{8C48}"]).map { $0.unicodeScalars.map(\.value) } == [[0x8C48]],
                "two spellings of one tag are one tag")
        let eleven = String(repeating: "\u{2F800}", count: 11)
        #expect(try TagRules.validateTag(eleven) == String(repeating: "\u{4E3D}", count: 11), "44 bytes sent, 33 stored")
        #expect(try Validate.channel("e\u{301}").unicodeScalars.map(\.value) == [0xE9])
    }
}
