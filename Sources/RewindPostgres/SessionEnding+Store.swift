import RewindLog

extension SessionEnding {
    /// A session's ending as a store's row holds it (`ending`, `end_seq`, `ended_at`); `nil`
    /// while it has none.
    ///
    /// - Throws: ``EventLogError/corrupt(path:detail:)`` for a kind this build does not know.
    static func stored(kind: String?, seq: Int64?, time: Double?, session: Int64, path: String) throws(EventLogError) -> SessionEnding? {
        guard let kind else { return nil }
        guard let known = Kind(rawValue: kind) else {
            throw .corrupt(path: path, detail: "session \(session)'s ending is not one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return SessionEnding(kind: known, seq: seq ?? 0, time: time)
    }
}
