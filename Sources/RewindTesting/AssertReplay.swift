import Foundation
public import Rewind
public import RewindLog
import RewindReplay
public import SnapshotTesting

/// Where ``assertReplay(_:reducer:at:named:record:fileID:file:testName:line:column:)`` compares
/// the replayed state with references.
public enum ReplayPoints: Sendable, Equatable {
    /// After each session's last event.
    case end
    /// After each of these seqs.
    case seqs([Int64])
    /// At every seq where the log has a recorded snapshot (replayed, not read from the log).
    case everySnapshot
}

/// Replays a log and compares the state at chosen points with reference snapshots stored beside
/// the test (`__Snapshots__/<TestFile>/<test>.<name>.txt`), in swift-snapshot-testing's style.
///
/// ```swift
/// @Test func cartSession() throws {
///     assertReplay(try fixtureLog("cart-session.rewind"), reducer: Shop.reducer, at: .seqs([12, 60]))
/// }
/// ```
///
/// A missing reference is recorded (and the test fails, so it is looked at); a mismatch fails
/// at the caller's line with a line diff, `−` the reference and `+` the replayed state. The
/// record mode comes from `record`, else from `SNAPSHOT_TESTING_RECORD` (`missing`, `all`,
/// `never`, `failed`); CI should run with `never`.
///
/// - Parameters:
///   - log: The log to replay.
///   - reducer: The app's reducer.
///   - points: Where to compare: the end of each session (default), chosen seqs, or every
///     snapshot seq.
///   - name: A prefix for the reference files (default: none).
///   - record: The record mode, overriding the environment.
///   - fileID: Where a failure is reported (the caller's by default).
///   - filePath: Where a failure is reported (the caller's by default).
///   - testName: The test's name, which names its reference snapshots (the caller's by default).
///   - line: Where a failure is reported (the caller's by default).
///   - column: Where a failure is reported (the caller's by default).
public func assertReplay<State: Codable & Sendable, Action: Codable & Sendable>(
    _ log: any LogReader,
    reducer: Reducer<State, Action>,
    at points: ReplayPoints = .end,
    named name: String? = nil,
    record: SnapshotTestingConfiguration.Record? = nil,
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    testName: String = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    let replayer = Replayer(log: log, reducer: reducer)
    let prefix = name.map { "\($0)-" } ?? ""
    do {
        let seqs: [Int64]
        switch points {
        case .end:
            seqs = try log.sessions().compactMap { $0.seqRange?.upperBound }
        case let .seqs(chosen):
            seqs = chosen
        case .everySnapshot:
            seqs = try log.sessions().flatMap { session in
                try log.snapshotIndex(session: session.id).map(\.seq).filter { $0 > session.baseSeq }
            }
        }
        for seq in seqs {
            let state = try replayer.state(at: seq)
            assertSnapshot(
                of: state, as: .dumped, named: "\(prefix)seq-\(seq)", record: record,
                fileID: fileID, file: filePath, testName: testName, line: line, column: column
            )
        }
    } catch {
        reportIssue("Could not replay \(log.path): \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
