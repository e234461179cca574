/// Why a report was made: what kind of trigger, and its name where it has one.
public struct ReportReason: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of trigger.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// The app crashed; ``ReportReason/name`` is the signal (`SIGSEGV`).
        case crash
        /// The store stayed inside one action longer than the watchdog's limit.
        case hang
        /// An invariant broke; ``ReportReason/name`` is the invariant's name.
        case invariant
        /// The app dispatched an action it marks as an error; ``ReportReason/name`` is its case.
        case errorAction
        /// The app asked for one (a "report a problem" button).
        case requested
        /// A developer made one from a log (`rewind report create`).
        case manual
    }

    /// What kind of trigger.
    public var kind: Kind
    /// The signal, the invariant or the error action's case; `nil` for the others.
    public var name: String?

    public init(kind: Kind, name: String? = nil) {
        self.kind = kind
        self.name = name
    }

    /// `crash (SIGSEGV)`, `requested`.
    public var description: String { name.map { "\(kind.rawValue) (\($0))" } ?? kind.rawValue }
}
