/// Which events to read.
///
/// ```swift
/// let filter = EventFilter(session: 3, actionCase: "cart.*", file: "CartScreen", limit: 50)
/// ```
public struct EventFilter: Sendable, Hashable {
    /// Only seqs in this range.
    public var seqs: ClosedRange<Int64>?
    /// Only this session's events.
    public var session: Int64?
    /// Only events dispatched in this window, in seconds since 1970.
    public var times: ClosedRange<Double>?
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
        times: ClosedRange<Double>? = nil,
        actionCase: String? = nil,
        file: String? = nil,
        line: Int? = nil,
        limit: Int? = nil
    ) {
        self.seqs = seqs
        self.session = session
        self.times = times
        self.actionCase = actionCase
        self.file = file
        self.line = line
        self.limit = limit
    }
}
