import Foundation
import GRDB
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// `schema`, `sessions`' fingerprints and the drift warnings of the replaying commands, run as
/// the built binaries.
@Suite("rewind schema")
struct SchemaCommandTests {
    /// A todo log recorded with its types' shapes probed: `TodoState` has no `@BinaryCodable`,
    /// so by default the recorder would record it as opaque (an app opts in, as here).
    static func todoLog() async throws -> (folder: TemporaryDirectory, path: String) {
        let folder = try TemporaryDirectory()
        let path = folder.file("todo.rewind")
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.typeShapes = .generatedOrProbed
        _ = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.todo"), initialState: TodoState(),
            reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 5), actions: 40,
            configuration: configuration
        )
        return (folder, path)
    }

    /// Rewrites the recorded action shape as an earlier build had it: without its `sync` case.
    static func dropSyncCase(in path: String) throws -> TypeShape {
        // The recorder's writer thread may still be letting the log go (closing it checkpoints
        // the WAL, which locks the file): wait for it rather than fail at once, GRDB's default.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.write { db in
            let id = try #require(try Int64.fetchOne(db, sql: "SELECT action_shape_id FROM sessions WHERE id = 1"))
            let text = try #require(try String.fetchOne(db, sql: "SELECT shape FROM type_shapes WHERE id = ?", arguments: [id]))
            guard case let .choice(name, cases) = try JSONDecoder().decode(TypeShape.self, from: Data(text.utf8)) else {
                throw CancellationError()
            }
            let earlier = TypeShape.choice(name: name, cases: cases.filter { $0.name != "sync" })
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try db.execute(
                sql: "UPDATE type_shapes SET shape = ?, fingerprint = ? WHERE id = ?",
                arguments: [String(decoding: try encoder.encode(earlier), as: UTF8.self), earlier.fingerprint, id]
            )
            return earlier
        }
    }

    @Test("sessions shows each session's fingerprints; schema prints the recorded types; --diff finds them unchanged")
    func unchanged() async throws {
        let (folder, path) = try await Self.todoLog()
        let tool = builtProduct("rewind-todo")
        let action = TypeShape.of(TodoAction.self), state = TypeShape.of(TodoState.self)

        let sessions = try await run(tool, ["sessions", path, "--json"], in: folder.path)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(sessions.standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.first?["actionFingerprint"] as? String == action.fingerprint)
        #expect(listed.first?["stateFingerprint"] as? String == state.fingerprint)
        let table = try await run(tool, ["sessions", path], in: folder.path)
        #expect(table.standardOutput.contains("\(action.fingerprint.prefix(8))/\(state.fingerprint.prefix(8))"))

        let schema = try await run(tool, ["schema", path], in: folder.path)
        #expect(schema.status == 0, "\(schema.standardError)")
        #expect(schema.standardOutput.hasPrefix("session 1 (com.example.todo 1, action schema 1, state schema 1)\n  action TodoAction, fingerprint \(action.fingerprint)\n"))
        for line in action.definitions + state.definitions { #expect(schema.standardOutput.contains("    " + line)) }

        let diff = try await run(tool, ["schema", path, "--diff"], in: folder.path)
        #expect(diff.status == 0)
        #expect(diff.standardOutput.components(separatedBy: "    unchanged").count == 3)
        let json = try await run(tool, ["schema", path, "--diff", "--json"], in: folder.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(report["drifted"] as? Bool == false)
    }

    @Test("a type changed without a version bump: schema --diff names the change and exits 1; replaying warns once, on stderr")
    func drifted() async throws {
        let (folder, path) = try await Self.todoLog()
        let earlier = try Self.dropSyncCase(in: path)
        let tool = builtProduct("rewind-todo")
        let change = "TodoAction: case `sync(_0: SyncAction)` added"

        let diff = try await run(tool, ["schema", path, "--diff"], in: folder.path)
        #expect(diff.status == 1)
        #expect(diff.standardOutput.contains("  action TodoAction, fingerprint \(earlier.fingerprint)\n    now \(TypeShape.of(TodoAction.self).fingerprint):\n      \(change)\n"))
        #expect(diff.standardOutput.contains("Recorded payloads decode as before; bump actionSchemaVersion to 2"))
        let json = try await run(tool, ["schema", path, "--diff", "--json"], in: folder.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(report["drifted"] as? Bool == true)
        let group = try #require((report["groups"] as? [[String: Any]])?.first)
        let drift = try #require((group["action"] as? [String: Any])?["drift"] as? [String: Any])
        #expect(drift["recordedFingerprint"] as? String == earlier.fingerprint)

        let verify = try await run(tool, ["verify", path], in: folder.path)
        #expect(verify.status == 0, "\(verify.standardError)")
        #expect(verify.standardError.components(separatedBy: "rewind: warning: session 1's TodoAction changed since it was recorded").count == 2)
        #expect(verify.standardError.contains("  " + change + "\n"))
        let state = try await run(tool, ["state", path, "--at", "10"], in: folder.path)
        #expect(state.status == 0 && state.standardError.contains("rewind: warning: session 1's TodoAction"))
    }

    @Test("bad input: a damaged shape, an unknown session or app, and a log without shapes each get a clear answer")
    func badInput() async throws {
        let (folder, path) = try await Self.todoLog()
        let tool = builtProduct("rewind-todo")
        let unknownSession = try await run(tool, ["schema", path, "--session", "99"], in: folder.path)
        #expect(unknownSession.status == 2 && unknownSession.standardError.contains("session 99"))
        for bad in ["0", "-1"] {
            let refused = try await run(tool, ["schema", path, "--session", bad], in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains("--session"))
        }

        // A log of an app the tool does not know: listing works, comparing needs its types.
        let weather = folder.file("weather.rewind")
        let log = try EventLog(path: weather)
        _ = try log.beginSession(app: AppIdentity(id: "com.example.weather"), initialState: ["city": "Oslo"])
        try log.close()
        let listed = try await run(tool, ["schema", weather], in: folder.path)
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("no type shapes recorded (recorded before log schema 8, or with typeShapes = .none)"))
        let compared = try await run(tool, ["schema", weather, "--diff"], in: folder.path)
        #expect(compared.status == 2 && compared.standardError.contains("'com.example.weather', which this tool does not know"))

        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE type_shapes SET shape = '{\"record\":' || id || '}'") }
        let damaged = try await run(tool, ["schema", path], in: folder.path)
        #expect(damaged.status == 2)
        #expect(damaged.standardError.contains("session 1's action type shape cannot be read"))
        let verify = try await run(tool, ["verify", path], in: folder.path)
        #expect(verify.status == 0, "replaying does not need the shapes: \(verify.standardError)")
    }
}
