import Foundation
import Rewind
@testable import RewindCLI
import RewindLog
import RewindTestSupport
import Testing

/// The log `rewind serve` keeps open for its calls (`OpenLogs`).
@Suite("Logs kept open")
struct OpenLogsTests {
    @Test("an older log is copied once for every call, copied again once it changes, and opened anew when the file is replaced")
    func keptOlderLog() throws {
        let folder = try TemporaryDirectory()
        let path = try olderLog(in: folder)
        let kept = try OpenLogs.keepFile(path, keys: LogKeys())
        let again = try #require(try OpenLogs.log(path))
        #expect(again as AnyObject === kept as AnyObject, "each call reads through the one copy")
        #expect(try again.sessions().map(\.eventCount) == [3, 6])

        // Opened for writing, the file is migrated and recorded into: the next call after the
        // recopy interval reads the file itself, with the new event.
        let writer = try EventLog(path: path)
        try writer.append([EventRecord(9, source: ActionSource())], to: writer.session(1))
        try writer.close()
        Thread.sleep(forTimeInterval: Double(OpenLogs.recopyInterval.components.seconds) + 0.2)
        let changed = try #require(try OpenLogs.log(path))
        #expect(changed as AnyObject !== kept as AnyObject)
        #expect(try changed.sessions().map(\.eventCount) == [4, 6])
        #expect(try OpenLogs.log(path) as AnyObject === changed as AnyObject, "a log of the latest schema follows its file by itself")

        // Replaced by another log at the same path.
        try FileManager.default.removeItem(atPath: path)
        let other = try EventLog(path: path)
        _ = try other.beginSession(app: AppIdentity(id: "other"), initialState: 0)
        try other.close()
        #expect(try OpenLogs.log(path)?.sessions().map(\.app.id) == ["other"])
        // Deleted: the CLI's own message.
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: EventLogError.fileNotFound(path: path)) { try OpenLogs.log(path) }
    }

    @Test("a migrated copy left by a process that died mid-copy is deleted by the next copy made")
    func sweepsOrphans() throws {
        let folder = try TemporaryDirectory()
        let path = try olderLog(in: folder)
        // A process id that is no longer running: a child that has exited.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let orphan = temporary.appendingPathComponent("rewind-upgraded-\(child.processIdentifier)-\(UUID().uuidString).rewind").path
        let living = temporary.appendingPathComponent("rewind-upgraded-\(getppid())-\(UUID().uuidString).rewind").path
        for file in [orphan, orphan + "-journal", living] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        }
        defer { try? FileManager.default.removeItem(atPath: living) }
        _ = try EventLog(path: path, mode: .readOnly)
        #expect(!FileManager.default.fileExists(atPath: orphan) && !FileManager.default.fileExists(atPath: orphan + "-journal"))
        #expect(FileManager.default.fileExists(atPath: living), "a living process's copy is left alone")
    }
}
