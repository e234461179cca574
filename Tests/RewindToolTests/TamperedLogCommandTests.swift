import Foundation
import GRDB
import RewindTestSupport
import Testing

@Suite("rewind on tampered logs")
struct TamperedLogCommandTests {
    @Test("stats and log on a log whose times are far apart or out of order: a report, never a trap")
    func extremeTimes() throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        #expect(try run(rewind, ["demo", "--quiet", "--actions", "30", "--output", "shop.rewind"], in: folder.path).status == 0)
        let queue = try DatabaseQueue(path: folder.file("shop.rewind"))
        try queue.write { db in
            try db.execute(sql: "UPDATE events SET time = -1e300 WHERE seq = 1")
            try db.execute(sql: "UPDATE events SET time = 1e300 WHERE seq = 2")
        }
        try queue.close()
        for arguments in [["stats", "shop.rewind"], ["log", "shop.rewind"], ["check", "shop.rewind"], ["export", "shop.rewind", "--output", "x.jsonl"]] {
            let result = try run(rewind, arguments, in: folder.path)
            #expect(!result.signaled, "\(arguments): \(result.standardError)")
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
    }
}
