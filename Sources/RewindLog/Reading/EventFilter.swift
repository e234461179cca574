/// Which events to read.
///
/// ```swift
/// EventFilter(session: 3, actionCase: "cart.*", file: "CartScreen", limit: 50)
/// ```
public struct EventFilter: Sendable, Hashable {
    /// Only seqs in this range.
    public var seqs: ClosedRange<Int64>?
    /// Only this session's events.
    public var session: Int64?
    /// Only cases matching this pattern: `cart.remove` exactly, or with `*` wildcards
    /// (`cart.*`, `*Discount`).
    public var actionCase: String?
    /// Only sources whose file contains this text (`CartScreen`, `Shop/`).
    public var file: String?
    /// Only sources on this line.
    public var line: Int?
    /// At most this many events.
    public var limit: Int?

    /// Creates a filter; every criterion is optional.
    public init(
        seqs: ClosedRange<Int64>? = nil,
        session: Int64? = nil,
        actionCase: String? = nil,
        file: String? = nil,
        line: Int? = nil,
        limit: Int? = nil
    ) {
        self.seqs = seqs
        self.session = session
        self.actionCase = actionCase
        self.file = file
        self.line = line
        self.limit = limit
    }

    /// The SQL condition and its arguments (positional, in order).
    var sqlConditions: (sql: String, arguments: [any Sendable]) {
        var clauses: [String] = []
        var arguments: [any Sendable] = []
        if let seqs {
            clauses.append("e.seq BETWEEN ? AND ?")
            arguments += [seqs.lowerBound, seqs.upperBound]
        }
        if let session {
            clauses.append("e.session_id = ?")
            arguments.append(session)
        }
        if let actionCase {
            clauses.append(actionCase.contains("*") ? "e.action GLOB ?" : "e.action = ?")
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
