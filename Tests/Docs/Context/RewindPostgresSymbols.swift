// The store of the PostgreSQL doc comments, and the shop example recorded into it.
import RewindExamples
import RewindLog
import RewindReplay

private let location = try! PostgresLocation(parsing: "postgres://rewind@127.0.0.1/fleet")
