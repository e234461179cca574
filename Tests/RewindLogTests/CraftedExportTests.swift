import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// Exports that are valid JSON Lines but carry values at the edges of what their fields hold:
/// import refuses each with a corrupt-log error naming the line, never traps, and never takes
/// memory out of proportion to the file.
@Suite("Crafted exports")
struct CraftedExportTests {
    /// A small export's lines: a header, a session, its snapshot and three events.
    static func exportLines(in folder: TemporaryDirectory) throws -> [String] {
        let log = try EventLog(path: folder.file("base.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "com.example.shop"), initialState: ShopState())
        try log.append((0..<3).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: session)
        let url = URL(fileURLWithPath: folder.file("base.jsonl"))
        try log.export(to: url)
        return String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Imports `lines`; the error, or `nil` when it imported.
    static func importing(_ lines: [String], in folder: TemporaryDirectory) throws -> EventLogError? {
        let url = URL(fileURLWithPath: folder.file("crafted-\(UUID().uuidString).jsonl"))
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        let target = folder.file("imported-\(UUID().uuidString).rewind")
        do {
            try EventLog.importLog(from: url, to: target).close()
            return nil
        } catch {
            #expect(!FileManager.default.fileExists(atPath: target), "nothing is left behind")
            return error
        }
    }

    @Test("text with a NUL character (U+0000) is refused with its line, never cut; other control characters import whole")
    func nulInText() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("noted.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "com.example.shop", version: "1.0"), initialState: ShopState(), info: #"{"device":"D"}"#)
        try log.append([EventRecord(ShopAction.cart(.clear), source: ActionSource(info: "NOTE"))], to: session)
        let url = URL(fileURLWithPath: folder.file("noted.jsonl"))
        try log.export(to: url)
        let lines = String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
        for (marker, what) in [("NOTE", "the note"), ("com.example.shop", "the app's id"), (#"{\"device\":\"D\"}"#, "the session's info")] {
            let line = try #require(lines.firstIndex { $0.contains(marker) }, "\(marker)")
            var crafted = lines
            crafted[line] = crafted[line].replacingOccurrences(of: marker, with: "a\\u0000b")
            let error = try #require(try Self.importing(crafted, in: folder), "\(what)")
            guard case let .corrupt(_, detail) = error else { Issue.record("\(what): \(error)"); continue }
            #expect(detail.hasPrefix("line \(line + 1): \(what) contains a NUL character"), "\(detail)")
        }
        // U+0001 and friends are text like any other: they come back whole.
        var control = lines
        let noted = try #require(lines.firstIndex { $0.contains("NOTE") })
        control[noted] = control[noted].replacingOccurrences(of: "NOTE", with: "a\\u0001b\\u001f")
        let path = folder.file("control.jsonl")
        try Data((control.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let imported = try EventLog.importLog(from: URL(fileURLWithPath: path), to: folder.file("control.rewind"))
        var cursor = imported.events()
        #expect(try cursor.next()?.source.info == "a\u{1}b\u{1f}")
        try imported.close()
    }

    @Test("append and beginSession refuse text with a NUL and write nothing")
    func nulThroughTheAPI() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("api.rewind"))
        #expect(throws: EventLogError.self) {
            try log.beginSession(app: AppIdentity(id: "com.example.shop"), initialState: ShopState(), info: "a\u{0}b")
        }
        #expect(throws: EventLogError.self) {
            try log.beginSession(app: AppIdentity(id: "com\u{0}example"), initialState: ShopState())
        }
        #expect(try log.sessions().isEmpty)
        let session = try log.beginSession(app: AppIdentity(id: "com.example.shop"), initialState: ShopState())
        #expect {
            try log.append([EventRecord(ShopAction.cart(.clear), source: ActionSource(info: "a\u{0}b"))], to: session)
        } throws: { error in
            "\(error)".contains("note contains a NUL character")
        }
        var cursor = log.events()
        #expect(try cursor.next() == nil)
    }

    @Test("a source line or column past Int64.max is a corrupt line, not a trap; Int64.max itself imports", arguments: ["line", "column"])
    func sourcePositionEdges(field: String) throws {
        let folder = try TemporaryDirectory()
        let lines = try Self.exportLines(in: folder)
        let event = try #require(lines.firstIndex { $0.contains(#""type":"event""#) })
        let pattern = try Regex(#""\#(field)":\d+"#)
        for value in ["9223372036854775808", "18446744073709551615", "18446744073709551616", "-1", "1e400"] {
            var crafted = lines
            crafted[event] = crafted[event].replacing(pattern, with: #""\#(field)":\#(value)"#)
            #expect(crafted[event] != lines[event])
            let error = try #require(try Self.importing(crafted, in: folder), "\(field) \(value)")
            guard case let .corrupt(_, detail) = error else { Issue.record("\(field) \(value): \(error)"); continue }
            #expect(detail.hasPrefix("line \(event + 1) "), "\(field) \(value): \(detail)")
        }
        var largest = lines
        largest[event] = largest[event].replacing(pattern, with: #""\#(field)":9223372036854775807"#)
        #expect(try Self.importing(largest, in: folder) == nil)
    }

    @Test("symbol lines that each skip 65,537 ids are refused within the first few, not filled with empty slots")
    func symbolFlood() throws {
        let folder = try TemporaryDirectory()
        var lines = try Self.exportLines(in: folder)
        // About 50 KB: before the bound, 65,537 empty slots a line, a gigabyte in all.
        let flood = (1...1_000).map { #"{"type":"symbol","id":\#(Int64($0) * 65_537),"name":"k\#($0)"}"# }
        lines.insert(contentsOf: flood, at: 1)
        let error = try #require(try Self.importing(lines, in: folder))
        guard case let .corrupt(_, detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.hasPrefix("line 3: symbol id 131074 is out of range"), "\(detail)")
        // A few writers' worth of unread ids is fine.
        var sparse = try Self.exportLines(in: folder)
        sparse.insert(contentsOf: [#"{"type":"symbol","id":3,"name":"a"}"#, #"{"type":"symbol","id":60000,"name":"b"}"#], at: 1)
        #expect(try Self.importing(sparse, in: folder) == nil)
    }
}
