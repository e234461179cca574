/// Why an event happened: the chain of causes from the gesture or outside event that started
/// it down to the event itself, read from the log (``LogReader/causalChain(to:)``).
public struct CausalChain: Sendable, Hashable {
    /// How the chain begins.
    public enum Start: String, Sendable, Hashable {
        /// At a root: an action nothing caused (a gesture, an outside event).
        case root
        /// At an event whose cause is not known: recorded before causes were, or caused by an
        /// action lost in a gap or recorded in another session.
        case unknown
    }

    /// The events, the first of the chain first and the event asked about last.
    public var events: [LoggedEvent]
    /// How the chain begins: at a root, or where a cause is not known.
    public var start: Start
}

/// What a gesture led to: the events caused by one event, directly or through others, told
/// apart as a session's events are read in order (``admits(_:)``).
///
/// A descendant always comes after its cause, in the same session, so one pass from the event on
/// finds them all; the pass keeps the seqs found so far.
public struct CausalDescendants: Sendable {
    /// The first of the events whose descendants are wanted.
    public let origin: Int64
    private var members: Set<Int64>
    private let origins: Int

    /// Descendants of the event at `origin`.
    public init(of origin: Int64) {
        self.init(of: [origin])
    }

    /// Descendants of any of the events at `origins` (at least one).
    public init(of origins: Set<Int64>) {
        origin = origins.min() ?? 0
        members = origins
        self.origins = origins.count
    }

    /// How many events have been admitted.
    public var count: Int { members.count - origins }

    /// Whether `event` — read after every event before it in its session — descends from the
    /// origin; it joins the set when it does, so that what it causes is found too.
    public mutating func admits(_ event: LoggedEvent) -> Bool {
        guard event.seq > origin, let cause = event.cause, cause < event.seq, members.contains(cause) else { return false }
        members.insert(event.seq)
        return true
    }
}

extension LogReader {
    /// The chain of causes that led to the event at `seq`: its cause, that one's cause, and so
    /// on back to a root (or to a cause not known).
    ///
    /// Each step reads one event. A cause always comes before what it caused and in the same
    /// session, so the walk ends; a stored cause that breaks either rule (damage) ends the chain
    /// as unknown.
    ///
    /// - Throws: ``EventLogError/seqNotFound(path:seq:available:)`` when there is no event at
    ///   `seq`.
    public func causalChain(to seq: Int64) throws(EventLogError) -> CausalChain {
        var event = try event(at: seq)
        var chain = [event]
        while !event.isRoot {
            guard let cause = event.cause, cause < event.seq,
                  let parent = try eventPage(EventFilter(seqs: cause...cause), after: .min, count: 1, newestFirst: false).first,
                  parent.session == event.session
            else { return CausalChain(events: chain.reversed(), start: .unknown) }
            event = parent
            chain.append(event)
        }
        return CausalChain(events: chain.reversed(), start: .root)
    }
}
