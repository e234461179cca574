import RewindLog

extension SessionEnding {
    /// A session's ending as a store's row holds it (`ending`, `end_seq`, `ended_at`, and the
    /// crash or hang mark in `crash`); `nil`
    /// while it has none.
    ///
    /// - Throws: ``EventLogError/corrupt(path:detail:)`` for a kind this build does not know.
    static func stored(kind: String?, seq: Int64?, time: Double?, crash: String?, session: Int64, path: String) throws(EventLogError) -> SessionEnding? {
        guard let kind else { return nil }
        guard let known = Kind(rawValue: kind) else {
            throw .corrupt(path: path, detail: "session \(session)'s ending is not one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var ending = SessionEnding(kind: known, seq: seq ?? 0, time: time)
        guard ending.setMark(storedText: crash) else {
            throw .corrupt(path: path, detail: "session \(session)'s crash is not a \(known == .hung ? "hang" : "crash") mark")
        }
        return ending
    }
}
