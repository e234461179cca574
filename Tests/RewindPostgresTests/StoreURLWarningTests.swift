import Foundation
import RewindTestSupport
import Testing

/// The warnings `rewind` prints for a store URL that puts its password at risk, through the
/// built binary. No server is needed: the warning comes as the URL is read, before connecting
/// (to a name that does not resolve, so each run ends at once).
@Suite("Store URL warnings")
struct StoreURLWarningTests {
    static let psWarning = "holds a password on the command line, where other users of this machine can read it (ps)"
    static let unverified = "is sent to a server whose certificate is not checked (sslmode=prefer)"

    @Test("a password in the URL, or sent to a remote server unverified, is warned about once, never shown; PGPASSWORD to loopback is not")
    func warnings() async throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        let secret = "s3cret-in-argv"
        let cases: [([String], [String: String], [String], [String])] = [
            // In the URL, to a remote host, sslmode=prefer (the default): both.
            (["sessions", "postgres://fleet:\(secret)@db.invalid/logs"], [:], [Self.psWarning, "the password for db.invalid " + Self.unverified], []),
            // From the environment, unencrypted to a remote host: that one only.
            (["sessions", "postgres://fleet@db.invalid/logs?sslmode=disable"], ["PGPASSWORD": secret], ["the password for db.invalid is sent unencrypted (sslmode=disable)"], [Self.psWarning]),
            // sslmode=require encrypts but does not verify.
            (["push", "x.rewind", "postgres://fleet@db.invalid/logs?sslmode=require"], ["PGPASSWORD": secret], ["(sslmode=require)"], [Self.psWarning]),
            // Verified: nothing to say about the connection; the URL's password still is.
            (["sessions", "postgres://fleet:\(secret)@db.invalid/logs?sslmode=verify-full"], [:], [Self.psWarning], ["certificate is not checked"]),
            // From the environment to loopback: nothing at all.
            (["sessions", "postgres://fleet@127.0.0.1:1/logs"], ["PGPASSWORD": secret], [], ["warning:"]),
            // No password anywhere: nothing.
            (["sessions", "postgres://fleet@db.invalid/logs"], ["PGPASSWORD": "", "PGPASSFILE": "/nonexistent"], [], ["warning:"]),
        ]
        for (arguments, environment, expected, unexpected) in cases {
            let result = try await run(rewind, arguments, in: folder.path, environment: environment.merging(["HOME": folder.path]) { given, _ in given }, timeout: 60)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            for text in expected {
                #expect(result.standardError.contains(text), "\(arguments): \(result.standardError)")
            }
            for text in unexpected {
                #expect(!result.standardError.contains(text), "\(arguments): \(result.standardError)")
            }
            #expect(!result.standardError.contains(secret) && !result.standardOutput.contains(secret), "\(arguments)")
            // Each warning once, however many times the URL is read.
            let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("warning:") }
            #expect(Set(lines).count == lines.count, "\(arguments): \(result.standardError)")
        }
    }
}
