#if PostgreSQL
import Foundation
import RewindPostgres
import RewindTestProcesses
import Synchronization

/// `rewind serve` over the soak's store, asked what the page asks — the log's head four times
/// a second, the state at its end every two seconds — with every answer's status and time
/// kept. Faults the soak makes to the server (a restart, connections cut) may fail the calls
/// of the few seconds after them; any other failure, or an answer slower than
/// ``slowestAllowed``, is a problem.
final class SoakInspector: Sendable {
    struct Answer {
        var path: String
        var at: ContinuousClock.Instant
        var status: Int
        var took: Duration
    }

    /// Answers slower than this outside a fault's window fail the soak: the page's own
    /// patience (a call that outlives a second becomes a job the page polls).
    static let slowestAllowed: Duration = .seconds(5)
    /// How long after a fault to the server calls may fail.
    static let faultWindow: Duration = .seconds(10)

    private let location: PostgresLocation
    private let server = Mutex<ServedInspector?>(nil)
    private let answers = Mutex<[Answer]>([])
    private let faults = Mutex<[ContinuousClock.Instant]>([])
    private let running = Atomic<Bool>(true)
    private let polling = Mutex<Task<Void, Never>?>(nil)

    init(location: PostgresLocation) {
        self.location = location
    }

    /// How many calls were answered (or failed) so far.
    var callCount: Int { answers.withLock { $0.count } }

    /// The process id of the running `serve`.
    var pid: Int32? { server.withLock { $0?.process.processIdentifier } }

    /// Starts `serve` and the polling.
    func start() throws {
        try launch()
        let task = Task { [self] in await poll() }
        polling.withLock { $0 = task }
    }

    /// Stops `serve` and starts it again.
    func restart() {
        let old = server.withLock { server in
            defer { server = nil }
            return server
        }
        faultHappened()
        old?.process.terminate()
        old?.process.waitUntilExit()
        do { try launch() } catch { report("rewind serve did not start again: \(error)") }
    }

    /// Marks the start of a fault the server meets (its calls may fail for a while).
    func faultHappened() {
        faults.withLock { $0.append(ContinuousClock.now) }
    }

    func stop() async {
        running.store(false, ordering: .releasing)
        await polling.withLock { $0 }?.value
        let old = server.withLock { server in
            defer { server = nil }
            return server
        }
        old?.process.terminate()
        old?.process.waitUntilExit()
    }

    private func launch() throws {
        // The password through the environment, as the store's guide advises, not in argv.
        var url = location
        let password = url.password
        url.password = nil
        let started = try ServedInspector(
            [url.description], in: FileManager.default.temporaryDirectory.path, environment: password.map { ["PGPASSWORD": $0] } ?? [:]
        )
        server.withLock { $0 = started }
    }

    private func poll() async {
        var round = 0
        var end: Int64?
        while running.load(ordering: .acquiring) {
            round += 1
            guard let current = server.withLock({ $0 }) else {
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let path = round % 8 == 0 && end != nil ? "/api/state?at=\(end!)" : "/api/head"
            let clock = ContinuousClock()
            let start = clock.now
            var status = 0
            if let (code, body, _) = try? await current.get(path, token: current.token) {
                status = code
                if path == "/api/head", code == 200, let head = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                    let seqs = head["seqs"] as? [NSNumber], seqs.count == 2 {
                    end = seqs[1].int64Value
                }
            }
            answers.withLock { $0.append(Answer(path: path, at: start, status: status, took: clock.now - start)) }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// What the answers were, and what in them breaks the soak's promises.
    func summary() -> (description: String, problems: [String]) {
        let answers = answers.withLock { $0 }
        let faults = faults.withLock { $0 }
        // A call in flight when a fault began is in its window too.
        let inWindow = { (answer: Answer) in faults.contains { answer.at + answer.took >= $0 && answer.at < $0 + Self.faultWindow } }
        let outside = answers.filter { !inWindow($0) }
        let times = outside.map(\.took).sorted()
        let failed = outside.filter { $0.status != 200 }
        let slow = outside.filter { $0.took > Self.slowestAllowed }
        let median = times.isEmpty ? .zero : times[times.count / 2]
        let description = """
            serve: \(answers.count) calls; outside the faults' windows \(outside.count), \(failed.count) failed, \
            median \(milliseconds(median)), slowest \(milliseconds(times.last ?? .zero)); within them \(answers.count - outside.count), \
            \(answers.filter { inWindow($0) && $0.status != 200 }.count) failed
            """
        var problems: [String] = []
        if outside.count < 10 { problems.append("rewind serve answered too few calls (\(outside.count)) to judge") }
        if !failed.isEmpty {
            let calls = failed.prefix(5).map { "\($0.path) → \($0.status == 0 ? "no answer" : String($0.status)) after \(milliseconds($0.took))" }
            problems.append("rewind serve failed \(failed.count) calls outside a fault's window: \(calls.joined(separator: ", "))")
        }
        if !slow.isEmpty { problems.append("rewind serve took longer than \(Self.slowestAllowed) on \(slow.count) calls outside a fault's window") }
        return (description, problems)
    }
}
#endif
