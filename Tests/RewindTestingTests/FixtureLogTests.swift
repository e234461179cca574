import Foundation
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTesting
import Testing

@Suite("Fixture logs")
struct FixtureLogTests {
    @Test("an exported fixture is read under its own path, and its imported copy is deleted with the log")
    func importedCopyGoesWithTheLog() throws {
        var log: EventLog? = try fixtureLog("__Fixtures__/shop-negative-total.jsonl")
        let copy = try #require(log?.fileOnDisk)
        #expect(log?.path == URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Fixtures__/shop-negative-total.jsonl").path)
        #expect(copy != log?.path)
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(try log?.seqRange() == 1...4)
        log = nil
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: copy + suffix), "left behind: \(copy + suffix)")
        }
    }
}
