import Foundation

// libFuzzer entry for the decoders that read untrusted bytes: the MDP frame parsers and the JSON
// payload codec. Built by `make fuzz` with `swiftc -sanitize=fuzzer`, together with the sources of
// Shared/ZeroMQ, Shared/Majordomo, Shared/JSON and Shared/Schema compiled as one module (see Tools/fuzz.sh).
// The input is split into frames at each 0xFE byte, so the fuzzer reaches every frame layout.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoders(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let frames = data.split(separator: 0xFE, omittingEmptySubsequences: false).map { Data($0) }

    _ = try? Inbound(Message(frames))
    _ = try? WorkerMessage(frames: frames[...])
    _ = try? ClientMessage(frames: frames[...])

    _ = try? JSONTreeDecoder().decode(JSONValue.self, from: data)
    _ = try? WireCodec.decode(Envelope<TagsChange>.self, from: data)
    _ = try? WireCodec.decode(DeviceUpdate.self, from: data)
    _ = try? WireCodec.decode(LocalAdd.self, from: data)
    _ = try? WireCodec.decode(MAProperty.self, from: data)
    _ = try? WireCodec.decode(AudienceResolve.self, from: data)
    _ = try? RecordedCall(line: data)
    if let value = try? JSONTreeDecoder().decode(JSONValue.self, from: data) {
        // What decodes must encode, and read back the same.
        let again = try? JSONTreeDecoder().decode(JSONValue.self, from: WireCodec.encode(value))
        if again != value, !value.containsNonFinite { fatalError("JSON round trip changed \(value)") }
    }
    return 0
}

extension JSONValue {
    /// Numbers that print differently but compare unequal after a round trip (none in practice: JSON has no NaN).
    var containsNonFinite: Bool {
        switch self {
        case .number(let value): !value.isFinite
        case .array(let items): items.contains { $0.containsNonFinite }
        case .object(let fields): fields.dictionary.values.contains { $0.containsNonFinite }
        default: false
        }
    }
}
