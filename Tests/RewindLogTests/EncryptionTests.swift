import Foundation
import GRDB
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

@Suite("Encryption at rest")
struct EncryptionTests {
    static let app = AppIdentity(id: "com.example.shop")
    static let keyA = try! LogKey(id: "key-a", bytes: Data((0..<32).map { UInt8($0) }))
    static let keyB = try! LogKey(id: "key-b", bytes: Data((0..<32).map { UInt8(255 - $0) }))

    enum Note: Codable, Equatable, Sendable {
        case write(String)
        case erase
    }

    struct Notebook: Codable, Equatable, Sendable {
        var lines: [String] = []
    }

    static let notebook = Reducer<Notebook, Note> { state, action in
        switch action {
        case let .write(line): state.lines.append(line)
        case .erase: state.lines.removeAll()
        }
    }

    /// A log with one session encrypted with `key` (or in the clear), of `count` notes, a
    /// periodic snapshot every 4.
    static func record(at path: String, key: LogKey?, codec: any PayloadCodec = JSONPayloadCodec(), count: Int = 10) throws -> LogSession {
        let log = try EventLog(path: path, keys: LogKeys(current: key))
        var state = Notebook()
        let session = try log.beginSession(app: AppIdentity(id: "notes"), codec: codec, initialState: state)
        for index in 1...count {
            let note = Note.write("line \(index)")
            let seqs = try log.append([EventRecord(note, source: ActionSource())], to: session)
            notebook.reduce(&state, note)
            if index % 4 == 0, let seq = seqs?.upperBound { try log.appendSnapshot(state, to: session, after: seq) }
        }
        try log.close()
        return session
    }

    /// Every action and the final state of `session`, read through the one read path.
    static func replay(_ log: EventLog, session id: Int64) throws(EventLogError) -> (notes: [Note], state: Notebook) {
        let session = try log.session(id)
        let reader = try SessionReader(log: log, session: session)
        var notes: [Note] = []
        var state = try reader.initialState(Notebook.self).state
        try reader.forEachAction(Note.self, from: session.baseSeq + 1, through: session.lastSeq) { _, note in
            notes.append(note)
            notebook.reduce(&state, note)
            return .continue
        }
        // The last periodic snapshot decodes too, and agrees with the fold.
        let snapshot = try reader.state(Notebook.self, atOrBefore: session.lastSeq)
        #expect(snapshot.seq > session.baseSeq)
        #expect(snapshot.state.lines == Array(state.lines.prefix(snapshot.state.lines.count)))
        return (notes, state)
    }

    @Test("a recorder with a key writes a session that replays to the live state, with its snapshots, in both codecs")
    func recorderRoundTrip() async throws {
        for codec in [JSONPayloadCodec(), BinaryPayloadCodec()] as [any PayloadCodec] {
            let folder = try TemporaryDirectory()
            let path = folder.file("shop.rewind")
            let log = try EventLog(path: path, keys: LogKeys(current: Self.keyA))
            // The defaults, but the codec.
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.codec = codec
            configuration.snapshotInterval = 50
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: Self.app, configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
            var shopper = Shopper(seed: 11)
            await shopper.drive(store, while: { $0 < 400 })
            try await recorder.close()
            try log.close()

            let reopened = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
            let session = try #require(try reopened.sessions().first)
            #expect(session.encryption?.keyID == "key-a")
            #expect(try reopened.snapshotIndex(session: session.id).count > 2, "periodic snapshots were taken, and are encrypted too")
            #expect(try reopened.restoredState(app: Self.app, reducer: Shop.reducer) == store.state, "\(codec.name)")
            #expect(try reopened.checkIntegrity().isSound)
        }
    }

    @Test("no payload or state reaches the file, its -wal or an export in the clear; cases and sources stay readable")
    func nothingInTheClear() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let log = try EventLog(path: path, keys: LogKeys(current: Self.keyA))
        let session = try log.beginSession(app: AppIdentity(id: "notes"), initialState: Notebook(lines: ["CANARY-INITIAL-STATE"]))
        var state = Notebook(lines: ["CANARY-INITIAL-STATE"])
        for index in 0..<50 {
            let note = Note.write("CANARY-PAYLOAD-\(index)")
            let seqs = try log.append([EventRecord(note, source: ActionSource())], to: session)
            Self.notebook.reduce(&state, note)
            if index % 10 == 9, let seq = seqs?.upperBound { try log.appendSnapshot(state, to: session, after: seq) }
        }
        let exportURL = URL(fileURLWithPath: folder.file("notes.jsonl"))
        try log.export(to: exportURL)
        // Read while the log is open, so the -wal file still holds the recent pages.
        let files = [path, path + "-wal", exportURL.path]
        #expect(fileBytes(path + "-wal")?.isEmpty == false)
        for file in files {
            let bytes = try #require(fileBytes(file))
            #expect(bytes.range(of: Data("CANARY".utf8)) == nil, "\(file) holds a payload or state in the clear")
        }
        try log.close()
        #expect(try #require(fileBytes(path)).range(of: Data("CANARY".utf8)) == nil)

        // Without a key: sessions, events, cases and sources are listed; payloads are not read.
        let locked = try EventLog(path: path, mode: .readOnly)
        #expect(try locked.sessions().map(\.encryption?.keyID) == ["key-a"])
        var cursor = locked.events()
        let events = try cursor.collect()
        #expect(events.count == 50)
        #expect(events.allSatisfy { $0.actionCase == "write" && $0.keyID == "key-a" && $0.source.file.hasSuffix("EncryptionTests.swift") })
        #expect(try locked.statistics().events == 50)
    }

    @Test("a session whose key was not given fails naming the session and key id, on every read of its values")
    func missingKey() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let session = try Self.record(at: path, key: Self.keyA)
        let expected = EventLogError.keyMissing(path: path, session: session.id, keyID: "key-a")
        for keys in [LogKeys(), LogKeys(current: Self.keyB)] {
            let log = try EventLog(path: path, mode: .readOnly, keys: keys)
            #expect(throws: expected) { try Self.replay(log, session: session.id) }
            #expect(throws: expected) { try log.decodeAction(of: log.event(at: 1), as: Note.self) }
            #expect(throws: expected) { try log.payload(of: log.event(at: 1)) }
            #expect(throws: expected) { try log.event(at: 1).decodeAction(as: Note.self, codec: JSONPayloadCodec(), path: path) }
            #expect(throws: expected) { try log.snapshot(session: session.id)?.decodeState(as: Notebook.self, codec: JSONPayloadCodec(), path: path) }
            #expect(throws: expected) { try log.restoredState(app: AppIdentity(id: "notes"), reducer: Self.notebook) }
        }
        #expect(expected.description.contains("session \(session.id) is encrypted with key 'key-a', which was not given"))
        // Appending to it without the key writes nothing.
        let writer = try EventLog(path: path)
        let before = try writer.seqRange()
        #expect(throws: expected) { try writer.append([EventRecord(Note.erase, source: ActionSource())], to: session) }
        #expect(throws: expected) { try writer.appendSnapshot(Notebook(), to: session, after: session.lastSeq) }
        #expect(try writer.seqRange() == before)
    }

    @Test("a wrong key under the right id is told apart from damage, naming the session and key id")
    func wrongKey() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let session = try Self.record(at: path, key: Self.keyA)
        let impostor = try LogKey(id: "key-a", bytes: Self.keyB.bytes)
        let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [impostor]))
        let expected = EventLogError.wrongKey(path: path, session: session.id, keyID: "key-a")
        #expect(throws: expected) { try Self.replay(log, session: session.id) }
        #expect(throws: expected) { try log.payload(of: log.event(at: 1)) }
        #expect(expected.description.contains("is not the key session \(session.id) was encrypted with"))
    }

    @Test("changing any one byte of an encrypted payload fails authentication naming its seq; so does a payload moved to another event")
    func tamperedPayload() throws {
        let folder = try TemporaryDirectory()
        let original = folder.file("notes.rewind")
        let session = try Self.record(at: original, key: Self.keyA, codec: BinaryPayloadCodec())
        let seq: Int64 = 3
        let payload = try #require(try EventLog(path: original, mode: .readOnly).event(at: seq).payload)
        #expect(payload.count > PayloadSeal.overhead)
        // Every byte: the nonce, the ciphertext and the tag.
        for index in 0..<payload.count {
            let path = folder.file("flipped-\(index).rewind")
            try FileManager.default.copyItem(atPath: original, toPath: path)
            var damaged = payload
            damaged[index] ^= 0x01
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE events SET payload = ? WHERE seq = ?", arguments: [damaged, seq])
            }
            let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
            let expected = EventLogError.authenticationFailed(path: path, session: session.id, seq: seq, what: "the payload of write")
            #expect(throws: expected, "byte \(index)") { try Self.replay(log, session: session.id) }
            #expect(throws: expected, "byte \(index)") { try log.payload(of: log.event(at: seq)) }
        }
        // Truncated, emptied, or moved: event 4's payload in place of event 3's, and swapped.
        let other = try #require(try EventLog(path: original, mode: .readOnly).event(at: 4).payload)
        let short = [("truncated", payload.prefix(payload.count - 1)), ("shorter than a seal", payload.prefix(PayloadSeal.overhead - 1))]
        for (name, replacement) in short + [("zeros", Data(count: PayloadSeal.overhead)), ("moved", other)] {
            let path = folder.file("\(name).rewind")
            try FileManager.default.copyItem(atPath: original, toPath: path)
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE events SET payload = ? WHERE seq = ?", arguments: [replacement, seq])
            }
            let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
            #expect(throws: EventLogError.authenticationFailed(path: path, session: session.id, seq: seq, what: "the payload of write"), "\(name)") {
                try Self.replay(log, session: session.id)
            }
        }
        #expect(EventLogError.authenticationFailed(path: "x", session: 1, seq: 3, what: "the payload of write").description
            == "x: seq 3: the payload of write of session 1 fails authentication with the session's key: the encrypted bytes were changed or moved after they were written")
    }

    @Test("a tampered or moved snapshot fails authentication naming its seq")
    func tamperedSnapshot() throws {
        let folder = try TemporaryDirectory()
        let original = folder.file("notes.rewind")
        let session = try Self.record(at: original, key: Self.keyA)
        let snapshots = try EventLog(path: original, mode: .readOnly).snapshotIndex(session: session.id)
        #expect(snapshots.map(\.seq) == [0, 4, 8])
        let state = try #require(try EventLog(path: original, mode: .readOnly).snapshot(session: session.id, atOrBefore: 8)?.state)
        var flipped = state
        flipped[20] ^= 0x80
        let earlier = try #require(try EventLog(path: original, mode: .readOnly).snapshot(session: session.id, atOrBefore: 4)?.state)
        for (name, replacement) in [("flipped", flipped), ("moved", earlier)] {
            let path = folder.file("\(name).rewind")
            try FileManager.default.copyItem(atPath: original, toPath: path)
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE snapshots SET state = ? WHERE seq = 8", arguments: [replacement])
            }
            let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
            #expect(throws: EventLogError.authenticationFailed(path: path, session: session.id, seq: 8, what: "the periodic snapshot"), "\(name)") {
                try SessionReader(log: log, session: log.session(session.id)).state(Notebook.self, atOrBefore: 9)
            }
        }
    }

    @Test("the integrity check opens every encrypted value it has the key for, and lists the sessions it has none for")
    func integrityCheck() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let first = try Self.record(at: path, key: Self.keyA)
        let second = try Self.record(at: path, key: Self.keyB)
        let sound = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA, Self.keyB])).checkIntegrity()
        #expect(sound.isSound && sound.unauthenticated.isEmpty && sound.encryptedSessionsUnchecked.isEmpty)
        try DatabaseQueue(path: path).write { db in
            for seq in [first.baseSeq + 2, second.baseSeq + 7] {
                var payload = try #require(try Data.fetchOne(db, sql: "SELECT payload FROM events WHERE seq = ?", arguments: [seq]))
                payload[payload.count - 1] ^= 0xFF
                try db.execute(sql: "UPDATE events SET payload = ? WHERE seq = ?", arguments: [payload, seq])
            }
            var state = try #require(try Data.fetchOne(db, sql: "SELECT state FROM snapshots WHERE session_id = ? AND seq = ?", arguments: [second.id, second.baseSeq + 4]))
            state[0] ^= 0x01
            try db.execute(sql: "UPDATE snapshots SET state = ? WHERE session_id = ? AND seq = ?", arguments: [state, second.id, second.baseSeq + 4])
        }
        let damaged = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA, Self.keyB])).checkIntegrity()
        #expect(!damaged.isSound)
        #expect(damaged.unauthenticated == [
            .init(session: first.id, seq: first.baseSeq + 2, what: "the payload of write"),
            .init(session: second.id, seq: second.baseSeq + 4, what: "the periodic snapshot"),
            .init(session: second.id, seq: second.baseSeq + 7, what: "the payload of write"),
        ])
        #expect(damaged.description.contains("encrypted values that fail authentication: seq \(first.baseSeq + 2) (the payload of write, session \(first.id))"))
        // Only key A: session 2 is not checked, and not called damaged for that.
        let partial = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA])).checkIntegrity()
        #expect(partial.unauthenticated.map(\.seq) == [first.baseSeq + 2])
        #expect(partial.encryptedSessionsUnchecked == [second.id: "its key 'key-b' was not given"])
        let none = try EventLog(path: path, mode: .readOnly).checkIntegrity()
        #expect(none.isSound)
        #expect(none.encryptedSessionsUnchecked.count == 2)
        #expect(none.description.contains("encrypted session \(first.id) not checked: its key 'key-a' was not given"))
    }

    @Test("keys rotate: each session is read with the key it names, and a log lacking one still reads the others")
    func rotation() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let first = try Self.record(at: path, key: Self.keyA, count: 5)
        let second = try Self.record(at: path, key: Self.keyB, count: 6)
        let clear = try Self.record(at: path, key: nil, count: 7)
        let both = try EventLog(path: path, mode: .readOnly, keys: LogKeys(current: Self.keyB, others: [Self.keyA]))
        #expect(try both.sessions().map(\.encryption?.keyID) == ["key-a", "key-b", nil])
        #expect(try Self.replay(both, session: first.id).notes.count == 5)
        #expect(try Self.replay(both, session: second.id).notes.count == 6)
        #expect(try Self.replay(both, session: clear.id).notes.count == 7)
        let onlyB = try EventLog(path: path, mode: .readOnly, keys: LogKeys(current: Self.keyB))
        #expect(throws: EventLogError.keyMissing(path: path, session: first.id, keyID: "key-a")) { try Self.replay(onlyB, session: first.id) }
        #expect(try Self.replay(onlyB, session: second.id).state.lines.last == "line 6")
        #expect(try Self.replay(EventLog(path: path, mode: .readOnly), session: clear.id).state.lines.count == 7)
    }

    @Test("export keeps encrypted sessions encrypted and needs no key; the import reads with the same key")
    func exportAndImport() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let encrypted = try Self.record(at: path, key: Self.keyA)
        let clear = try Self.record(at: path, key: nil)
        let export = URL(fileURLWithPath: folder.file("notes.jsonl"))
        try EventLog(path: path, mode: .readOnly).export(to: export)
        let lines = try String(contentsOf: export, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains(#""version":3"#) == true)
        #expect(!lines.contains { $0.contains("line 1") && $0.contains(#""session":\#(encrypted.id)"#) })

        let imported = folder.file("imported.rewind")
        try EventLog.importLog(from: export, to: imported).close()
        let withKey = try EventLog(path: imported, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
        #expect(try withKey.sessions().map(\.encryption) == EventLog(path: path, mode: .readOnly).sessions().map(\.encryption))
        #expect(try Self.replay(withKey, session: encrypted.id) == Self.replay(EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA])), session: encrypted.id))
        #expect(try Self.replay(withKey, session: clear.id).notes.count == 10)
        #expect(throws: EventLogError.keyMissing(path: imported, session: encrypted.id, keyID: "key-a")) {
            try Self.replay(EventLog(path: imported, mode: .readOnly), session: encrypted.id)
        }
        // An export with no encrypted session stays at version 2, for older readers.
        let clearExport = URL(fileURLWithPath: folder.file("clear.jsonl"))
        try EventLog(path: path, mode: .readOnly).export(to: clearExport, filter: EventFilter(session: clear.id))
        #expect(try String(contentsOf: clearExport, encoding: .utf8).split(separator: "\n").first?.contains(#""version":2"#) == true)
    }

    @Test("an export whose session carries a damaged encryption is refused, naming the line")
    func damagedEncryptionInExport() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        _ = try Self.record(at: path, key: Self.keyA)
        let export = URL(fileURLWithPath: folder.file("notes.jsonl"))
        try EventLog(path: path, mode: .readOnly).export(to: export)
        let text = try String(contentsOf: export, encoding: .utf8)
        for (name, damaged) in [
            ("short salt", text.replacingOccurrences(of: #""salt":""#, with: #""salt":"AAAA"#)),
            ("empty key id", text.replacingOccurrences(of: #""keyID":"key-a""#, with: #""keyID":"""#)),
        ] {
            #expect(damaged != text, "\(name)")
            let source = URL(fileURLWithPath: folder.file("\(name).jsonl"))
            try Data(damaged.utf8).write(to: source)
            let error = #expect(throws: EventLogError.self, "\(name)") { try EventLog.importLog(from: source, to: folder.file("\(name).rewind")) }
            guard case let .corrupt(_, detail)? = error else { Issue.record("\(name): \(String(describing: error))"); continue }
            #expect(detail.hasPrefix("line 2: session 1's encryption"), "\(name): \(detail)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("\(name).rewind")))
        }
    }

    @Test("the timeline view shows an encrypted payload by its size")
    func timelineView() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        _ = try Self.record(at: path, key: Self.keyA, count: 3)
        let rows = try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT payload FROM timeline ORDER BY seq") }
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let sizes = try cursor.collect().map { $0.payload?.count ?? 0 }
        #expect(rows == sizes.map { #""<encrypted: \#($0) bytes>""# })
    }

    @Test("a session's damaged salt or check is reported as damage, not a wrong key")
    func damagedSessionRow() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        let session = try Self.record(at: path, key: Self.keyA)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE sessions SET key_salt = X'00'") }
        let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [Self.keyA]))
        #expect(try log.sessions().count == 1)
        let error = #expect(throws: EventLogError.self) { try Self.replay(log, session: session.id) }
        guard case .corrupt? = error else { Issue.record("unexpected \(String(describing: error))"); return }
    }

    @Test("keys: every size and id outside the rules is refused with a reason; key files name the bad line")
    func keyRules() throws {
        for size in [0, 1, 15, 65, 1_000] {
            #expect(throws: LogKey.Invalid.self, "\(size) bytes") { try LogKey(id: "k", bytes: Data(count: size)) }
        }
        for size in [16, 24, 32, 64] {
            #expect(try LogKey(id: "k", bytes: Data(count: size)).bytes.count == size)
        }
        for id in ["", "has space", "tab\there", "new\nline", String(repeating: "x", count: 129), "nul\u{0}"] {
            #expect(throws: LogKey.Invalid.self, "id \(id.debugDescription)") { try LogKey(id: id, bytes: Data(count: 32)) }
        }
        let random = try LogKey.random(id: "fresh")
        #expect(random.bytes.count == 32)
        #expect(try LogKey.random(id: "fresh").bytes != random.bytes)

        let keys = try LogKeys.reading(keyFile: "# rotated monthly\n\n\(Self.keyA.keyFileLine)\n  \(Self.keyB.keyFileLine)  \n")
        #expect(keys.others.map(\.id) == ["key-a", "key-b"])
        #expect(keys["key-b"]?.bytes == Self.keyB.bytes)
        #expect(keys.current == nil)
        #expect(try LogKeys.reading(keyFile: "\u{FEFF}\(Self.keyA.keyFileLine)\r\n").others.map(\.id) == ["key-a"], "a byte order mark and CRLF")
        let twice = "\(Self.keyA.keyFileLine)\n\(Self.keyA.keyFileLine)\n"
        for (text, line) in [("key-a\n", 1), ("# c\nkey-a not-base64!\n", 2), ("a b c\n", 1), ("k \(Data(count: 8).base64EncodedString())", 1), (twice, 2)] {
            let error = #expect(throws: LogKey.Invalid.self) { try LogKeys.reading(keyFile: text) }
            #expect(error?.reason.hasPrefix("line \(line)") == true, "\(text.debugDescription): \(String(describing: error))")
        }
        #expect(throws: LogKey.Invalid(reason: "the key file holds no key")) { try LogKeys.reading(keyFile: "# nothing\n") }
    }
}
