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
