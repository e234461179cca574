import Foundation
import GRDB
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// A collector's store of received reports (`ReportStore`): once per idempotency key, its own
/// kind of file, retention and erasure.
@Suite("Report store")
struct ReportStoreTests {
    static let app = AppIdentity(id: "com.example.notes", version: "2.0")

    static func header(app: String = "com.example.notes", at time: Double = 1_800_000_000) -> ReportHeader {
        ReportHeader(keyID: "team", app: AppIdentity(id: app, version: "2.0"), reason: ReportReason(kind: .requested), createdAt: time)
    }

    @Test("the embedded schema is exactly Migrations/reports/*.sql")
    func embeddedMigrations() throws {
        #expect(try embeddedMigrationDifferences(folder: "Migrations/reports", generated: "Sources/RewindSQLite/Schema/EmbeddedReportMigrations.swift") == [])
    }

    @Test("one row per idempotency key: the same bytes again are a duplicate, other bytes a conflict that changes nothing")
    func idempotent() async throws {
        let folder = try TemporaryDirectory()
        let store = try ReportStore(path: folder.file("reports.sqlite"), create: true)
        let bytes = Data("sealed".utf8)
        let first = try await store.receive(bytes, header: Self.header(), idempotencyKey: "k1", install: "i1", token: "app")
        guard case .stored(let id) = first else { Issue.record("not stored: \(first)"); return }
        #expect(try await store.receive(bytes, header: Self.header(), idempotencyKey: "k1", install: "i1", token: "app") == .duplicate(id: id))
        #expect(try await store.receive(Data("forged".utf8), header: Self.header(), idempotencyKey: "k1", install: "i2", token: "app") == .conflict)
        #expect(try store.bytes(id: id) == bytes)
        #expect(try store.entries().map(\.install) == ["i1"])
        // Reopened by another process's collector: the same one row.
        #expect(try ReportStore(path: folder.file("reports.sqlite")).entries().count == 1)
    }

    @Test("many writers racing on one key store it once")
    func racingWriters() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("reports.sqlite")
        _ = try ReportStore(path: path, create: true)
        // Separate connections, as separate collectors have.
        let stores = try (0..<4).map { _ in try ReportStore(path: path) }
        let receipts = try await withThrowingTaskGroup(of: ReportStore.Receipt.self) { group in
            for store in stores {
                for _ in 0..<5 {
                    group.addTask { try await store.receive(Data("same".utf8), header: Self.header(), idempotencyKey: "race", install: "i", token: "app") }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(receipts.filter { if case .stored = $0 { true } else { false } }.count == 1)
        #expect(receipts.filter { if case .duplicate = $0 { true } else { false } }.count == 19)
        #expect(try stores[0].entries().count == 1)
    }

    @Test("retention by age and by size per app; erasing an install; deleting one")
    func retention() async throws {
        let folder = try TemporaryDirectory()
        let store = try ReportStore(path: folder.file("reports.sqlite"), create: true)
        let now = Date()
        for index in 0..<6 {
            let received = now.addingTimeInterval(Double(index - 6) * 86_400)  // 6 days ago … 1 day ago
            _ = try await store.receive(
                Data(repeating: UInt8(index), count: 100), header: Self.header(), idempotencyKey: "a\(index)", install: index.isMultiple(of: 2) ? "even" : "odd",
                token: "app", receivedAt: received
            )
        }
        _ = try await store.receive(Data("other".utf8), header: Self.header(app: "com.example.other"), idempotencyKey: "o", install: "even", token: "other")
        // Older than 3.5 days: the first three go; the other app is untouched.
        #expect(try await store.applyRetention(app: "com.example.notes", olderThan: now.addingTimeInterval(-3.5 * 86_400), maxBytes: nil) == 3)
        // At most 200 bytes: the oldest of the remaining three goes.
        #expect(try await store.applyRetention(app: "com.example.notes", olderThan: nil, maxBytes: 200) == 1)
        let usage = try await store.usage(app: "com.example.notes")
        #expect(usage.count == 2 && usage.bytes == 200)
        #expect(try store.apps() == ["com.example.notes", "com.example.other"])
        #expect(try await store.erase(install: "even") == 2)  // one of notes, and other's
        let left = try store.entries()
        #expect(left.count == 1 && left[0].install == "odd")
        let deleted = try await store.delete(id: left[0].id), again = try await store.delete(id: left[0].id)
        #expect(deleted && !again)
    }

    @Test("its own kind of file: a log is not a store, a store is not a log, a newer store is refused, a missing one is not made unasked")
    func kindOfFile() async throws {
        let folder = try TemporaryDirectory()
        let log = folder.file("app.rewind")
        _ = try EventLog(path: log).beginSession(app: Self.app, initialState: 0)
        #expect(throws: EventLogError.self) { try ReportStore(path: log) }
        #expect(!ReportStore.isStore(at: log))
        let path = folder.file("reports.sqlite")
        _ = try ReportStore(path: path, create: true)
        #expect(ReportStore.isStore(at: path))
        #expect(throws: EventLogError.self) { try EventLog(path: path, mode: .readOnly) }
        #expect(throws: EventLogError.fileNotFound(path: folder.file("none.sqlite"))) { try ReportStore(path: folder.file("none.sqlite")) }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { try $0.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        #expect(throws: EventLogError.newerSchema(path: path, found: 99, supported: 1)) { try ReportStore(path: path) }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
