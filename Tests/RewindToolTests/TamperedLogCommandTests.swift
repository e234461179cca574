import Foundation
import GRDB
import RewindTestSupport
import Testing

@Suite("rewind on tampered logs")
struct TamperedLogCommandTests {
    @Test("stats and log on a log whose times are far apart or out of order: a report, never a trap")
    func extremeTimes() async throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        #expect(try await run(rewind, ["demo", "--quiet", "--actions", "30", "--output", "shop.rewind"], in: folder.path).status == 0)
        let queue = try DatabaseQueue(path: folder.file("shop.rewind"))
        try await queue.write { db in
            try db.execute(sql: "UPDATE events SET time = -1e300 WHERE seq = 1")
            try db.execute(sql: "UPDATE events SET time = 1e300 WHERE seq = 2")
        }
        try queue.close()
        for arguments in [["stats", "shop.rewind"], ["log", "shop.rewind"], ["check", "shop.rewind"], ["export", "shop.rewind", "--output", "x.jsonl"]] {
            let result = try await run(rewind, arguments, in: folder.path)
            #expect(!result.signaled, "\(arguments): \(result.standardError)")
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
    }

    @Test("an origin this build does not know (a newer recorder's) reads as call; a scene's shows as [scene]")
    func unknownOrigin() async throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        #expect(try await run(rewind, ["demo", "--quiet", "--actions", "30", "--output", "shop.rewind"], in: folder.path).status == 0)
        let queue = try DatabaseQueue(path: folder.file("shop.rewind"))
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO sources (file, function, line, "column", origin) VALUES ('Shop/Future.swift', 'f()', 1, 1, 'hologram'),
                                                                                  ('Shop/Flow.swift', 'flow()', 2, 1, 'scene')
                """)
            try db.execute(sql: "UPDATE events SET source_id = (SELECT id FROM sources WHERE origin = 'hologram') WHERE seq = 1")
            try db.execute(sql: "UPDATE events SET source_id = (SELECT id FROM sources WHERE origin = 'scene') WHERE seq = 2")
        }
        try queue.close()
        let json = try await run(rewind, ["log", "shop.rewind", "--limit", "2", "--json"], in: folder.path)
        #expect(json.status == 0, "\(json.standardError)")
        let origins = json.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.map { $0["origin"] as? String }
        #expect(origins == ["call", "scene"])
        let text = try await run(rewind, ["log", "shop.rewind", "--limit", "2"], in: folder.path)
        let lines = text.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("Shop/Future.swift:1 f()") == true && lines.first?.contains("[") == false)
        #expect(lines.last?.contains("Shop/Flow.swift:2 flow() [scene]") == true)
    }
}
