import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// Call sites and case names are stored once each, and the writer finds their ids by a slot
/// chosen cheaply (``RecentIDs``) before its dictionary: values that share a slot must keep rows
/// of their own, and a rollback must forget what the slots remember.
@Suite("Interned call sites and case names")
struct InternedRowsTests {
    /// Case names of one length and one last letter: the same slot.
    enum Pair: Codable, Sendable, Equatable {
        case ab(String)
        case cb(String)
    }

    /// What an event's row says of its call site and case.
    struct Stored: Equatable {
        var actionCase: String
        var file: String
        var function: String
        var line: UInt
        var column: UInt
        var origin: ActionSource.Origin

        init(_ actionCase: String, _ source: ActionSource) {
            (self.actionCase, file, function, line, column, origin) = (actionCase, source.file, source.function, source.line, source.column, source.origin)
        }
    }

    static func stored(_ path: String) throws -> [Stored] {
        let reader = try EventLog(path: path, mode: .readOnly)
        var cursor = reader.events()
        return try cursor.collect().map { Stored($0.actionCase, $0.source) }
    }

    @Test("call sites and case names that share a look-up slot keep rows of their own, across transactions")
    func sharedSlots() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("slots.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "slots"), codec: BinaryPayloadCodec(), initialState: 0)
        // One line and column (and line + 64, which lands in the same slot), other files,
        // functions and origins.
        let sources = [
            ActionSource(file: "App/One.swift", function: "tap()", line: 10, column: 5),
            ActionSource(file: "App/Two.swift", function: "tap()", line: 10, column: 5),
            ActionSource(file: "App/One.swift", function: "load()", line: 10, column: 5),
            ActionSource(file: "App/One.swift", function: "tap()", line: 10, column: 5, origin: .effect),
            ActionSource(file: "App/One.swift", function: "tap()", line: 74, column: 5),
        ]
        var written: [Stored] = []
        for round in 0..<4 {
            var records: [EventRecord<Pair>] = []
            for (index, source) in sources.enumerated() {
                let action: Pair = (index + round).isMultiple(of: 2) ? .ab("\(round)") : .cb("\(round)")
                records.append(EventRecord(action, source: source))
                written.append(Stored((index + round).isMultiple(of: 2) ? "ab" : "cb", source))
            }
            try log.append(records, to: session)
        }
        try log.close()
        #expect(try Self.stored(path) == written)
    }

    @Test("a writer whose transaction fails forgets the call sites and cases it looked up; another writer's rows keep their own")
    func failedWriteForgets() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("two.rewind")
        let first = try EventLog(path: path), second = try EventLog(path: path)
        let one = try first.beginSession(app: AppIdentity(id: "a"), codec: BinaryPayloadCodec(), initialState: 0)
        let two = try second.beginSession(app: AppIdentity(id: "b"), codec: BinaryPayloadCodec(), initialState: 0)
        let mine = ActionSource(file: "App/Mine.swift", function: "tap()", line: 3, column: 9)
        let theirs = ActionSource(file: "App/Theirs.swift", function: "load()", line: 3, column: 9)

        // The first writer's disk fills in a transaction that looked its call site and case up
        // twice (the second time from what the first interned): the rollback takes their rows.
        try first.simulateFullDisk()
        let big = String(repeating: "x", count: 50_000)
        #expect(throws: EventLogError.diskFull(path: path)) {
            try first.append([EventRecord(Pair.ab("1"), source: mine), EventRecord(Pair.ab(big), source: mine)], to: one)
        }
        // Meanwhile the second writer's call site and case take the ids they had.
        try second.append([EventRecord(Pair.cb("2"), source: theirs)], to: two)
        try first.freeDiskSpace()
        try first.append([EventRecord(Pair.ab("3"), source: mine), EventRecord(Pair.ab("4"), source: mine)], to: one)
        try first.close()
        try second.close()

        #expect(try Self.stored(path) == [Stored("cb", theirs), Stored("ab", mine), Stored("ab", mine)])
    }
}
