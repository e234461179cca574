public import SnapshotTesting

extension Snapshotting where Format == String {
    /// Any value (a replayed state) as swift-custom-dump prints it, compared line by line and
    /// stored as `.txt` beside the test.
    ///
    /// ```swift
    /// assertSnapshot(of: try replayer.state(at: 120), as: .dumped)
    /// ```
    public static var dumped: Snapshotting<Value, String> {
        Snapshotting<String, String>.lines.pullback { Dumps.dump($0) }
    }
}

extension Snapshotting where Value == ReplayedLog, Format == String {
    /// The state at the end of each session of a replayed log.
    public static var finalStates: Snapshotting<ReplayedLog, String> {
        Snapshotting<String, String>.lines.pullback { replayed in
            (try? replayed.finalStates()) ?? "replay of \(replayed.path) failed: \(Self.failure(replayed.finalStates))"
        }
    }

    /// Every step of a replayed log: the action's case, its source, and the change it made —
    /// a reviewable story of a session.
    public static var timeline: Snapshotting<ReplayedLog, String> {
        Snapshotting<String, String>.lines.pullback { replayed in
            (try? replayed.timeline()) ?? "replay of \(replayed.path) failed: \(Self.failure(replayed.timeline))"
        }
    }

    private static func failure(_ body: () throws -> String) -> String {
        do { _ = try body(); return "" } catch { return "\(error)" }
    }
}
