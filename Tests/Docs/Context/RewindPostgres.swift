// The shop example, recorded into and read from a PostgreSQL store.
import Rewind
import RewindExamples
import RewindLog
import RewindPostgres
import RewindReplay

private let location = try! PostgresLocation(parsing: "postgres://rewind@db.internal:5432/fleet")
private let identity = AppIdentity(id: "com.example.shop", version: "2.3")
