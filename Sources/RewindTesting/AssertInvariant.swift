import CustomDump
import Foundation
public import Rewind
public import RewindLog
import RewindReplay

/// Replays every session of a log step by step and checks that `holds` is true of the initial
/// state and after every action — a recorded bug report becomes a regression test.
///
/// ```swift
/// @Test func totalNeverNegative() throws {
///     try assertInvariant("non-negative total", throughout: fixtureLog("bug-1234.jsonl"), reducer: Shop.reducer) {
///         $0.cart.total >= 0
///     }
/// }
/// ```
///
/// The first step that breaks the invariant fails the test at the caller's line, naming the
/// seq, the action's case and source, and the change it made (`−` before, `+` after).
///
/// - Parameters:
///   - name: What the invariant says, for the failure message.
///   - log: The log (see ``fixtureLog(_:keys:relativeTo:)`` for files beside the test).
///   - reducer: The app's reducer.
///   - holds: The invariant.
///   - fileID: Where a failure is reported (the caller's by default).
///   - filePath: Where a failure is reported (the caller's by default).
///   - line: Where a failure is reported (the caller's by default).
///   - column: Where a failure is reported (the caller's by default).
/// - Returns: How many steps were checked.
@discardableResult
public func assertInvariant<State: Codable & Sendable, Action: Codable & Sendable>(
    _ name: String,
    throughout log: any LogReader,
    reducer: Reducer<State, Action>,
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ holds: (State) -> Bool
) -> Int {
    let replayer = Replayer(log: log, reducer: reducer)
    var checked = 0
    do {
        for session in try log.sessions() {
            var previous = try replayer.initialState(session: session.id)
            guard holds(previous) else {
                reportIssue(
                    "Invariant '\(name)' does not hold in session \(session.id)'s initial state (seq \(session.baseSeq)) of \(log.path)",
                    fileID: fileID, filePath: filePath, line: line, column: column
                )
                return checked
            }
            var steps = try replayer.steps(session: session.id)
            while let step = try steps.next() {
                checked += 1
                if !holds(step.state) {
                    let source = step.event.source
                    reportIssue(
                        """
                        Invariant '\(name)' broken at seq \(step.event.seq) (\(step.event.actionCase)), \
                        dispatched at \(source.file):\(source.line) \(source.function)\(source.origin == .call ? "" : " [\(source.origin.rawValue)]")

                        \(CustomDump.diff(previous, step.state) ?? "(the action changed nothing)")

                        Log: \(log.path)
                        """,
                        fileID: fileID, filePath: filePath, line: line, column: column
                    )
                    return checked
                }
                previous = step.state
            }
        }
    } catch {
        reportIssue("Could not replay \(log.path): \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
    }
    return checked
}

/// Replays every session of a log step by step and checks an app's `Invariant` — the same
/// value its replay tool bisects with — after every action.
///
/// ```swift
/// let nonNegativeTotal = Invariant<ShopState>(name: "non-negative-total", description: "the cart total is never negative") {
///     $0.cart.total >= 0
/// }
///
/// @Test func invariantHoldsThroughout() throws {
///     try assertInvariant(nonNegativeTotal, throughout: fixtureLog("bug-1234.jsonl"), reducer: Shop.reducer)
/// }
/// ```
///
/// - Parameters:
///   - invariant: The invariant, named in the failure message.
///   - log: The log.
///   - reducer: The app's reducer.
///   - fileID: Where a failure is reported (the caller's by default).
///   - filePath: Where a failure is reported (the caller's by default).
///   - line: Where a failure is reported (the caller's by default).
///   - column: Where a failure is reported (the caller's by default).
/// - Returns: How many steps were checked.
@discardableResult
public func assertInvariant<State: Codable & Sendable, Action: Codable & Sendable>(
    _ invariant: Invariant<State>,
    throughout log: any LogReader,
    reducer: Reducer<State, Action>,
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> Int {
    assertInvariant(
        invariant.name, throughout: log, reducer: reducer, fileID: fileID, file: filePath, line: line, column: column, invariant.holds
    )
}

/// Opens a log kept beside a test — a `.rewind` file, or a `rewind export` (`.jsonl`) that is
/// imported into a temporary log, named by the fixture's path and deleted with the log —
/// read-only.
///
/// Relative paths are resolved from the folder of the calling test file (`__Fixtures__/bug.jsonl`).
///
/// - Parameters:
///   - path: The fixture's path.
///   - keys: Keys for a fixture whose sessions are encrypted (a shrunk encrypted log's is).
///   - filePath: The calling file (defaults to it).
/// - Returns: The log.
public func fixtureLog(_ path: String, keys: LogKeys = LogKeys(), relativeTo filePath: StaticString = #filePath) throws -> EventLog {
    let url = path.hasPrefix("/")
        ? URL(fileURLWithPath: path)
        : URL(fileURLWithPath: String(describing: filePath)).deletingLastPathComponent().appendingPathComponent(path)
    guard url.pathExtension == "jsonl" else {
        return try EventLog(path: url.path, mode: .readOnly, keys: keys)
    }
    // The import is read under the fixture's own path, so messages name the file beside the
    // test, and it is deleted with the log: a test run leaves nothing in the temporary folder.
    let imported = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-fixture-\(UUID().uuidString).rewind").path
    try EventLog.importLog(from: url, to: imported).close()
    return try EventLog(readingCopy: imported, named: url.path, keys: keys)
}
