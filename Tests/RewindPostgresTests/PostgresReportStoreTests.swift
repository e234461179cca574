import Foundation
import RewindLog
import RewindPostgres
import RewindTestSupport
import Testing

/// A collector's store in PostgreSQL: what every store promises (``CollectorStoreContract``),
/// and a server restart under a collector's connections.
@Suite("PostgreSQL report store", .enabled(if: PostgresTestServer.enabled))
struct PostgresReportStoreTests {
    @Test("one row per idempotency key: the same bytes again are a duplicate, other bytes a conflict that changes nothing")
    func idempotent() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await CollectorStoreContract.idempotent { try await PostgresReportStore.open(location) }
        }
    }

    @Test("collectors on separate connections racing on one key store it once")
    func racingWriters() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await CollectorStoreContract.racingWriters { try await PostgresReportStore.open(location, connections: 2) }
        }
    }

    @Test("retention by age and by size per app; erasing an install; deleting one; paging")
    func retention() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await CollectorStoreContract.retention { try await PostgresReportStore.open(location) }
        }
    }

    @Test("revoked tokens and the kill switch are shared by every collector on the store")
    func switches() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await CollectorStoreContract.switches { try await PostgresReportStore.open(location) }
        }
    }

    @Test("the server restarted: the store connects again and the next report is stored, once")
    func serverRestarted() async throws {
        let server = try PrivatePostgresServer.start()
        defer { server.stop() }
        let store = try await PostgresReportStore.open(server.location, connections: 2)
        let header = CollectorStoreContract.header()
        _ = try await store.receive(Data("one".utf8), header: header, idempotencyKey: "one", install: "i", token: "app", receivedAt: Date())
        try #require(server.restart())
        // Every connection was cut: each statement meets a closed one, connects again, runs.
        for index in 0..<4 {
            let receipt = try await store.receive(Data("after \(index)".utf8), header: header, idempotencyKey: "after\(index)", install: "i", token: "app", receivedAt: Date())
            guard case .stored = receipt else { Issue.record("not stored after the restart: \(receipt)"); continue }
        }
        #expect(try await store.allReports().count == 5)
        await store.close()
    }
}
