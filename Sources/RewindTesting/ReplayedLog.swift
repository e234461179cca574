import CustomDump
import Foundation
public import Rewind
public import RewindLog
import RewindReplay

/// A log together with the reducer that replays it: what the ``SnapshotTesting/Snapshotting``
/// strategies ``SnapshotTesting/Snapshotting/finalStates`` and
/// ``SnapshotTesting/Snapshotting/timeline`` snapshot.
///
/// ```swift
/// assertSnapshot(of: ReplayedLog(try fixtureLog("cart-bug.rewind"), reducer: Shop.reducer), as: .timeline)
/// ```
public struct ReplayedLog: Sendable {
    /// The log's path.
    public let path: String
    let finalStates: @Sendable () throws -> String
    let timeline: @Sendable () throws -> String

    /// Pairs a log with its app's reducer.
    ///
    /// - Parameters:
    ///   - log: The log to replay, opened read-only or not.
    ///   - reducer: The app's reducer.
    public init<State: Codable & Sendable, Action: Codable & Sendable>(_ log: any LogReader, reducer: Reducer<State, Action>) {
        path = log.path
        let replayer = Replayer(log: log, reducer: reducer)
        finalStates = {
            try log.sessions().map { session in
                "session \(session.id) (\(session.app.id)), after seq \(session.seqRange?.upperBound ?? session.baseSeq):\n"
                    + Dumps.dump(try replayer.finalState(session: session.id))
            }.joined(separator: "\n\n")
        }
        timeline = {
            var text: [String] = []
            for session in try log.sessions() {
                text.append("session \(session.id) (\(session.app.id))")
                var steps = try replayer.steps(session: session.id)
                var previous = try replayer.initialState(session: session.id)
                while let step = try steps.next() {
                    let source = step.event.source
                    text.append("seq \(step.event.seq)  \(step.event.actionCase)  \(source.file):\(source.line) \(source.function)"
                                + (source.origin == .call ? "" : " [\(source.origin.rawValue)]"))
                    if let diff = CustomDump.diff(previous, step.state) {
                        text.append(diff.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                    }
                    previous = step.state
                }
            }
            return text.joined(separator: "\n")
        }
    }
}

enum Dumps {
    /// A value as swift-custom-dump prints it.
    static func dump(_ value: some Any) -> String {
        var text = ""
        customDump(value, to: &text)
        return text
    }
}
