import CustomDump
import Foundation
public import Rewind
import RewindLog
import RewindReplay
import Synchronization

/// A round-trip property violation, with the message to report.
private struct Violation: Error {
    var message: String
}

/// What a round-trip check covered.
public struct RoundTripReport: Sendable, Equatable {
    /// Generated sequences recorded and replayed.
    public var sequences = 0
    /// Actions dispatched, recorded and replayed.
    public var actions = 0
    /// Steps whose replayed state was compared with the live one.
    public var comparedSteps = 0
}

/// The property that recording loses nothing and replay is faithful: drives a store with
/// `sequences` generated action sequences, records each into a log, replays the log, and checks
/// that the replayed state equals the live state after every step.
///
/// ```swift
/// @Test func shopRoundTrip() {
///     assertRecordingRoundTrip(initialState: ShopState(), reducer: Shop.reducer, sequences: 1_000) { random, state in
///         Shop.randomAction(using: &random, in: state)
///     }
/// }
/// ```
///
/// Sequence `i` draws from `SeededRandom(seed: seed + i)`, so a failure names the seed that
/// reproduces it. The first mismatch fails the test at the caller's line with the sequence,
/// the seq, the action's case and the difference (`−` live, `+` replayed); the log is kept and
/// its path given.
///
/// - Parameters:
///   - initialState: The state each sequence starts from.
///   - reducer: The app's reducer.
///   - sequences: How many sequences.
///   - length: How many actions each has (drawn per sequence).
///   - seed: The first sequence's seed.
///   - snapshotInterval: The recorder's snapshot interval (small, so snapshots are exercised).
///   - generate: The next action, given the random source and the live state.
///   - fileID: Where a failure is reported (the caller's by default).
///   - filePath: Where a failure is reported (the caller's by default).
///   - line: Where a failure is reported (the caller's by default).
///   - column: Where a failure is reported (the caller's by default).
/// - Returns: What was covered.
@discardableResult
public func assertRecordingRoundTrip<State: Codable & Equatable & Sendable, Action: Codable & Sendable>(
    initialState: State,
    reducer: Reducer<State, Action>,
    sequences: Int = 1_000,
    length: ClosedRange<Int> = 1...40,
    seed: UInt64 = 0,
    snapshotInterval: Int = 7,
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    generate: (inout SeededRandom, State) -> Action
) -> RoundTripReport {
    var report = RoundTripReport()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-round-trip-\(UUID().uuidString)")
    var keepLog = false
    defer { if !keepLog { try? FileManager.default.removeItem(at: folder) } }
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("round-trip.rewind").path
        let log = try EventLog(path: path)
        let replayer = Replayer(log: log, reducer: reducer)
        let failures = Mutex<[String]>([])
        var configuration = RecorderConfiguration<State, Action>()
        configuration.snapshotInterval = snapshotInterval
        configuration.snapshotBudget = .infinity  // every interval: the round trip exercises snapshots
        configuration.onFailure = { failure in failures.withLock { $0.append("\(failure)") } }

        for index in 0..<sequences {
            let sequenceSeed = seed &+ UInt64(index)
            var random = SeededRandom(seed: sequenceSeed)
            let count = random.int(in: length)
            let live = Mutex<[State]>([])
            let recorder = Recorder<State, Action>(log: log, app: AppIdentity(id: "round-trip"), configuration: configuration)
            let store = Store(
                initialState: initialState,
                reducer: reducer,
                middleware: .combine(recorder.middleware, Middleware(didReduce: { _, state, _ in live.withLock { $0.append(state) } }))
            )
            for _ in 0..<count { store.dispatch(generate(&random, store.state)) }
            try recorder.close()
            if let failure = failures.withLock({ $0.first }) {
                throw Violation(message: "Sequence \(index) (seed \(sequenceSeed)) was not recorded faithfully: \(failure)\nLog: \(path)")
            }
            guard let session = recorder.session else {
                throw Violation(message: "Sequence \(index) (seed \(sequenceSeed)) began no session\nLog: \(path)")
            }
            let states = live.withLock { $0 }
            let replayedInitial = try replayer.initialState(session: session.id)
            guard replayedInitial == initialState else {
                throw Violation(message: "Sequence \(index) (seed \(sequenceSeed)): the recorded initial state differs\n\(CustomDump.diff(initialState, replayedInitial) ?? "")\nLog: \(path)")
            }
            var steps = try replayer.steps(session: session.id)
            var step = 0
            while let replayed = try steps.next() {
                guard step < states.count, replayed.state == states[step] else {
                    let difference = step < states.count ? CustomDump.diff(states[step], replayed.state) ?? "" : "(the live store reduced fewer actions)"
                    throw Violation(message: """
                        Sequence \(index) (seed \(sequenceSeed)) replays differently at seq \(replayed.event.seq) \
                        (step \(step + 1), \(replayed.event.actionCase)): − live, + replayed
                        \(difference)
                        Log: \(path)
                        """)
                }
                step += 1
                report.comparedSteps += 1
            }
            guard step == states.count else {
                throw Violation(message: "Sequence \(index) (seed \(sequenceSeed)): \(states.count) actions dispatched but \(step) replayed\nLog: \(path)")
            }
            report.sequences += 1
            report.actions += count
        }
        try log.close()
    } catch let violation as Violation {
        keepLog = true
        reportIssue(violation.message, fileID: fileID, filePath: filePath, line: line, column: column)
    } catch {
        keepLog = true
        reportIssue("Round trip failed: \(error)\nLog folder: \(folder.path)", fileID: fileID, filePath: filePath, line: line, column: column)
    }
    return report
}
