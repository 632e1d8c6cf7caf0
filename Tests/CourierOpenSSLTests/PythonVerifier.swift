// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Foundation

/// verify_dpop.py, run once per call: checks proofs with Python's `cryptography`, code that is
/// not Courier's. The test waits for the process to end, never for a clock.
enum PythonVerifier {
    struct Request: Encodable {
        var proof: String
        let htm: String
        let htu: String
        var access_token: String? = nil
        var nonce: String? = nil
        let now: Int
        var thumbprint: String? = nil
        /// The signing key's PKCS#8 DER export, base64: checked to hold the JWK's public key.
        var pkcs8: String? = nil
    }

    struct Verdict: Decodable {
        let ok: Bool
        let jti: String?
        let thumbprint: String?
        let error: String?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("verify_dpop.py")

    /// One verdict per request, in order.
    static func verify(_ requests: [Request]) async throws -> [Verdict] {
        let encoder = JSONEncoder()
        var input = Data()
        for request in requests {
            input += try encoder.encode(request)
            input += Data("\n".utf8)
        }
        let process = Process()
        // The first python3 that has `cryptography`: the one on the PATH (pyenv's, say), else
        // the distribution's, where .ci/run installs python3-cryptography when it is missing.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            """
            for p in python3 /usr/bin/python3; do
                if "$p" -c 'import cryptography' 2>/dev/null; then exec "$p" "$0"; fi
            done
            echo 'no python3 with the cryptography package' >&2; exit 127
            """,
            script.path,
        ]
        let stdin = Pipe()
        let stdout = Pipe()
        // Python's complaints go to a file, so reading them can never block its output.
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("verify_dpop-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorsFile)
        try process.run()
        // Writing, reading and waiting block threads: each gets its own, off the test's executor.
        let written = input
        DispatchQueue.global().async {
            stdin.fileHandleForWriting.write(written)
            try? stdin.fileHandleForWriting.close()
        }
        let output = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let output = stdout.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: output)
            }
        }
        let errors = (try? Data(contentsOf: errorsFile)) ?? Data()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "verify_dpop.py exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))"
            )
        }
        let verdicts = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Verdict.self, from: Data($0.utf8))
        }
        guard verdicts.count == requests.count else {
            throw Failure(
                description:
                    "\(verdicts.count) verdicts for \(requests.count) proofs: \(String(decoding: errors, as: UTF8.self))"
            )
        }
        return verdicts
    }
}

#endif
