import Foundation

/// A request's proof once the gateway has verified it, and the `ts` it was made at: both go to the
/// worker after the body (`[command, payload, proof, ts]`), so the service knows who signed the
/// request and records the proof, by its time, to refuse it a second time (`ProofLedger`).
struct VerifiedProof {
    let frame: Data
    let ts: Int64

    /// Appends the proof's two frames, the proof and its ts.
    func write(into frames: inout [Data]) {
        frames.append(frame)
        frames.append(Data(String(ts).utf8))
    }
}
