import Foundation
import ReplayKit

/// The generator of a test that draws random input, seeded so that a failure can be replayed: the
/// seed is `PUSHBUS_TEST_SEED` when set, else a new one each run. It is written to stderr before the
/// test draws anything, so even a crash names it; tests also put it in their failure messages.
struct TestRandom: RandomNumberGenerator {
    static let variable = "PUSHBUS_TEST_SEED"

    let seed: UInt64
    private var generator: SplitMix64

    init(_ test: String = #function) {
        if let text = ProcessInfo.processInfo.environment[Self.variable] {
            guard let seed = UInt64(text) else { preconditionFailure("\(Self.variable) must be a whole number, not \(text)") }
            self.seed = seed
        } else {
            seed = UInt64.random(in: .min ... .max)
        }
        generator = SplitMix64(seed: seed)
        FileHandle.standardError.write(Data("\(test): seed \(seed) (\(Self.variable)=\(seed) replays it)\n".utf8))
    }

    mutating func next() -> UInt64 { generator.next() }
}
