import Foundation
import GRDB
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// A collector's store in a SQLite file (`ReportStore`): what every store promises
/// (``CollectorStoreContract``), and its own kind of file.
@Suite("Report store")
struct ReportStoreTests {
    static let app = AppIdentity(id: "com.example.notes", version: "2.0")

    @Test("the embedded schema is exactly Migrations/reports/*.sql")
    func embeddedMigrations() throws {
        #expect(try embeddedMigrationDifferences(folder: "Migrations/reports", generated: "Sources/RewindSQLite/Schema/EmbeddedReportMigrations.swift") == [])
    }

    @Test("one row per idempotency key: the same bytes again are a duplicate, other bytes a conflict that changes nothing")
    func idempotent() async throws {
        let folder = try TemporaryDirectory()
        try await CollectorStoreContract.idempotent { try ReportStore(path: folder.file("reports.sqlite"), create: true) }
    }

    @Test("writers on separate connections racing on one key store it once")
    func racingWriters() async throws {
        let folder = try TemporaryDirectory()
        try await CollectorStoreContract.racingWriters { try ReportStore(path: folder.file("reports.sqlite"), create: true) }
    }

    @Test("retention by age and by size per app; erasing an install; deleting one; paging")
    func retention() async throws {
        let folder = try TemporaryDirectory()
        try await CollectorStoreContract.retention { try ReportStore(path: folder.file("reports.sqlite"), create: true) }
    }

    @Test("revoked tokens and the kill switch are shared by every collector on the file")
    func switches() async throws {
        let folder = try TemporaryDirectory()
        try await CollectorStoreContract.switches { try ReportStore(path: folder.file("reports.sqlite"), create: true) }
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
        // While their first pages are only in the write-ahead log (a writer still has them
        // open), each is still told apart: a live log is refused, a live store is one.
        let live = folder.file("live.rewind")
        let writer = try EventLog(path: live)
        _ = try writer.beginSession(app: Self.app, initialState: 0)
        #expect(throws: EventLogError.self) { try ReportStore(path: live) }
        let liveStore = folder.file("live.sqlite")
        let collecting = try ReportStore(path: liveStore, create: true)
        _ = try await collecting.receive(Data("r".utf8), header: CollectorStoreContract.header(), idempotencyKey: "k", install: "i", token: "t", receivedAt: Date())
        #expect(ReportStore.isStore(at: liveStore))
        try writer.close()
        await collecting.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
