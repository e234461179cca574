import Foundation
import RewindTestSupport
import Testing

@Suite("Allocations on the dispatch path")
struct AllocationTests {
    struct Counts: Decodable {
        var dispatches: Int
        var baseline: Int
        var recorder: Int
        var control: Int
    }

    @Test("the recorder's hand-off adds no allocation to a dispatch; a boxing middleware adds one, as a control")
    func recorderHandOffAllocatesNothing() async throws {
        let result = try await run(builtProduct("rewind-allocations"), ["--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let counts = try JSONDecoder().decode(Counts.self, from: Data(result.standardOutput.utf8))
        #expect(counts.recorder == counts.baseline)
        #expect(counts.control == counts.baseline + counts.dispatches)
    }
}
