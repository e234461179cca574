import Foundation
import RewindLog
import Synchronization

/// Asks every session of a ``FleetSource`` the same question, `workers` sessions at a time.
enum FleetRun {
    /// Runs `ask` on each session, each worker reading its sessions through a
    /// ``FleetWorker`` of its own, with progress on `line`. A session that cannot be read or
    /// replayed is an entry with its error; the run goes on.
    ///
    /// - Parameter ask: The question, given a log holding the session and its number there.
    /// - Returns: The entries in the sessions' order, and the seconds taken.
    static func run(
        _ source: any FleetSource,
        sessions: [FleetSession],
        workers: Int,
        line: ProgressLine,
        ask: @escaping @Sendable (any LogReader, Int64) throws -> FleetEntry.Answer
    ) async throws -> (entries: [FleetEntry], seconds: Double) {
        let started = ContinuousClock.now
        let state = State(count: sessions.count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<min(workers, max(1, sessions.count)) {
                group.addTask {
                    let worker = try await source.makeWorker()
                    while true {
                        guard let index = state.take() else { break }
                        let session = sessions[index]
                        let entry: FleetEntry
                        do {
                            entry = FleetEntry(session: session, answer: try await worker.withSession(session) { log, number in try ask(log, number) })
                        } catch {
                            entry = FleetEntry(session: session, error: error)
                        }
                        let (finished, hits) = state.finish(index, entry)
                        line.update("replaying: \(finished) of \(sessions.count) sessions, \(hits) answering")
                    }
                    await worker.close()
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (state.entries, seconds)
    }

    /// The run's shared state: the next session to take, and the answers so far.
    private final class State: Sendable {
        private let state: Mutex<(next: Int, done: Int, hits: Int, entries: [FleetEntry?])>

        init(count: Int) {
            state = Mutex((0, 0, 0, Array(repeating: nil, count: count)))
        }

        /// The index of the next session to replay, or `nil` when all are taken.
        func take() -> Int? {
            state.withLock { state in
                guard state.next < state.entries.count else { return nil }
                defer { state.next += 1 }
                return state.next
            }
        }

        /// Records a session's answer; returns how many are done, and how many answered.
        func finish(_ index: Int, _ entry: FleetEntry) -> (done: Int, hits: Int) {
            state.withLock { state in
                state.entries[index] = entry
                state.done += 1
                if entry.status.isHit { state.hits += 1 }
                return (state.done, state.hits)
            }
        }

        var entries: [FleetEntry] { state.withLock { $0.entries.compactMap { $0 } } }
    }
}
