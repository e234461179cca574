import Foundation
public import RewindLogCore
import Testing

/// What every collector's store promises (``CollectorStore``), checked the same way on each:
/// the SQLite file (RewindLogTests) and PostgreSQL (RewindPostgresTests). `open` opens the one
/// store under test again, as another collector would (its own connections).
public enum CollectorStoreContract {
    public static func header(app: String = "com.example.notes", at time: Double = 1_800_000_000) -> ReportHeader {
        ReportHeader(keyID: "team", app: AppIdentity(id: app, version: "2.0"), reason: ReportReason(kind: .requested), createdAt: time)
    }

    /// One row per idempotency key: the same bytes again are a duplicate, other bytes a
    /// conflict that changes nothing; a second opening sees the one row.
    public static func idempotent(_ open: () async throws -> any CollectorStore) async throws {
        let store = try await open()
        let bytes = Data("sealed".utf8)
        let first = try await store.receive(bytes, header: header(), idempotencyKey: "k1", install: "i1", token: "app", receivedAt: Date())
        guard case .stored(let id) = first else {
            Issue.record("not stored: \(first)")
            return
        }
        #expect(try await store.receive(bytes, header: header(), idempotencyKey: "k1", install: "i1", token: "app", receivedAt: Date()) == .duplicate(id: id))
        #expect(try await store.receive(Data("forged".utf8), header: header(), idempotencyKey: "k1", install: "i2", token: "app", receivedAt: Date()) == .conflict)
        #expect(try await store.bytes(id: id) == bytes)
        let stored = try await store.stored(idempotencyKey: "k1")
        #expect(stored?.id == id && stored?.digest == ReportDigest.hex(of: bytes))
        #expect(try await store.stored(idempotencyKey: "k2") == nil)
        #expect(try await store.bytes(id: id + 1000) == nil)
        let listed = try await store.reports(app: nil, limit: 10, beforeID: nil)
        #expect(listed.map(\.install) == ["i1"] && listed.first?.header == header() && listed.first?.digest == ReportDigest.hex(of: bytes))
        let again = try await open()
        #expect(try await again.allReports().count == 1)
        await again.close()
        await store.close()
    }

    /// Writers on separate openings racing on one key store it once: the unique constraint,
    /// not the lookup, decides.
    public static func racingWriters(_ open: () async throws -> any CollectorStore) async throws {
        var stores: [any CollectorStore] = []
        for _ in 0..<4 { stores.append(try await open()) }
        let receipts = try await withThrowingTaskGroup(of: ReportReceipt.self) { group in
            for store in stores {
                for _ in 0..<5 {
                    group.addTask {
                        try await store.receive(Data("same".utf8), header: header(), idempotencyKey: "race", install: "i", token: "app", receivedAt: Date())
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(receipts.filter { if case .stored = $0 { true } else { false } }.count == 1)
        #expect(receipts.filter { if case .duplicate = $0 { true } else { false } }.count == 19)
        #expect(try await stores[0].allReports().count == 1)
        for store in stores { await store.close() }
    }

    /// Retention by age and by size per app; erasing an install; deleting one; paging.
    public static func retention(_ open: () async throws -> any CollectorStore) async throws {
        let store = try await open()
        let now = Date()
        for index in 0..<6 {
            let received = now.addingTimeInterval(Double(index - 6) * 86_400)  // 6 days ago … 1 day ago
            _ = try await store.receive(
                Data(repeating: UInt8(index), count: 100), header: header(), idempotencyKey: "a\(index)", install: index.isMultiple(of: 2) ? "even" : "odd",
                token: "app", receivedAt: received
            )
        }
        _ = try await store.receive(Data("other".utf8), header: header(app: "com.example.other"), idempotencyKey: "o", install: "even", token: "other", receivedAt: now)
        // Paging: newest first, two at a time, all seven once.
        var paged: [Int64] = [], before: Int64?
        while true {
            let page = try await store.reports(app: nil, limit: 2, beforeID: before)
            paged += page.map(\.id)
            guard let last = page.last else { break }
            before = last.id
        }
        #expect(paged.count == 7 && paged == paged.sorted(by: >))
        #expect(try await store.reports(app: "com.example.other", limit: 10, beforeID: nil).count == 1)
        // Older than 3.5 days: the first three go; the other app is untouched.
        #expect(try await store.applyRetention(app: "com.example.notes", olderThan: now.addingTimeInterval(-3.5 * 86_400), maxBytes: nil) == 3)
        // At most 200 bytes: the oldest of the remaining three goes.
        #expect(try await store.applyRetention(app: "com.example.notes", olderThan: nil, maxBytes: 200) == 1)
        let usage = try await store.usage(app: "com.example.notes")
        #expect(usage.count == 2 && usage.bytes == 200)
        #expect(try await store.apps() == ["com.example.notes", "com.example.other"])
        #expect(try await store.erase(install: "even") == 2)  // one of notes, and other's
        let left = try await store.allReports()
        #expect(left.count == 1 && left.first?.install == "odd")
        if let only = left.first {
            let deleted = try await store.delete(id: only.id), again = try await store.delete(id: only.id)
            #expect(deleted && !again)
        }
        await store.close()
    }

    /// Revoked tokens and settings, shared by every opening.
    public static func switches(_ open: () async throws -> any CollectorStore) async throws {
        let store = try await open(), other = try await open()
        let revoked = try await other.revokedTokens(), setting = try await other.setting("uploads")
        #expect(revoked.isEmpty && setting == nil)
        try await store.revoke(token: "leaked", at: Date())
        try await store.revoke(token: "leaked", at: Date())
        try await store.setSetting("uploads", to: "stopped")
        #expect(try await other.revokedTokens() == ["leaked"])
        #expect(try await other.setting("uploads") == "stopped")
        try await other.setSetting("uploads", to: nil)
        #expect(try await store.setting("uploads") == nil)
        await store.close()
        await other.close()
    }
}
