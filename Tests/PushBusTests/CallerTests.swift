import ApiKit
import Credentials
import Foundation
import Testing

/// Who an `Authorization` header proves: an app by HTTP Basic, the admin by a Bearer token, the
/// scheme read without regard to case (RFC 7235).
@Suite("API caller")
struct CallerTests {
    let secrets = Secrets.forTests

    func basic(_ scheme: String, _ appKey: String = "app1", secret: String? = nil, spaces: String = " ") -> String {
        let pair = "\(appKey):\(secret ?? secrets.masterSecret(appKey: appKey))"
        return scheme + spaces + Data(pair.utf8).base64EncodedString()
    }

    @Test(arguments: ["Basic", "basic", "BASIC", "bAsIc"])
    func anAppIsProvenWhateverTheSchemesCase(_ scheme: String) {
        #expect(Caller.from(basic(scheme), secrets: secrets) == .app("app1"))
        #expect(Caller.from(basic(scheme, spaces: "   "), secrets: secrets) == .app("app1"))
    }

    @Test(arguments: ["Bearer", "bearer", "BEARER"])
    func theAdminIsProvenWhateverTheSchemesCase(_ scheme: String) {
        #expect(Caller.from("\(scheme) \(secrets.admin)", secrets: secrets) == .admin)
    }

    @Test func anythingElseProvesNoOne() {
        for header in [basic("Basic", secret: "00"), basic("Basicx"), basic("Digest"), "Basic", "Basic ", "Bearer",
                       "Bearer \(secrets.admin.dropLast())", basic("Bearer"), "Basic !!!", basic("Basic", "bad key")] {
            #expect(Caller.from(header, secrets: secrets) == nil, "\(header)")
        }
        #expect(Caller.from(nil, secrets: secrets) == nil)
    }
}
