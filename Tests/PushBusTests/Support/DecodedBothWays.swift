import Foundation
@testable import JSON

/// The two ways `JSONTreeDecoder` reads a document, each on its own, for tests that compare them.
enum DecodedBothWays {
    /// What `T` decodes to from `text` in place (nil when the document is not one the scanner reads).
    static func inPlace<T: Decodable>(_ type: T.Type, _ text: String) -> Result<T, any Error>? {
        let data = Data(text.utf8)
        return data.withUnsafeBytes { bytes in
            ScanDecoder.reading(bytes).map { decoder in Result { try decoder.decode(type) } }
        }
    }

    /// What `T` decodes to from `text` through the tree.
    static func fromTree<T: Decodable>(_ type: T.Type, _ text: String) -> Result<T, any Error> {
        Result { try JSONTreeDecoder().decodeFromTree(type, from: Data(text.utf8)) }
    }
}
