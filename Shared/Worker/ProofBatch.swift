import Foundation

/// The proofs one transaction recorded, as `ProofLedger` keeps them in one row: each proof's `ts`
/// and fingerprint, 8 bytes each, little-endian, one proof after another.
struct ProofBatch {
    struct Proof {
        let ts: Int64
        let fingerprint: UInt64
    }

    static let bytesPerProof = 16

    /// The newest `ts` among the proofs: the row is forgotten once that one is.
    let newest: Int64
    let bytes: Data

    init(_ proofs: [Proof]) {
        var newest = Int64.min
        var bytes = Data(count: proofs.count * Self.bytesPerProof)
        bytes.withUnsafeMutableBytes { raw in
            for (index, proof) in proofs.enumerated() {
                raw.storeBytes(of: proof.ts.littleEndian, toByteOffset: index * Self.bytesPerProof, as: Int64.self)
                raw.storeBytes(of: proof.fingerprint.littleEndian, toByteOffset: index * Self.bytesPerProof + 8, as: UInt64.self)
                newest = max(newest, proof.ts)
            }
        }
        self.newest = newest
        self.bytes = bytes
    }

    /// The proofs packed in `bytes`; a trailing part shorter than a proof is no proof.
    static func proofs(in bytes: Data) -> [Proof] {
        bytes.withUnsafeBytes { raw in
            (0..<(raw.count / bytesPerProof)).map { index in
                Proof(ts: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: index * bytesPerProof, as: Int64.self)),
                      fingerprint: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * bytesPerProof + 8, as: UInt64.self)))
            }
        }
    }
}
