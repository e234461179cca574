import Foundation
import Rewind
@testable import RewindLogCore
import RewindSQLite
import RewindTestSupport
import Testing

@Suite("Event cursor")
struct EventCursorTests {
    /// An action whose payload is about `size` bytes.
    struct Blob: Codable, Sendable, Equatable { var index: Int; var body: String }

    /// A log of `counts` events of each payload size, in order, copied into a `MemoryLog` that
    /// notes the pages asked of it.
    static func log(_ runs: [(count: Int, size: Int)], in folder: TemporaryDirectory) throws -> MemoryLog {
        let file = try EventLog(path: folder.file("blobs.rewind"))
        let session = try file.beginSession(app: AppIdentity(id: "com.example.blobs"), initialState: 0)
        var index = 0
        for run in runs {
            for first in stride(from: 0, to: run.count, by: 50) {
                try file.append((first..<min(first + 50, run.count)).map { _ in
                    index += 1
                    return EventRecord(Blob(index: index, body: String(repeating: "b", count: run.size)), source: ActionSource())
                }, to: session)
            }
        }
        defer { try? file.close() }
        return try MemoryLog(copying: file)
    }

    @Test("pages are sized by the last page's payloads: large payloads come a few at a time, small ones a page's worth; every event once, in order")
    func pagesSizedByPayloads() throws {
        let folder = try TemporaryDirectory()
        // 30 events of 1 MiB, then 3,000 of 20 bytes.
        let log = try Self.log([(30, 1 << 20), (3_000, 20)], in: folder)
        var cursor = log.events()
        var seqs: [Int64] = []
        while let event = try cursor.next() { seqs.append(event.seq) }
        #expect(seqs == Array(1...3_030))
        let asked = log.pagesAsked.withLock { $0 }
        // 16 first, then 8 MiB of the last page's largest payload (1 MiB and a little): 7 at a
        // time, never a thousand megabytes; once a page of small ones is read, the cursor's own
        // size again.
        #expect(asked == [16, 7, 7, 7, 1_000, 1_000, 1_000], "\(asked)")
    }

    @Test("small payloads: the first page of 16, then pages of the cursor's size")
    func smallPayloads() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.log([(2_500, 20)], in: folder)
        var cursor = log.events(pageSize: 1_000)
        var count = 0
        while try cursor.next() != nil { count += 1 }
        #expect(count == 2_500)
        #expect(log.pagesAsked.withLock { $0 } == [16, 1_000, 1_000, 1_000])
    }

    @Test("page sizing: the first page as given, then the bytes over the last page's largest payload, from one to the maximum")
    func sizing() {
        let pages = PageSizing(first: 256, maximum: 4_096, bytes: 8 << 20)
        #expect(pages.first == 256)
        #expect(pages.next(largest: 40_000) == 209)
        #expect(pages.next(largest: 20) == 4_096)
        #expect(pages.next(largest: 0) == 4_096)
        #expect(pages.next(largest: 1 << 30) == 1)
        #expect(pages.next(largest: 1 << 20, filling: 3 << 20) == 3)
        #expect(pages.next(largest: 1 << 20, filling: 0) == 1)
        #expect(PageSizing(first: 16, maximum: 1, bytes: 8 << 20).first == 1)
    }
}
