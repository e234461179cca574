import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindReplay
import RewindTestSupport
import Testing

/// One log of a store read as its file is read: `Replayer` over it gives the file's states.
@Suite("PostgreSQL log read as a file", .enabled(if: PostgresTestServer.enabled))
struct PostgresReadOnlyLogTests {
    /// The copies of store logs in this process's temporary folder.
    static func copies() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path).filter { $0.hasPrefix("rewind-store-") && $0.hasSuffix(".rewind") }
    }

    @Test("Replayer over a store's log gives the device file's state at every seq, and the copy goes with the log")
    func replayer() async throws {
        let folder = try TemporaryDirectory(), other = try TemporaryDirectory()
        let device = try await PostgresPushTests.deviceLog(in: folder)
        let second = try await PostgresPushTests.deviceLog(in: other)
        let identity = try #require(try device.identity())
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)

            let copiesBefore = try Self.copies()
            do {
                let log = try await store.readOnlyLog()
                #expect(log.path == location.description + (location.tls == .prefer ? "?" : "&") + "log=\(identity.uuidString.lowercased())")
                #expect(try log.identity() == identity && log.mode == .readOnly)
                #expect(try log.sessions().map(\.id) == [1, 2, 3])
                #expect(try Self.copies().count == copiesBefore.count + 1)
                let fromFile = Replayer(log: device, reducer: Todo.reducer), fromStore = Replayer(log: log, reducer: Todo.reducer)
                let seqs = try #require(try device.seqRange())
                for seq in seqs {
                    #expect(try fromStore.state(at: seq) == fromFile.state(at: seq), "seq \(seq)")
                }
                for session in try device.sessions() {
                    #expect(try fromStore.finalState(session: session.id, fromStart: true) == fromFile.finalState(session: session.id, fromStart: true))
                    #expect(try fromStore.verify(session: session.id).divergence == nil)
                }
                #expect(throws: EventLogError.self) { try fromStore.state(at: seqs.upperBound + 1) }
            }
            #expect(try Self.copies() == copiesBefore, "the copy is deleted with the log")

            _ = try await store.push(second)
            await #expect {
                _ = try await store.readOnlyLog()
            } throws: { error in
                "\(error)".contains("several logs: name one with log=ID")
            }
            let unknown = UUID()
            await #expect {
                _ = try await store.readOnlyLog(unknown)
            } throws: { error in
                "\(error)".contains("no sessions were pushed from log \(unknown.uuidString.lowercased())")
            }
            var named = location
            named.log = try second.identity()
            let byLocation = try await PostgresLog.open(named, mode: .readOnly)
            let log = try await byLocation.readOnlyLog()
            await byLocation.close()
            #expect(try log.identity() == named.log, "the location's log= chooses")
            #expect(try PostgresPullTests.everything(log) == PostgresPullTests.everything(second))
        }
    }

    @Test("log= in a URL is read, shown in the location's description, and refused when not a UUID")
    func logParameter() throws {
        let id = UUID()
        let location = try PostgresLocation(parsing: "postgres://u:secret@db:5433/fleet?sslmode=require&log=\(id.uuidString)", environment: [:])
        #expect(location.log == id && location.tls == .require)
        #expect(location.description == "postgres://u@db:5433/fleet?sslmode=require&log=\(id.uuidString.lowercased())")
        for bad in ["log=", "log=abc", "log=\(id.uuidString)x"] {
            #expect {
                _ = try PostgresLocation(parsing: "postgres://u:secret@db/fleet?\(bad)", environment: [:])
            } throws: { error in
                "\(error)".contains("is not a log's identity") && !"\(error)".contains("secret")
            }
        }
        #expect(try PostgresLocation(parsing: "postgres://db/fleet", environment: [:]).log == nil)
        let install = try PostgresLocation(parsing: "postgres://db/fleet?install=api-1", environment: [:])
        #expect(install.install == "api-1" && install.log == nil && install.description.hasSuffix("/fleet?install=api-1"))
        for (bad, message) in [("install=", "install= needs an install's id"), ("log=\(id.uuidString)&install=x", "log= and install= each name what to read")] {
            #expect {
                _ = try PostgresLocation(parsing: "postgres://u:secret@db/fleet?\(bad)", environment: [:])
            } throws: { error in
                "\(error)".contains(message) && !"\(error)".contains("secret")
            }
        }
    }
}
