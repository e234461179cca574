#if Collector
import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// The floor of any ingestion, for the collect workload: the same HTTP server (Hummingbird) with
/// a handler that takes the body and does one INSERT into SQLite (WAL, synchronous = FULL, as
/// the collector's store) — no token, no header check, no limits, no idempotency.
enum FloorServer {
    static func run(path: String) async throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, key TEXT NOT NULL, bytes BLOB NOT NULL)")
        }
        let key = HTTPField.Name("Idempotency-Key")!
        let router = Router()
        router.post("v1/reports") { request, _ -> Response in
            let body = Data(buffer: try await request.body.collect(upTo: 2 << 20))
            let name = request.headers[key] ?? ""
            try await pool.write { db in try db.execute(sql: "INSERT INTO bodies (key, bytes) VALUES (?, ?)", arguments: [name, body]) }
            return Response(status: .created)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in FileHandle.standardOutput.write(Data("floor: listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8)) }
        )
        try await app.runService()
    }
}
#endif
