import TagCharacters

/// The seed's checks, made before anything is sent (an invalid tag is 6005 without a request), in
/// the public service's order: null, charset, length, count, total bytes.
enum Validation {
    /// The server's own table (`TagCharacters`), so the SDK refuses exactly what the server would.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool { TagCharacters.isAllowed(scalar) }

    /// The code of `tags`, or nil when they may be sent: 6001 none or an empty one, 6005 a character
    /// outside the set, 6006 one over 40 bytes, 6007 more than 1000, 6008 over 5000 bytes in all.
    static func tags(_ tags: Set<String>, allowEmpty: Bool = false) -> Int? {
        if tags.isEmpty { return allowEmpty ? nil : PushBusCode.emptyRequest }
        if tags.contains(where: \.isEmpty) { return PushBusCode.emptyRequest }
        if tags.contains(where: { !$0.unicodeScalars.allSatisfy(isAllowed) }) { return PushBusCode.tagCharset }
        if tags.contains(where: { $0.utf8.count > 40 }) { return PushBusCode.tagTooLong }
        if tags.count > 1000 { return PushBusCode.tooManyTags }
        if tags.reduce(0, { $0 + $1.utf8.count }) > 5000 { return PushBusCode.tagsTooLarge }
        return nil
    }

    /// The code of `alias`, or nil: 6001 empty, 6003 a character outside the set, 6004 over 40 bytes.
    static func alias(_ alias: String) -> Int? {
        if alias.isEmpty { return PushBusCode.emptyRequest }
        if !alias.unicodeScalars.allSatisfy(isAllowed) { return PushBusCode.aliasCharset }
        if alias.utf8.count > 40 { return PushBusCode.aliasTooLong }
        return nil
    }

    /// The code of a mobile number, or nil ("" or nil unbinds): 6023 not `+` or a digit first then
    /// digits and `-`, 6025 over 20 characters.
    static func mobile(_ mobile: String?) -> Int? {
        guard let mobile, !mobile.isEmpty else { return nil }
        if mobile.count > 20 { return PushBusCode.mobileTooLong }
        let scalars = Array(mobile.unicodeScalars)
        let first = scalars[0]
        guard first == "+" || ("0"..."9").contains(first),
              scalars.dropFirst().allSatisfy({ ("0"..."9").contains($0) || $0 == "-" }) else { return PushBusCode.mobileFormat }
        return nil
    }
}
