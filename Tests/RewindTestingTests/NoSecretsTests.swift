import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import RewindTesting
import Testing

/// `assertNoSecrets`: an app's test plants a secret, records with the app's redaction, and the
/// assertion proves it never reached the log — and fails, naming where, when it did.
@Suite("assertNoSecrets")
struct NoSecretsTests {
    struct Account: Codable, Sendable, Equatable {
        var name = ""
        var token: String?
    }

    enum AccountAction: Codable, Sendable {
        case signedIn(name: String, token: String)
        case renamed(String)
    }

    static let reducer = Reducer<Account, AccountAction> { account, action in
        switch action {
        case let .signedIn(name, token):
            account.name = name
            account.token = token
        case let .renamed(name):
            account.name = name
        }
    }

    static let planted = "tok_PLANTED_0c5e1a"

    /// A session that signs in with the planted token, recorded with `redaction`.
    static func recorded(with redaction: Redaction<Account, AccountAction>, in folder: TemporaryDirectory) throws -> EventLog {
        let log = try EventLog(path: folder.file("account.rewind"))
        var configuration = RecorderConfiguration<Account, AccountAction>()
        configuration.redaction = redaction
        configuration.snapshotInterval = 1
        configuration.snapshotBudget = .infinity
        let recorder = Recorder<Account, AccountAction>(log: log, app: AppIdentity(id: "com.example.account"), configuration: configuration)
        let store = Store(initialState: Account(), reducer: reducer, middleware: recorder.middleware)
        store.dispatch(.signedIn(name: "ada", token: planted))
        store.dispatch(.renamed("ada l."))
        try recorder.close()
        return log
    }

    @Test("a redaction that scrubs the token from actions and state passes")
    func redacted() throws {
        let folder = try TemporaryDirectory()
        let redaction = Redaction<Account, AccountAction> { action in
            if case let .signedIn(name, _) = action { return .scrub(.signedIn(name: name, token: "•••")) }
            return .keep
        }
        .scrubbing(\.token, with: nil)
        let log = try Self.recorded(with: redaction, in: folder)
        #expect(assertNoSecrets(in: log, planted: [Self.planted]).isEmpty)
    }

    @Test("a redaction that forgets the state fails, naming the snapshot; none fails on the action too")
    func leaks() throws {
        let folder = try TemporaryDirectory()
        let actionsOnly = Redaction<Account, AccountAction> { action in
            if case let .signedIn(name, _) = action { return .scrub(.signedIn(name: name, token: "•••")) }
            return .keep
        }
        let log = try Self.recorded(with: actionsOnly, in: folder)
        withKnownIssue {
            let findings = assertNoSecrets(in: log, planted: [Self.planted])
            #expect(!findings.isEmpty && findings.allSatisfy { $0.kind == .planted && $0.line == "snapshot" })
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return message.contains("holds a secret: planted in the snapshot at seq") && !message.contains(Self.planted)
        }

        let other = try TemporaryDirectory()
        let none = try Self.recorded(with: .none, in: other)
        withKnownIssue {
            let findings = assertNoSecrets(in: none, planted: [Self.planted])
            #expect(findings.contains { $0.line == "event" && $0.seq == 1 })
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return message.contains("holds a secret: planted in the ") && !message.contains(Self.planted)
        }
    }
}
