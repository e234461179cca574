import Foundation
import Rewind
import RewindCoding
@testable import RewindCodingCore
@testable import RewindLogCore
@testable import RewindSQLite
import RewindReplay
import RewindTestSupport
import Testing

/// A redaction policy searched for the way an attacker would: every secret the app handled is
/// looked for, as raw bytes, in the log file, its `-wal` file, an export and a shrink fixture.
@Suite("Redaction")
struct RedactionTests {
    /// A vault app whose secrets travel in actions, in the state and in dispatch notes.
    struct Vault: Codable, Equatable, Sendable {
        var user: String?
        var token: String?
        var pin: String?
        var balance = 0
        var history: [String] = []
    }

    /// A credential that encodes itself as a single string: a case path taken from its
    /// description would read `received.token("…")`.
    enum Credential: Codable, Equatable, Sendable {
        case token(String)
        init(from decoder: any Decoder) throws { self = .token(try decoder.singleValueContainer().decode(String.self)) }
        func encode(to encoder: any Encoder) throws {
            guard case let .token(value) = self else { return }
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// A value whose encoding fails with an error that quotes it.
    struct Poison: Codable, Equatable, Sendable {
        var secret: String
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(secret, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "cannot encode \(secret)"))
        }
    }

    enum Action: Codable, Equatable, Sendable {
        case login(user: String, password: String)
        case received(Credential)
        case setPin(String)
        case deposit(Int)
        case withdraw(Int)
        case attach(Poison)
    }

    static let reducer = Reducer<Vault, Action> { state, action in
        switch action {
        case let .login(user, _): state.user = user
        case let .received(.token(token)): state.token = token
        case let .setPin(pin): state.pin = pin
        case let .deposit(amount): state.balance += amount
        case let .withdraw(amount): state.balance -= amount
        case .attach: break
        }
        state.history.append(state.user ?? "nobody")
    }

    /// Scrubs every secret of the vault: the password and token in actions, the pin action
    /// whole, the token and pin in the state.
    static let policy = Redaction<Vault, Action> { action in
        switch action {
        case let .login(user, _): .scrub(.login(user: user, password: "•••"))
        case .received: .scrub(.received(.token("•••")))
        case .setPin: .withhold
        default: .keep
        }
    }
    .scrubbing(\.token, with: nil)
    .scrubbing(\.pin, with: nil)

    static let secrets = [
        "PASSWORD-hunter2", "TOKEN-8f3a9c", "PIN-4321", "NOTE-LOGIN-hunter2", "NOTE-PIN-4321", "POISON-value",
        // Dispatched while the disk was full, so they are lost; the session recording resumes
        // in holds them in its state.
        "TOKEN-after-gap", "PIN-after-gap",
    ]

    /// Records two sessions under ``policy`` with the default configuration: one that can be
    /// replayed (scrubbed actions only; a full disk in the middle, so recording resumes from a
    /// fresh snapshot of the live state) and one with a withheld action and an unencodable one.
    /// Returns the bytes of the log and its `-wal` taken while the recorder was open.
    static func record(to path: String) throws -> (log: Data, wal: Data) {
        var configuration = RecorderConfiguration<Vault, Action>()
        configuration.redaction = policy
        configuration.onFailure = { _ in }
        let log = try EventLog(path: path)
        let recorder = Recorder<Vault, Action>(log: log, app: AppIdentity(id: "vault"), configuration: configuration)
        // The secrets are in the initial state too.
        let store = Store(initialState: Vault(token: "TOKEN-8f3a9c", pin: "PIN-4321"), reducer: reducer, middleware: recorder.middleware)
        store.dispatch(.login(user: "ada", password: "PASSWORD-hunter2"), info: "NOTE-LOGIN-hunter2")
        store.dispatch(.received(.token("TOKEN-8f3a9c")))
        // Enough actions for periodic snapshots under the default interval and budget.
        for index in 0..<2_500 { store.dispatch(index % 3 == 2 ? .withdraw(2) : .deposit(1), info: "tapped") }
        store.dispatch(.withdraw(5))
        try recorder.flush()
        try log.simulateFullDisk()
        store.dispatch(.received(.token("TOKEN-after-gap")))
        store.dispatch(.setPin("PIN-after-gap"))
        for _ in 0..<300 { store.dispatch(.deposit(1)) }
        _ = try? recorder.flush()
        try log.freeDiskSpace()
        for _ in 0..<10 { store.dispatch(.withdraw(1)) }
        for _ in 0..<1_200 { store.dispatch(.withdraw(2)) }
        try recorder.flush()

        let second = Recorder<Vault, Action>(log: log, app: AppIdentity(id: "vault"), configuration: configuration)
        let other = Store(initialState: Vault(), reducer: reducer, middleware: second.middleware)
        other.dispatch(.setPin("PIN-4321"), info: "NOTE-PIN-4321")
        other.dispatch(.attach(Poison(secret: "POISON-value")))
        other.dispatch(.deposit(5))
        // Throws the encoding failure (to the app, in memory, with its text).
        _ = try? second.flush()
        // Taken while both recorders are open, before a checkpoint folds the WAL into the file.
        let bytes = (try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
        try second.close()
        try recorder.close()
        try log.close()
        return bytes
    }

    static func hits(in data: Data) -> [String] {
        secrets.filter { data.range(of: Data($0.utf8)) != nil }
    }

    @Test("no secret reaches the log, its WAL, an export or a shrink fixture; the recording still replays and verifies")
    func secretSearch() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("vault.rewind")
        let (logBytes, walBytes) = try Self.record(to: path)
        #expect(walBytes.count > 100_000, "the WAL held the recording when it was searched")
        #expect(Self.hits(in: logBytes) == [])
        #expect(Self.hits(in: walBytes) == [])
        #expect(Self.hits(in: try Data(contentsOf: URL(fileURLWithPath: path))) == [])

        // The search can fail: the same recording without the policy holds every secret the
        // writer was given (the one that cannot be encoded and the lost ones aside).
        let unredacted = folder.file("unredacted.rewind")
        var configuration = RecorderConfiguration<Vault, Action>()
        configuration.onFailure = { _ in }
        let plainLog = try EventLog(path: unredacted)
        let plain = Recorder<Vault, Action>(log: plainLog, app: AppIdentity(id: "vault"), configuration: configuration)
        let plainStore = Store(initialState: Vault(token: "TOKEN-8f3a9c"), reducer: Self.reducer, middleware: plain.middleware)
        plainStore.dispatch(.login(user: "ada", password: "PASSWORD-hunter2"), info: "NOTE-LOGIN-hunter2")
        plainStore.dispatch(.setPin("PIN-4321"), info: "NOTE-PIN-4321")
        try plain.close()
        try plainLog.close()
        let plainHits = Self.hits(in: try Data(contentsOf: URL(fileURLWithPath: unredacted)))
        #expect(plainHits == ["PASSWORD-hunter2", "TOKEN-8f3a9c", "PIN-4321", "NOTE-LOGIN-hunter2", "NOTE-PIN-4321"], "\(plainHits)")

        let log = try EventLog(path: path, mode: .readOnly)
        let sessions = try log.sessions()
        #expect(sessions.count == 3, "the first session, the one resumed after the full disk, the second recorder's")
        #expect(try log.gaps().map(\.lost) == [302])

        // What the log says instead.
        var cursor = log.events()
        let events = try cursor.collect()
        #expect(events.first?.redaction == "fields")
        #expect(events.first?.source.info == nil, "a scrubbed action's note is not written")
        #expect(events[1].actionCase == "received.token", "the case path comes from the declaration, not the description")
        #expect(events[2].source.info == "tapped", "a kept action's note is")
        let withheld = try #require(events.first { $0.actionCase == "setPin" })
        #expect(withheld.redaction == "action")
        #expect(withheld.source.info == nil)
        let poisoned = try #require(events.first { $0.actionCase == "attach" })
        #expect(poisoned.redaction?.hasPrefix("unencodable: invalid value of type String at ") == true)
        #expect(try log.snapshotIndex(session: sessions[0].id).count >= 3, "periodic snapshots were taken and searched")

        // Export.
        let export = URL(fileURLWithPath: folder.file("vault.jsonl"))
        _ = try log.export(to: export)
        #expect(Self.hits(in: try Data(contentsOf: export)) == [])

        // Verify with the policy: replayed states are scrubbed as the recorded ones were.
        let replayer = Replayer(log: log, reducer: Self.reducer, redaction: Self.policy)
        for session in sessions.prefix(2) {
            let report = try replayer.verify(session: session.id)
            #expect(report.divergence == nil)
            #expect(report.snapshotsCompared >= 1)
            #expect(report.scrubbedFields == [#"\Vault.token"#, #"\Vault.pin"#])
        }
        // Without it, the replayed token ("•••" from the scrubbed action) is not the recorded nil.
        let unscrubbed = try Replayer(log: log, reducer: Self.reducer).verify(session: sessions[0].id)
        #expect(unscrubbed.divergence?.diff.contains("token") == true)

        // Shrink to the first overdraft, and write the fixture.
        let shrunk = try #require(try replayer.shrink(session: sessions[0].id) { $0.balance < 0 })
        let fixture = folder.file("fixture.rewind")
        try shrunk.write(to: fixture).close()
        #expect(Self.hits(in: try Data(contentsOf: URL(fileURLWithPath: fixture))) == [])
        #expect(try Replayer(log: EventLog(path: fixture, mode: .readOnly), reducer: Self.reducer).finalState(session: 1).balance < 0)
    }

    @Test("an encoding error's text keeps the kind, type and coding path, never the value")
    func valueFreeErrorText() {
        let context = EncodingError.Context(codingPath: [], debugDescription: "SECRET in the description")
        #expect(ValueFreeErrorText.describe(EncodingError.invalidValue("SECRET", context)) == "invalid value of type String")
        struct Custom: Error, CustomStringConvertible { var description: String { "SECRET" } }
        #expect(ValueFreeErrorText.describe(Custom()).contains("SECRET") == false)
        #expect(ValueFreeErrorText.describe(Custom()).hasPrefix("error of type "))
    }

    @Test("case names come from declarations: customised descriptions and single-value encodings never name a case")
    func caseNamesFromDeclarations() {
        enum Described: CustomStringConvertible, Codable {
            case secret
            var description: String { "SECRET" }
        }
        enum Outer: Codable {
            case credential(Credential)
            case described(Described)
            case plain(Plain)
        }
        enum Plain: String, Codable { case first }
        #expect(ActionCaseName.of(Outer.credential(.token("SECRET"))) == "credential.token")
        #expect(ActionCaseName.of(Outer.described(.secret)).contains("SECRET") == false)
        #expect(ActionCaseName.of(Outer.plain(.first)) == "plain.first")
        #expect(ActionCaseName.reflected(Outer.credential(.token("SECRET"))) == "credential.token")
        #expect(ActionCaseName.caseLabel(of: Described.secret) == "Described")
        #expect(ActionCaseName.isIdentifier("token") && !ActionCaseName.isIdentifier("token(\"x\")") && !ActionCaseName.isIdentifier("1a"))
    }
}
