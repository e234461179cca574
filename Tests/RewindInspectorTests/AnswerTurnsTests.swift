#if MCP
import Synchronization
@testable import RewindCLI
import Testing

/// `rewind mcp`'s turns: calls that replay run two at a time, in order; calls that only read
/// never wait.
@Suite("rewind mcp: answer turns")
struct AnswerTurnsTests {
    /// How many are inside at once, and the most there ever were.
    final class Inside: Sendable {
        let counts = Mutex((now: 0, most: 0))
        func enter() { counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { counts.withLock { $0.now -= 1 } }
        var most: Int { counts.withLock(\.most) }
    }

    @Test("six long calls at once: never more than two inside; a short call meanwhile does not wait")
    func twoAtATime() async throws {
        let turns = AnswerTurns(running: 2), inside = Inside()
        let longs = (0..<6).map { index in
            Task {
                await turns.taking(true) {
                    inside.enter()
                    try? await Task.sleep(for: .milliseconds(300))
                    inside.leave()
                    return index
                }
            }
        }
        try await Task.sleep(for: .milliseconds(30))
        let clock = ContinuousClock(), started = clock.now
        #expect(await turns.taking(false) { 7 } == 7)
        #expect(clock.now - started < .milliseconds(200), "a reading call waited for the replays (a turn is 300 ms)")
        var finished: [Int] = []
        for long in longs { finished.append(await long.value) }
        #expect(finished == Array(0..<6) && inside.most == 2, "at most \(inside.most) inside")
    }
}
#endif
