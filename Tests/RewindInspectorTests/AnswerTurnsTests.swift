#if MCP
import Synchronization
@testable import RewindCLI
import RewindTestSupport
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
        var now: Int { counts.withLock(\.now) }
    }

    @Test("six long calls at once: never more than two inside; a short call meanwhile does not wait")
    func twoAtATime() async throws {
        let turns = AnswerTurns(running: 2), inside = Inside(), held = Gate()
        // The long calls stay inside until the gate opens: no time limit to miss on a loaded
        // machine, and a short call that waited for them would wait for the gate.
        let longs = (0..<6).map { index in
            Task {
                await turns.taking(true) {
                    inside.enter()
                    await held.wait()
                    inside.leave()
                    return index
                }
            }
        }
        defer { held.open() }
        // No time limit on the pool: the suite's other tests can hold this task for minutes.
        // A call that waits is told by the turns' queue; ten minutes only guard against a hang.
        let clock = ContinuousClock(), deadline = clock.now + .seconds(600)
        while await turns.waitingCount < 4 || inside.now < 2, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let queued = await turns.waitingCount
        try #require(inside.now == 2 && queued == 4, "two long calls inside, four waiting their turn (\(queued))")
        let answered = Recorded<Int>()
        let short = Task {
            let answer = await turns.taking(false) { 7 }
            answered.append(answer)
        }
        // It answers, or it joins the queue (a fifth waiting): either ends the wait.
        while answered.all.isEmpty, await turns.waitingCount == 4, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let waitingThen = await turns.waitingCount
        #expect(answered.all == [7], "a reading call waited for the replays (\(waitingThen) waiting)")
        #expect(inside.now == 2, "the short call ran while the long ones were held")
        held.open()
        await short.value
        var finished: [Int] = []
        for long in longs { finished.append(await long.value) }
        #expect(finished == Array(0..<6) && inside.most == 2, "at most \(inside.most) inside")
    }
}
#endif
