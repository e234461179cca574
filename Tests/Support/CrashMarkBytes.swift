import Foundation
import Rewind
public import RewindLog
@testable public import RewindSQLite
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mark as the handler writes it (CRewindCrash's `rewind_crash_mark`), little-endian.
public struct CrashMarkBytes: Sendable {
    public var bytes = [UInt8](repeating: 0, count: 512)

    public init() {
        bytes.replaceSubrange(0..<8, with: Array("RWNDCRSH".utf8))
        set(8, UInt32(1))
        set(12, UInt32(512))
        set(16, Int32(11))
        set(20, Int32(1))
        set(24, UInt64(16))
        set(32, UInt64(0x5555_0000_1234))
        set(40, UInt64(0x1234))
        set(48, Int64(8))
        set(56, Int64(5))
        set(64, Int64(5))
        set(72, Int64(1_795_813_821))
        set(80, Int64(500_000_000))
        set(88, UInt32(20))
        bytes.replaceSubrange(92..<112, with: (0..<20).map { UInt8($0) })
        set(124, UInt32(4242))
        bytes.replaceSubrange(128..<(128 + 11), with: Array("/bin/my-app".utf8))
    }

    /// The mark with its last 128 bytes holding the last reduced action: `index` (8, the
    /// mark's handed-off count, unless told), where it came from, and its case (none: `nil`).
    public func reducing(
        index: Int64 = 8, file: [UInt8] = Array("Shop/CartView.swift".utf8), fileLength: UInt8? = nil, line: UInt32 = 42,
        column: UInt32 = 9, origin: UInt8 = 1, actionCase: [UInt8]? = Array("cart.remove".utf8), caseLength: UInt8? = nil
    ) -> [UInt8] {
        var copy = self
        copy.set(384, index)
        copy.set(392, line)
        copy.set(396, column)
        copy.bytes[400] = origin
        copy.bytes[401] = fileLength ?? UInt8(file.count)
        copy.bytes.replaceSubrange(402..<(402 + file.count), with: file)
        copy.bytes[450] = caseLength ?? UInt8(actionCase?.count ?? 0)
        if let actionCase { copy.bytes.replaceSubrange(451..<(451 + actionCase.count), with: actionCase) }
        return copy.bytes
    }

    public mutating func set<T: FixedWidthInteger>(_ offset: Int, _ value: T) {
        for index in 0..<MemoryLayout<T>.size {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }

    public func setting<T: FixedWidthInteger>(_ offset: Int, _ value: T) -> [UInt8] {
        var copy = self
        copy.set(offset, value)
        return copy.bytes
    }
}

extension CrashMarkBytes {
    /// Makes a log at `path` whose first session (one event) has no end and no live writer — its
    /// log closed without ending it, as a process that died leaves it — and returns the path of
    /// the lock file left beside the log.
    public static func abandonedSession(at path: String) throws -> String {
        let first = try EventLog(path: path)
        let session = try first.beginSession(app: AppIdentity(id: "marked"), initialState: 0)
        try first.append([EventRecord(1, source: ActionSource())], to: session)
        let uuid = try #require(try first.read { db in try String.fetchOne(db, sql: "SELECT uuid FROM sessions") })
        try first.close()
        // Closed, not released: the lock goes with the descriptor — and with every copy of it.
        // A child process that a concurrent test spawns holds copies of this process's
        // descriptors until it execs: wait for any such copy to go.
        let deadline = Date() + 10
        while SessionLock.isHeld(log: path, session: uuid), Date() < deadline { usleep(1_000) }
        return path + "-sessions/" + uuid + ".lock"
    }

    /// The log's next writer, having begun its own session (which marks the abandoned one).
    public static func nextWriter(at path: String) throws -> EventLog {
        let next = try EventLog(path: path)
        _ = try next.beginSession(app: AppIdentity(id: "marked"), initialState: 0)
        return next
    }

    /// The ending the next writer gives an abandoned session with `contents` in its lock file
    /// (none: left empty), or a FIFO there.
    public static func ending(withLockFile contents: [UInt8]?, fifo: Bool = false) throws -> SessionEnding? {
        let folder = try TemporaryDirectory()
        let path = folder.file("marked.rewind")
        let lock = try abandonedSession(at: path)
        if fifo {
            try FileManager.default.removeItem(atPath: lock)
            #expect(mkfifo(lock, 0o600) == 0)
        } else if let contents {
            try Data(contents).write(to: URL(fileURLWithPath: lock))
        }
        let next = try nextWriter(at: path)
        defer { try? next.close() }
        return try next.sessions().first?.ending
    }

    /// A log whose first session crashed with `mark`, as its next writer found it; the log is
    /// open, recording a second session.
    public static func crashedLog(at path: String, mark: [UInt8] = CrashMarkBytes().bytes) throws -> EventLog {
        try Data(mark).write(to: URL(fileURLWithPath: try abandonedSession(at: path)))
        return try nextWriter(at: path)
    }
}
