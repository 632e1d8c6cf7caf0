import Courier
import Foundation
import Testing

/// Storage errors say which operation failed (taking the lock, writing the token, reading it)
/// and keep the operating system's reason and the file's name, which name no secret, even
/// when the error is quoted inside an authentication error.
@Suite("Storage error text")
struct StorageErrorTextTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-errtext-\(UUID().uuidString)")

    @Test("a reason after a path that names the token file is kept when the error is quoted")
    func reasonKept() {
        let failure = TokenStoreError.writeFailed("cannot write /data/.token.json.0B2C.tmp: No space left on device")
        let quoted = CourierError.authentication(.refreshFailed(failure)).description
        #expect(quoted.contains("No space left on device"), "\(quoted)")
        #expect(quoted.contains(".token.json.0B2C.tmp"), "\(quoted)")
        #expect(!quoted.contains("<redacted>"), "\(quoted)")
        let unstored = TokenNotStored(underlying: failure).description
        #expect(unstored.contains("No space left on device"), "\(unstored)")
    }

    @Test(
        "a lock file that cannot be created is a failure to take the lock, with the system's reason, not a failed token write"
    )
    func lockNamed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A plain file where the lock file's directory should be.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let blocker = folder.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let store = FileTokenStore(url: blocker.appendingPathComponent("token.json"))
        #expect {
            try store.save(OAuthToken(accessToken: "SECRET-A", refreshToken: "SECRET-R"))
        } throws: { error in
            guard case .lockFailed = error as? TokenStoreError else { return false }
            let text = "\(error)"
            return text.hasPrefix("Taking the token's lock failed: ") && text.contains("not-a-directory")
                && !text.contains("SECRET") && !text.contains("<redacted>")
        }
    }
}
