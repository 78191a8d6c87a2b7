import TagCharacters
/// The rules the SDKs apply to tags and aliases, checked in the public service's order:
/// null → charset → length → count → total bytes. A tag or alias is 1…40 UTF-8 bytes of letters
/// (case-sensitive), digits, `_`, CJK ideographs and `@!#$&*+=.|`. Each rule checks and returns the
/// name in `CanonicalForm` (NFC), so its bytes are counted, stored and compared in that form.
public enum TagRules {
    public static let maxBytes = 40
    public static let maxTagsPerCall = 1000
    public static let maxTotalBytesPerCall = 5000
    public static let maxTagsPerDevice = 1000

    /// True when every character is allowed (and there is at least one).
    public static func hasValidCharacters(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isAllowed)
    }

    /// Validates a tag set as `tags.add` / `tags.set` / `tags.delete` take it: 6001 when missing or empty,
    /// then 6005 charset, 6006 length, 6007 count, 6008 total bytes. Returns the distinct tags in order,
    /// in NFC (two spellings of one tag are one tag).
    public static func validateTags(_ tags: [String]?) throws(CommandError) -> [String] {
        guard let given = tags, !given.isEmpty else { throw .empty("tags is missing or empty: give at least one tag") }
        // The given list itself when every tag is in NFC already (nearly always): no copy made.
        var tags = given
        for index in tags.indices where !CanonicalForm.isASCII(tags[index]) { tags[index] = CanonicalForm.of(tags[index]) }
        if let bad = tags.first(where: { !hasValidCharacters($0) }) {
            throw CommandError(.tagCharset, "tag \(quoted(bad)) has characters outside letters, digits, _, CJK and @!#$&*+=.|")
        }
        if let long = tags.first(where: { $0.utf8.count > maxBytes }) {
            throw CommandError(.tagTooLong, "tag \(quoted(long)) is longer than \(maxBytes) bytes")
        }
        let distinct = distinctInOrder(tags)
        guard distinct.count <= maxTagsPerCall else {
            throw CommandError(.tooManyTags, "\(distinct.count) tags in one call; at most \(maxTagsPerCall)")
        }
        let total = distinct.reduce(0) { $0 + $1.utf8.count }
        guard total <= maxTotalBytesPerCall else {
            throw CommandError(.tagsTooLarge, "the tags of one call total \(total) bytes; at most \(maxTotalBytesPerCall)")
        }
        return distinct
    }

    /// `tags` without repeats, in order: the list itself when it has none. A few are compared
    /// with one another, which makes no set; many go through one.
    static func distinctInOrder(_ tags: [String]) -> [String] {
        if tags.count <= 16 {
            let hasRepeats = tags.indices.contains { index in tags[..<index].contains(tags[index]) }
            guard hasRepeats else { return tags }
        }
        var seen = Set<String>(minimumCapacity: tags.count)
        return tags.filter { seen.insert($0).inserted }
    }

    /// One tag (`tags.valid`): 6001 when missing or empty, 6005 charset, 6006 length.
    public static func validateTag(_ given: String?) throws(CommandError) -> String {
        guard let given, !given.isEmpty else { throw .empty("tag is missing") }
        let tag = CanonicalForm.of(given)
        guard hasValidCharacters(tag) else {
            throw CommandError(.tagCharset, "tag \(quoted(tag)) has characters outside letters, digits, _, CJK and @!#$&*+=.|")
        }
        guard tag.utf8.count <= maxBytes else { throw CommandError(.tagTooLong, "tag is longer than \(maxBytes) bytes") }
        return tag
    }

    /// An alias (`alias.set`): 6001 when missing or empty, 6003 charset, 6004 length.
    public static func validateAlias(_ given: String?) throws(CommandError) -> String {
        guard let given, !given.isEmpty else { throw .empty("alias is missing") }
        let alias = CanonicalForm.of(given)
        guard hasValidCharacters(alias) else {
            throw CommandError(.aliasCharset, "alias has characters outside letters, digits, _, CJK and @!#$&*+=.|")
        }
        guard alias.utf8.count <= maxBytes else { throw CommandError(.aliasTooLong, "alias is longer than \(maxBytes) bytes") }
        return alias
    }

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool { TagCharacters.isAllowed(scalar) }

    private static func quoted(_ text: String) -> String {
        "\"\(text.prefix(48))\(text.count > 48 ? "…" : "")\""
    }
}
