import RewindLogCore

extension EventFilter {
    /// The SQL condition and its arguments (positional, in order) for the events after `seq`.
    ///
    /// The cursor's position and the seq range make one `BETWEEN`: given a separate `seq > ?`,
    /// SQLite starts its rowid scan at the range's lower bound and filters its way to the
    /// position, so every page of a long log would re-read all the pages before it.
    func sqlConditions(after seq: Int64) -> (sql: String, arguments: [any Sendable]) {
        let low = max(seq == .max ? seq : seq + 1, seqs?.lowerBound ?? .min)
        var clauses = ["e.seq BETWEEN ? AND ?"]
        var arguments: [any Sendable] = [low, seqs?.upperBound ?? .max]
        if let session {
            // Walked by rowid within the range, which the caller narrows to the session's own
            // bounds; the unary + keeps SQLite from looking for an index on the session.
            clauses.append("+e.session_id = ?")
            arguments.append(session)
        }
        if let times {
            clauses.append("e.time BETWEEN ? AND ?")
            arguments += [times.lowerBound, times.upperBound]
        }
        if let actionCase {
            let match = actionCase.contains("*") ? "GLOB ?" : "= ?"
            // Matched against the few case paths, not against every event.
            clauses.append("e.action_id IN (SELECT id FROM actions WHERE name \(match))")
            arguments.append(actionCase)
        }
        if let file {
            clauses.append("instr(src.file, ?) > 0")
            arguments.append(file)
        }
        if let line {
            clauses.append("src.line = ?")
            arguments.append(line)
        }
        return (clauses.joined(separator: " AND "), arguments)
    }
}
