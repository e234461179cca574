import Foundation
import GRDB
import Rewind
import RewindCoding
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// Snapshots deflated with zlib (schema 10): smaller on disk, the same bytes to every reader,
/// and a damaged one a clear error.
@Suite("Snapshot compression")
struct SnapshotCompressionTests {
    struct History: Codable, Equatable, Sendable { var entries: [String] = [] }
    enum Entry: Codable, Equatable, Sendable { case add(String) }

    /// A log of one session whose state grows to `count` entries, with a snapshot every 100.
    static func record(at path: String, key: LogKey? = nil, codec: any PayloadCodec = JSONPayloadCodec(), count: Int = 300) throws -> History {
        let log = try EventLog(path: path, keys: LogKeys(current: key))
        var state = History()
        let session = try log.beginSession(app: AppIdentity(id: "history"), codec: codec, initialState: state)
        for index in 1...count {
            let entry = Entry.add("entry \(index): the same kind of words as every other entry")
            let seqs = try log.append([EventRecord(entry, source: ActionSource())], to: session)
            state.entries.append("entry \(index): the same kind of words as every other entry")
            if index % 100 == 0, let seq = seqs?.upperBound { try log.appendSnapshot(state, to: session, after: seq) }
        }
        try log.close()
        return state
    }

    /// (seq, compression, stored bytes) of every snapshot, straight from the file.
    static func rows(_ path: String) throws -> [(seq: Int64, compression: String?, stored: Int)] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, compression, length(state) AS n FROM snapshots ORDER BY seq").map { row in
                (seq: row["seq"], compression: row["compression"], stored: row["n"])
            }
        }
    }

    @Test("a large state is stored deflated and reads back byte for byte; a small one is stored as its codec wrote it", arguments: ["json", "binary"])
    func deflatedAndRestored(codecName: String) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("history.rewind")
        let codec: any PayloadCodec = codecName == "json" ? JSONPayloadCodec() : BinaryPayloadCodec()
        let final = try Self.record(at: path, codec: codec)
        let rows = try Self.rows(path)
        #expect(rows.map(\.compression) == [nil, "zlib", "zlib", "zlib"], "the empty initial state is too small to deflate")

        let log = try EventLog(path: path, mode: .readOnly)
        for row in rows.dropFirst() {
            let snapshot = try #require(try log.snapshot(session: 1, atOrBefore: row.seq))
            let encoded = try codec.encode(History(entries: Array(final.entries.prefix(Int(row.seq)))))
            #expect(snapshot.state == encoded, "seq \(row.seq): the codec's bytes, inflated")
            #expect(row.stored * 4 < encoded.count, "seq \(row.seq): \(row.stored) bytes stored for \(encoded.count)")
        }
        let statistics = try log.statistics()
        #expect(statistics.snapshotBytes == rows.reduce(0) { $0 + $1.stored }, "stats count the bytes on disk")
    }

    @Test("an encrypted session's snapshots are sealed, not deflated, and still open")
    func encryptedNotDeflated() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("sealed.rewind")
        let key = try LogKey(id: "k", bytes: Data(repeating: 7, count: 32))
        let final = try Self.record(at: path, key: key)
        #expect(try Self.rows(path).allSatisfy { $0.compression == nil })
        let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [key]))
        let snapshot = try #require(try log.snapshot(session: 1))
        #expect(snapshot.seq == 300)
        var state = History()
        try SessionReader(log: log, session: log.session(1)).forEachAction(Entry.self, from: 1, through: 300) { _, entry in
            if case let .add(text) = entry { state.entries.append(text) }
            return .continue
        }
        #expect(state == final)
    }

    @Test("an export carries the states inflated, and its import reads the same")
    func exportAndImport() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("history.rewind")
        _ = try Self.record(at: path)
        let log = try EventLog(path: path, mode: .readOnly)
        let export = URL(fileURLWithPath: folder.file("history.jsonl"))
        _ = try log.export(to: export)
        let text = try String(contentsOf: export, encoding: .utf8)
        #expect(text.contains("entry 300: the same kind of words"), "the last snapshot, readable in the export")
        let imported = try EventLog.importLog(from: export, to: folder.file("imported.rewind"))
        for seq: Int64 in [0, 100, 200, 300] {
            #expect(try imported.snapshot(session: 1, atOrBefore: seq)?.state == log.snapshot(session: 1, atOrBefore: seq)?.state)
        }
    }

    /// Damage done to the deflated snapshot at seq 200, and what reading it must say.
    static let damages: [(sql: String, says: String)] = [
        ("UPDATE snapshots SET compression = 'lz4' WHERE seq = 200", "compressed with 'lz4', which this build does not know"),
        ("UPDATE snapshots SET state = substr(state, 1, 40) WHERE seq = 200", "is not a whole zlib snapshot"),
        ("UPDATE snapshots SET state = substr(state, 1, 6) WHERE seq = 200", "too short for a zlib snapshot"),
        ("UPDATE snapshots SET state = CAST(X'FFFFFFFFFFFFFF7F' || substr(state, 9) AS BLOB) WHERE seq = 200", "more than its"),
        ("UPDATE snapshots SET state = CAST(X'0100000000000000' || substr(state, 9) AS BLOB) WHERE seq = 200", "is not a whole zlib snapshot"),
        ("UPDATE snapshots SET state = CAST(substr(state, 1, 8) || randomblob(length(state) - 8) AS BLOB) WHERE seq = 200", "is not a whole zlib snapshot"),
        ("UPDATE snapshots SET state = CAST(substr(state, 1, 30) || X'00' || substr(state, 32) AS BLOB) WHERE seq = 200", "is not a whole zlib snapshot"),
        ("UPDATE snapshots SET compression = 'zlib' WHERE seq = 0", "session 1's snapshot at seq 0"),
    ]

    @Test("a damaged deflated snapshot is a corrupt-log error naming the session and seq; the file is left as it is", arguments: 0..<8)
    func damaged(index: Int) throws {
        let (sql, says) = Self.damages[index]
        let folder = try TemporaryDirectory()
        let path = folder.file("history.rewind")
        _ = try Self.record(at: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        let before = fileBytes(path)
        let seq: Int64 = sql.hasSuffix("seq = 0") ? 0 : 200
        let log = try EventLog(path: path, mode: .readOnly)
        let error = #expect(throws: EventLogError.self) { try log.snapshot(session: 1, atOrBefore: seq) }
        guard case let .corrupt(_, detail)? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(detail.contains(says), "\(detail)")
        #expect(seq == 0 || detail.contains("session 1's snapshot at seq 200"), "\(detail)")
        #expect(fileBytes(path) == before)
    }

    @Test("a deflated stream is refused when it inflates to fewer bytes than it claims")
    func shorterThanClaimed() throws {
        let state = Data(repeating: UInt8(ascii: "a"), count: 4_096)
        var stored = try #require(SnapshotCompression.compressed(state))
        #expect(try SnapshotCompression.decompressed(stored) == state)
        stored.replaceSubrange(0..<8, with: withUnsafeBytes(of: UInt64(5_000).littleEndian) { Data($0) })
        #expect(throws: RowDamage.self) { try SnapshotCompression.decompressed(stored) }
        #expect(SnapshotCompression.compressed(Data(repeating: 1, count: 511)) == nil, "below the threshold")
        #expect(SnapshotCompression.compressed(Data((0..<4_096).map { _ in UInt8.random(in: 0...255) })) == nil, "saves nothing")
    }

    @Test("a state whose deflated form spans many of the deflater's chunks reads back; one that saves less than an eighth is stored as it is")
    func manyChunks() throws {
        var generator = SeededRandom(seed: 42)
        let random = (0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Hex digits (about 1.2 MB of them) deflate to a little more than half: a stream of many
        // of the deflater's 64 KB chunks, as the expectation below checks.
        let hex = Data(random.flatMap { byte in Array(String(byte, radix: 16).utf8) })
        let stored = try #require(SnapshotCompression.compressed(hex))
        #expect(stored.count > 5 * 65_536 && stored.count <= hex.count - hex.count / 8)
        #expect(try SnapshotCompression.decompressed(stored) == hex)
        // Random bytes do not deflate: given up at seven eighths, not stored larger.
        #expect(SnapshotCompression.compressed(Data(random)) == nil)
        // Base64 deflates to about three quarters: kept, just inside seven eighths.
        let base64 = Data(Data(random).base64EncodedString().utf8)
        let kept = try #require(SnapshotCompression.compressed(base64))
        #expect(kept.count <= base64.count - base64.count / 8)
        #expect(try SnapshotCompression.decompressed(kept) == base64)
        // At the threshold, the smallest state that may be deflated.
        let smallest = Data(repeating: UInt8(ascii: "b"), count: SnapshotCompression.threshold)
        #expect(try SnapshotCompression.decompressed(#require(SnapshotCompression.compressed(smallest))) == smallest)
    }
    @Test("a snapshot being encoded ahead is deflated there too when asked before its encoding ends; not when not asked, nor when asked after")
    func deflatedAhead() throws {
        let state = History(entries: (1...100).map { "entry \($0): the same kind of words as every other entry" })
        let codec = JSONPayloadCodec()
        for asked in ["while encoding", "never", "after"] {
            let snapshot = PendingSnapshot(state, time: 1)
            let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
            snapshot.prepare(on: SnapshotEncodingQueue(), codec: codec.name, ended: { ended.signal() }) { state in
                started.signal()
                // Every way out of the loop's pass opens the gate first; the bound only keeps a
                // broken test from holding a thread for good.
                _ = gate.wait(timeout: .now() + 600)
                return try codec.encode(state)
            }
            #expect(started.wait(timeout: .now() + 60) == .success)
            if asked == "while encoding" { snapshot.deflateOnceEncoded() }
            gate.signal()
            #expect(ended.wait(timeout: .now() + 60) == .success)
            if asked == "after" { snapshot.deflateOnceEncoded() }
            let made = try snapshot.encoded(codec: codec.name) { _ in
                Issue.record("encoded again on the writer")
                return Data()
            }
            #expect(made.state == (try codec.encode(state)))
            switch made.deflation {
            case let .deflated(stored):
                #expect(asked == "while encoding")
                #expect(try SnapshotCompression.decompressed(stored) == made.state)
            case .notMade: #expect(asked != "while encoding")
            case .notWorthIt: Issue.record("the state deflates about 10 to 1")
            }
        }
    }

    @Test("the log stores a deflation made ahead as it was made: deflated, or as the codec wrote it when it was not worth it; a sealed session seals the state instead")
    func logTakesDeflationMadeAhead() throws {
        let folder = try TemporaryDirectory()
        let key = try LogKey(id: "k", bytes: Data(repeating: 7, count: 32))
        let state = History(entries: (1...100).map { "entry \($0): the same kind of words as every other entry" })
        let codec = JSONPayloadCodec()
        let encoded = try codec.encode(state)
        // The deflation handed over is another state's: what the log stores tells whether it
        // took the bytes made ahead (that state reads back) or deflated the encoding again.
        let other = History(entries: state.entries.reversed())
        let deflated = try #require(SnapshotCompression.compressed(try codec.encode(other)))
        let cases: [(name: String, key: LogKey?, deflation: SnapshotCompression.Deflation, stored: String?, reads: History)] = [
            ("made", nil, .deflated(deflated), "zlib", other),
            ("not worth it", nil, .notWorthIt, nil, state),
            ("not made", nil, .notMade, "zlib", state),
            ("sealed", key, .deflated(deflated), nil, state),
        ]
        for (name, key, deflation, stored, reads) in cases {
            let path = folder.file("\(name).rewind")
            let log = try EventLog(path: path, keys: LogKeys(current: key))
            let session = try log.beginSession(app: AppIdentity(id: "history"), codec: codec, initialState: History())
            let seqs = try log.append([EventRecord(Entry.add("one"), source: ActionSource())], to: session)
            let seq = try #require(seqs?.upperBound)
            _ = try log.write(session: session, events: 0) { _, emit in
                emit([.snapshot(time: 2, state: encoded, seq: seq, deflation: deflation)])
            }
            try log.close()
            let row = try #require(try Self.rows(path).last)
            #expect(row.seq == seq && row.compression == stored, "\(name): \(row)")
            if name == "not worth it" { #expect(row.stored == encoded.count, "as the codec wrote it") }
            let reader = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: key.map { [$0] } ?? []))
            let restored = try SessionReader(log: reader, session: reader.session(session.id)).state(History.self, atOrBefore: seq)
            #expect(restored.seq == seq && restored.state == reads, "\(name)")
        }
    }
}
