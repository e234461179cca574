import Foundation
import GRDB
import Rewind

/// The recorder an app would write by hand instead of using Rewind's: a middleware that
/// JSON-encodes each action with Foundation and inserts what has gathered through GRDB, one
/// transaction per `batchSize` actions, on the dispatching thread. It keeps no sources, case
/// paths or snapshots: only the actions, which is what it would take to replay them.
final class HandWrittenRecorder<State, Action: Encodable & Sendable>: @unchecked Sendable {
    // `@unchecked`: `pending` is touched only by the store's middleware, which the store calls
    // one action at a time, and by `flush()` after dispatching ends.
    private let database: DatabaseQueue
    private let batchSize: Int
    private let encoder = JSONEncoder()
    private var pending: [(time: Double, payload: Data)] = []

    init(path: String, batchSize: Int) throws {
        database = try DatabaseQueue(path: path)
        self.batchSize = batchSize
        try database.write { db in
            try db.execute(sql: "CREATE TABLE actions (id INTEGER PRIMARY KEY, time REAL NOT NULL, payload BLOB NOT NULL)")
        }
    }

    var middleware: Middleware<State, Action> {
        Middleware(didReduce: { [self] dispatched, _, _ in
            // A hand-written middleware has nowhere to report a failure but the console.
            do {
                pending.append((Date().timeIntervalSince1970, try encoder.encode(dispatched.action)))
                if pending.count >= batchSize { try flush() }
            } catch {
                print("could not record: \(error)")
            }
        })
    }

    func flush() throws {
        let rows = pending
        pending.removeAll(keepingCapacity: true)
        try database.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO actions (time, payload) VALUES (?, ?)")
            for row in rows { try insert.execute(arguments: [row.time, row.payload]) }
        }
    }
}
