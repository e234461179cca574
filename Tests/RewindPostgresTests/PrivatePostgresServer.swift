import Foundation
import RewindPostgres
import RewindTestSupport

/// A PostgreSQL server of a test's own, to restart or stop under a writer: started by the same
/// script as the suite's (`Tools/postgres.sh`), in a temporary folder, and stopped by `stop()`.
/// The script's output goes to the file beside that folder (`pg.out`).
struct PrivatePostgresServer {
    let location: PostgresLocation
    private let script: String
    private let directory: String
    /// Keeps the folder until the server is done with it.
    private let cluster: TemporaryDirectory

    /// A server of the test's own that did not start, with what the script said.
    struct StartFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts a server, or throws with what the script said: a test that needs one fails
    /// without it, never passes by returning early.
    static func start() throws -> PrivatePostgresServer {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tools/postgres.sh").path
        let cluster = try TemporaryDirectory()
        let directory = cluster.file("pg")
        guard PushCommandTests.script(script, "start", directory) == 0,
              let port = try? String(contentsOfFile: directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              let password = try? String(contentsOfFile: directory + "/.password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              let location = try? PostgresLocation(parsing: "postgres://rewind:\(password)@127.0.0.1:\(port)/rewind?sslmode=disable", environment: [:]) else {
            // The folder goes with the test: say here what the script said (initdb's or the
            // server's log on a failed start).
            let said = (try? String(contentsOfFile: directory + ".out", encoding: .utf8)) ?? "(the script wrote nothing)"
            throw StartFailed(description: "could not start a server of the test's own:\n\(said.suffix(4_000))")
        }
        return PrivatePostgresServer(location: location, script: script, directory: directory, cluster: cluster)
    }

    /// Restarts the server (`pg_ctl restart`: every connection is cut); whether it came back.
    func restart() -> Bool {
        PushCommandTests.script(script, "restart", directory) == 0
    }

    /// Starts the server `stop()` stopped, on the same port; whether it came back.
    func resume() -> Bool {
        PushCommandTests.script(script, "resume", directory) == 0
    }

    /// The server's main process (the first line of its `postmaster.pid`), while it runs.
    var postmaster: pid_t? {
        (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8))
            .flatMap { $0.split(separator: "\n").first }
            .flatMap { pid_t($0) }
    }

    func stop() {
        _ = PushCommandTests.script(script, "stop", directory)
    }
}
