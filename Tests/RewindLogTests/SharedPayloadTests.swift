import Foundation
import GRDB
import Rewind
import RewindCoding
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// Payloads stored once when they repeat (schema 11): fewer bytes, the same events to every
/// reader, and a missing row reported as damage rather than read as a withheld payload.
@Suite("Shared payloads")
struct SharedPayloadTests {
    enum Action: Codable, Equatable, Sendable {
        case load([String])
        case note(String)
        case ping
    }

    struct State: Codable, Equatable, Sendable { var loads = 0 }

    /// A catalogue long enough to share in either codec.
    static let catalogue = Action.load((1...12).map { "product number \($0)" })
    static let app = AppIdentity(id: "shared")

    /// The event rows as stored: seq, the payload column's SQLite type, and `payloads`' row count.
    static func stored(_ path: String) throws -> (types: [Int64: String], rows: Int) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let types = try Row.fetchAll(db, sql: "SELECT seq, typeof(payload) AS type FROM events").reduce(into: [Int64: String]()) {
                $0[$1["seq"]] = $1["type"]
            }
            return (types, try Int.fetchOne(db, sql: "SELECT count(*) FROM payloads") ?? 0)
        }
    }

    static func codec(_ name: String) -> any PayloadCodec { name == "json" ? JSONPayloadCodec() : BinaryPayloadCodec() }

    /// Actions 1…8: the catalogue at 1, 3, 5 and 7, a ping (under the threshold in either codec) between.
    static let actions: [Action] = (1...8).map { $0 % 2 == 1 ? catalogue : .ping }

    @Test("a payload seen a third time is stored once; its first two events keep it inline, small ones always do", arguments: ["json", "binary"])
    func storedOnce(codecName: String) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.rewind")
        let codec = Self.codec(codecName)
        #expect(try codec.encode(Self.catalogue).count >= SharedPayloads.threshold)
        #expect(try codec.encode(Action.ping).count < SharedPayloads.threshold)
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()

        let stored = try Self.stored(path)
        let inline = codec.isText ? "text" : "blob"
        #expect(stored.types == [1: inline, 2: inline, 3: inline, 4: inline, 5: "integer", 6: inline, 7: "integer", 8: inline])
        #expect(stored.rows == 1)

        // Every reading path gives the same actions: pages of events, and the replay loop.
        let reader = try EventLog(path: path, mode: .readOnly)
        var cursor = reader.events()
        let events = try cursor.collect()
        #expect(try events.map { try reader.decodeAction(of: $0, as: Action.self) } == Self.actions)
        var replayed: [Action] = []
        try SessionReader(log: reader, session: reader.session(1)).forEachAction(Action.self, from: 1, through: 8) { _, action in
            replayed.append(action)
            return .continue
        }
        #expect(replayed == Self.actions)
        let sound = try reader.checkIntegrity()
        #expect(sound.isSound, "\(sound)")
    }

    @Test("the writer remembers at most its budget of payloads, forgetting those seen once before those it shares")
    func boundedMemory() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("flood.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: BinaryPayloadCodec(), initialState: State())
        // 3 MiB of payloads that never repeat, 1 KiB each, with the catalogue every 100th.
        let filler = String(repeating: "x", count: 1_000)
        var peak = 0
        for batch in 0..<30 {
            let actions = (0..<100).map { index in index == 0 ? Self.catalogue : .note("\(batch)-\(index) \(filler)") }
            try log.append(actions.map { EventRecord($0, source: ActionSource()) }, to: session)
            peak = max(peak, log.sharedPayloads.rememberedBytes)
        }
        #expect(peak <= SharedPayloads.memoryBudget)
        #expect(peak > SharedPayloads.memoryBudget / 2, "the budget is used before it is reset")
        // A payload of more than half the budget stays inline however often it comes.
        let huge = Action.note(String(repeating: "y", count: SharedPayloads.memoryBudget / 2 + 1))
        let seqs = try #require(try log.append([huge, huge, huge].map { EventRecord($0, source: ActionSource()) }, to: session))
        #expect(log.sharedPayloads.rememberedBytes <= SharedPayloads.memoryBudget)
        try log.close()
        let types = try Self.stored(path).types
        #expect(seqs.map { types[$0] } == ["blob", "blob", "blob"])
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let (rows, referencing) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM payloads") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE typeof(payload) = 'integer'") ?? 0)
        }
        // Two resets or more (about 1,000 payloads of 1 KiB each): the notes go, the catalogue
        // stays shared in its one row; only its first two sightings are inline.
        #expect(rows == 1)
        #expect(referencing == 28, "\(referencing) of 30 catalogues refer to a row")
    }

    @Test("the timeline view shows a shared payload as its own: the JSON itself, or the binary's size")
    func timeline() throws {
        for name in ["json", "binary"] {
            let folder = try TemporaryDirectory()
            let path = folder.file("timeline.rewind")
            let codec = Self.codec(name)
            let log = try EventLog(path: path)
            let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
            try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
            try log.close()
            let queue = try DatabaseQueue(path: path)
            let payloads = try queue.read { db in try String.fetchAll(db, sql: "SELECT payload FROM timeline WHERE seq IN (1, 5) ORDER BY seq") }
            try queue.close()
            #expect(payloads.count == 2)
            if name == "json" {
                #expect(payloads[0] == payloads[1])
                #expect(payloads[1] == String(decoding: try codec.encode(Self.catalogue), as: UTF8.self))
            } else {
                let size = try codec.encode(Self.catalogue).count
                #expect(payloads == [#""<binary: \#(size) bytes>""#, #""<binary: \#(size) bytes, shared>""#])
            }
        }
    }

    @Test("stats count a shared payload's bytes once")
    func statistics() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("stats.rewind")
        let codec = BinaryPayloadCodec()
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        let catalogue = try codec.encode(Self.catalogue).count
        let notes = try 4 * codec.encode(Action.ping).count
        // Seqs 1 and 3 inline, 5 and 7 sharing one row.
        #expect(try log.statistics().payloadBytes == 3 * catalogue + notes)
        #expect(try log.statistics(session: session.id).payloadBytes == 3 * catalogue + notes)
        try log.close()
    }

    @Test("an encrypted session never shares: each payload is sealed to its seq")
    func encryptedNeverShares() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("sealed.rewind")
        let key = try LogKey(id: "k", bytes: Data(repeating: 3, count: 32))
        let log = try EventLog(path: path, keys: LogKeys(current: key))
        let session = try log.beginSession(app: Self.app, codec: BinaryPayloadCodec(), initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()
        let stored = try Self.stored(path)
        #expect(stored.rows == 0)
        #expect(Set(stored.types.values) == ["blob"])
        let reader = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [key]))
        var replayed: [Action] = []
        try SessionReader(log: reader, session: reader.session(1)).forEachAction(Action.self, from: 1, through: 8) { _, action in
            replayed.append(action)
            return .continue
        }
        #expect(replayed == Self.actions)
    }

    @Test("an append that rolls back takes its shared rows with it; the next append shares afresh and the log stays sound")
    func rollback() throws {
        struct Unencodable: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws { throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no")) }
        }
        enum Mixed: Encodable, Sendable {
            case action(Action)
            case broken(Unencodable)
            func encode(to encoder: any Encoder) throws {
                switch self {
                case let .action(action): try action.encode(to: encoder)
                case let .broken(value): try value.encode(to: encoder)
                }
            }
        }
        let folder = try TemporaryDirectory()
        let path = folder.file("rollback.rewind")
        let codec = BinaryPayloadCodec()
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
        // The catalogue three times (the third shared, its row inserted), then a failure: all rolled back.
        #expect(throws: EventLogError.self) {
            let mixed: [Mixed] = [.action(Self.catalogue), .action(Self.catalogue), .action(Self.catalogue), .broken(Unencodable())]
            try log.append(mixed.map { EventRecord($0, source: ActionSource()) }, to: session)
        }
        #expect(try Self.stored(path).rows == 0)
        try log.append([Self.catalogue, Self.catalogue, Self.catalogue].map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()
        let stored = try Self.stored(path)
        #expect(stored.rows == 1)
        #expect(stored.types == [1: "blob", 2: "blob", 3: "integer"])
        let reader = try EventLog(path: path, mode: .readOnly)
        #expect(try reader.checkIntegrity().isSound)
        var cursor = reader.events()
        #expect(try cursor.collect().map { try reader.decodeAction(of: $0, as: Action.self) } == [Self.catalogue, Self.catalogue, Self.catalogue])
    }

    /// Who trims the log under a writer that remembers a shared row.
    enum Trimmer: String, CaseIterable, CustomTestStringConvertible {
        case anotherConnection, sameLog
        var testDescription: String { rawValue }
    }

    @Test("trimming deletes the rows no event refers to; a writer still holding one's id writes it again", arguments: Trimmer.allCases)
    func retention(trimmer: Trimmer) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("trimmed.rewind")
        let codec = BinaryPayloadCodec()
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.appendSnapshot(State(loads: 4), to: session, after: 8)
        try log.append([Action.note("after")].map { EventRecord($0, source: ActionSource()) }, to: session)

        // Everything up to the snapshot goes, trimmed by another connection or by the log
        // itself: no event refers to the row now. (The log's last transaction that referred to
        // it knew it was there; the next must not take that for granted.)
        switch trimmer {
        case .anotherConnection:
            let other = try EventLog(path: path)
            #expect(try other.trim(to: Retention(maxEvents: 1)) == 8)
            try other.close()
        case .sameLog:
            #expect(try log.trim(to: Retention(maxEvents: 1)) == 8)
        }
        #expect(try Self.stored(path).rows == 0)

        // The first log still remembers the catalogue as shared, under its old id.
        try log.append([Self.catalogue].map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()
        let stored = try Self.stored(path)
        #expect(stored.rows == 1)
        #expect(stored.types == [9: "blob", 10: "integer"])
        let reader = try EventLog(path: path, mode: .readOnly)
        let report = try reader.checkIntegrity()
        #expect(report.isSound, "\(report)")
        #expect(try reader.decodeAction(of: reader.event(at: 10), as: Action.self) == Self.catalogue)
    }

    @Test("a reference to a row that is gone is damage: check names the event, reading it says so, nothing traps")
    func missingRow() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("damaged.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: BinaryPayloadCodec(), initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM payloads")
            try db.execute(sql: "UPDATE events SET payload = 9223372036854775807 WHERE seq = 8")
        }
        try queue.close()

        let reader = try EventLog(path: path, mode: .readOnly)
        let report = try reader.checkIntegrity()
        #expect(!report.isSound)
        #expect(report.eventsWithMissingPayload == [5, 7, 8])
        #expect(report.description.contains("events whose shared payload is missing: [5, 7, 8]"))
        #expect(try reader.event(at: 2).actionCase == "ping")
        #expect {
            _ = try reader.event(at: 5)
        } throws: { error in
            guard case let .corrupt(_, detail) = error as? EventLogError else { return false }
            return detail.contains("event 5 refers to shared payload 1, which the payloads table does not hold")
        }
        #expect {
            try SessionReader(log: reader, session: reader.session(1)).forEachAction(Action.self, from: 1, through: 8) { _, _ in .continue }
        } throws: { error in
            guard case let .corrupt(_, detail) = error as? EventLogError else { return false }
            return detail.contains("event 5 refers to shared payload 1")
        }
    }

    @Test("an export carries shared payloads whole, and its import shares them again")
    func exportImport() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("source.rewind")
        let codec = BinaryPayloadCodec()
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.app, codec: codec, initialState: State())
        try log.append(Self.actions.map { EventRecord($0, source: ActionSource()) }, to: session)
        let export = URL(fileURLWithPath: folder.file("export.jsonl"))
        #expect(try log.export(to: export) == 8)
        try log.close()
        let text = try String(contentsOf: export, encoding: .utf8)
        #expect(!text.contains("\"payload\":3"), "references never leave the file")

        let imported = try EventLog.importLog(from: export, to: folder.file("imported.rewind"))
        var cursor = imported.events()
        #expect(try cursor.collect().map { try imported.decodeAction(of: $0, as: Action.self) } == Self.actions)
        try imported.close()
        #expect(try Self.stored(folder.file("imported.rewind")) == Self.stored(path))
    }

    /// How many events are `catalogue.loaded`, and how many rows `payloads` holds.
    static func catalogueRows(_ path: String) throws -> (loaded: Int, distinct: Int) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let loaded = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM events AS e JOIN actions AS a ON a.id = e.action_id WHERE a.name = 'catalogue.loaded'
                """) ?? 0
            return (loaded, try Int.fetchOne(db, sql: "SELECT count(*) FROM payloads") ?? 0)
        }
    }

    @Test("the shop's default recording stores its repeated catalogue once and replays to the store's state")
    func shopRecording() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let log = try EventLog(path: path)
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: .init())
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        let session = await Shop.sessionActions(count: 2_000, seed: 11)
        for dispatched in session { store.dispatch(dispatched.action, from: dispatched.source) }
        try await recorder.close()
        let final = store.state
        try log.close()

        let (loaded, distinct) = try Self.catalogueRows(path)
        #expect(loaded > 10)
        #expect(distinct >= 1 && distinct < loaded, "\(distinct) rows for \(loaded) catalogues")

        // Folding the recorded actions, read through the replay loop, gives the store's state.
        let reader = try EventLog(path: path, mode: .readOnly)
        var state = ShopState()
        let range = try #require(try reader.session(1).seqRange)
        try SessionReader(log: reader, session: reader.session(1)).forEachAction(ShopAction.self, from: range.lowerBound, through: range.upperBound) { _, action in
            Shop.reducer(&state, action)
            return .continue
        }
        #expect(state == final)
    }
}
