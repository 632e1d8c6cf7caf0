import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Serialized: the transfers of one suite run one after another, so the suites together
// never load this 2-core machine with dozens of uploads at once (timing tests run beside).
@Suite("A 401 on an upload replays it when its body can be sent again", .serialized, .timeLimit(.minutes(20)))
struct UploadReplayTests {
    let server: TestServer
    let scratch: ScratchDirectory
    let provider: RefreshableProvider<ServerAPI>

    /// One server for the suite, whose tests run one at a time: each signs in afresh,
    /// expires every token and resets the counters.
    private static let sharedServer = Task { try await TestServer.start() }

    /// Signs in with a fresh token from the server, then expires it, so that the next signed
    /// request gets a 401 and the session refreshes through the real `/oauth/token`.
    init() async throws {
        let server = try await Self.sharedServer.value
        self.server = server
        scratch = try ScratchDirectory()
        let tokenProvider = Provider<ServerAPI>()
        let auth = AuthSession(
            refresh: { token in
                let response = try await tokenProvider.request(
                    ServerAPI(
                        server, "oauth/token", method: .post,
                        task: .requestParameters(
                            parameters: ["grant_type": "refresh_token", "refresh_token": token.refreshToken ?? ""],
                            encoding: URLEncoding.httpBody),
                        authorizationType: nil))
                return try OAuthToken(response: response)
            }, refreshTimeout: testRefreshTimeout)
        try await auth.signIn(OAuthToken(tokenResponse: server.issueToken(lifetime: 3600), receivedAt: Date()))
        try await server.expireAccessTokens()
        try await server.resetCounters()
        provider = RefreshableProvider(auth: auth)
    }

    @Test("a file upload is sent again after one refresh and arrives whole")
    func fileUploadReplays() async throws {
        defer { scratch.remove() }
        let file = try await scratch.file("doc.pdf", size: 1024 * 1024 + 1, seed: 14)
        let response = try await provider.request(
            ServerAPI(server, "api/documents", method: .post, task: .uploadFile(file)))

        #expect(response.statusCode == 200)
        #expect(try response.map(ProtectedEcho.self).bodyLength == 1024 * 1024 + 1)
        let counters = try await server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 1)
        #expect(counters.protectedOK == 1)
    }

    @Test("a multipart body written to disk is written again for the replay, and both files are removed")
    func diskMultipartReplays() async throws {
        defer { scratch.remove() }
        let file = try await scratch.file("clip.mov", size: 1024 * 1024, seed: 15)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "owner"),
            MultipartFormBodyPart(
                provider: .file(file), name: "clip", fileName: "clip.mov", mimeType: "video/quicktime"),
        ]
        let response = try await scratch.withTransfers(diskThreshold: 64 * 1024) {
            try await provider.request(ServerAPI(server, "api/clips", method: .post, task: .uploadMultipart(parts)))
        }

        #expect(response.statusCode == 200)
        #expect(try response.map(ProtectedEcho.self).bodyLength > 1024 * 1024)
        let counters = try await server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 1)
        #expect(counters.protectedOK == 1)
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test("progress stays monotonic across the replay and ends at 1 with the 200")
    func progressAcrossReplay() async throws {
        defer { scratch.remove() }
        let file = try await scratch.file("photo.heic", size: 2 * 1024 * 1024, seed: 16)
        var steps: [ProgressResponse] = []
        for try await step in provider.requestWithProgress(
            ServerAPI(server, "api/photos", method: .post, task: .uploadFile(file)))
        {
            steps.append(step)
        }

        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne)
        #expect(steps.last?.response?.statusCode == 200)
        // Both attempts reported their bytes: the count went back to zero once, the
        // fraction never did.
        let restarts = zip(steps, steps.dropFirst()).filter { $1.completedBytes < $0.completedBytes && !$1.completed }
        #expect(restarts.count == 1)
        #expect(try await server.counters().refreshGrants == 1)
    }

    @Test("a multipart body with a stream part is not replayed: the 401 comes back as it is")
    func streamPartIsNotReplayed() async throws {
        defer { scratch.remove() }
        let bytes = PseudoRandomBytes.data(count: 200_000, seed: 17)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("x".utf8)), name: "field"),
            MultipartFormBodyPart(
                provider: .stream(InputStream(data: bytes), length: UInt64(bytes.count)), name: "live",
                fileName: "live.bin"),
        ]
        let response = try await provider.request(
            ServerAPI(server, "api/live", method: .post, task: .uploadMultipart(parts)))

        #expect(response.statusCode == 401)
        let counters = try await server.counters()
        #expect(counters.protectedRequests == 1, "sent once")
        #expect(counters.refreshGrants == 0, "no refresh for a request that cannot be replayed")
    }
}
