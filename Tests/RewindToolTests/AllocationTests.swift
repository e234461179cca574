import Foundation
import RewindTestSupport
import Testing

@Suite("Allocations on the dispatch path")
struct AllocationTests {
    struct Counts: Decodable {
        var dispatches: Int
        var baseline: Int
        var recorder: Int
        var snapshotInterval: Int
        var recorderWithSnapshots: Int
        var control: Int
    }

    @Test("the recorder's hand-off adds no allocation to a dispatch, a few per periodic snapshot; a boxing middleware adds one per dispatch, as a control")
    func recorderHandOffAllocatesNothing() async throws {
        let result = try await run(builtProduct("rewind-allocations"), ["--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let counts = try JSONDecoder().decode(Counts.self, from: Data(result.standardOutput.utf8))
        #expect(counts.recorder == counts.baseline)
        // Per snapshot, the state's box and the copies on write of what the next reductions
        // change while the writer holds it: at least one, at most a few; never one per action.
        let snapshots = counts.dispatches / counts.snapshotInterval
        let added = counts.recorderWithSnapshots - counts.baseline
        #expect(added >= snapshots && added <= 4 * snapshots, "\(result.standardOutput)")
        #expect(counts.control == counts.baseline + counts.dispatches)
    }
}
