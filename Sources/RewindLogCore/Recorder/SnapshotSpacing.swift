/// How far apart periodic snapshots go: at least ``RecorderConfiguration/snapshotInterval``
/// actions, and, under a finite ``RecorderConfiguration/snapshotBudget``, far enough that the
/// events written between two snapshots outweigh the first of them `1 / budget` times.
///
/// A snapshot encodes the whole state, so a state that grows (messages, orders, history) makes
/// every snapshot dearer; at a fixed interval their total grows with the square of the
/// session's length. Spaced by their size, snapshots cost at most about `budget` times the
/// bytes (and encoding time, which follows bytes) of the events between them, and a seek
/// decodes one snapshot and folds events worth at most `1 / budget` of it.
///
/// Only the writer sees encoded sizes, and it may lag the dispatch path by a buffer's worth of
/// actions. So it hands the dispatch path a ``Forecast``: the last snapshot's size, how fast
/// snapshots have been growing per action, and what the budget allows per event; the dispatch
/// path, which alone has the state to hand over, only evaluates it, once per snapshot.
@usableFromInline
struct SnapshotSpacing {
    let interval: Int
    let budget: Double
    /// Bytes and count of the session's events so far, for their average size.
    private var eventBytes = 0
    private var events = 0
    /// The last snapshot written: its size and its ticket (the count of events handed off
    /// before it).
    private var last: (bytes: Int, ticket: UInt64)?
    /// Bytes a snapshot has grown per action, between the last two.
    private var growth = 0.0
    /// Snapshots weighed so far: when it moves, the forecast has news for the dispatch path.
    private(set) var snapshotsWeighed = 0

    /// About what a row costs besides its payload: seq, time, session, source and case ids.
    static let rowOverhead = 16

    init(interval: Int, budget: Double) {
        self.interval = interval
        self.budget = budget
    }

    @usableFromInline
    mutating func wroteEvent(payloadBytes: Int) {
        eventBytes += payloadBytes + Self.rowOverhead
        events += 1
    }

    @usableFromInline
    mutating func wroteSnapshot(bytes: Int, ticket: UInt64) {
        if let last, ticket > last.ticket {
            growth = max(0, Double(bytes - last.bytes) / Double(ticket - last.ticket))
        }
        last = (bytes, ticket)
        snapshotsWeighed += 1
    }

    /// What the dispatch path spaces the next snapshots by.
    var forecast: Forecast {
        guard interval > 0, budget > 0 else { return Forecast(interval: .max) }  // `budget > 0` also rules out NaN
        guard budget.isFinite, let last, events > 0 else { return Forecast(interval: interval) }
        return Forecast(
            interval: interval, lastBytes: Double(last.bytes), lastTicket: last.ticket, growth: growth,
            budgetPerEvent: budget * Double(eventBytes) / Double(events)
        )
    }

    /// The spacing rule the writer publishes for the dispatch path.
    @usableFromInline
    struct Forecast: Sendable {
        @usableFromInline let interval: Int
        @usableFromInline let lastBytes: Double
        @usableFromInline let lastTicket: UInt64
        @usableFromInline let growth: Double
        /// Snapshot bytes allowed per event written (the budget times an event's average size);
        /// 0 when snapshots go at a fixed interval, or none has been weighed yet.
        @usableFromInline let budgetPerEvent: Double

        init(interval: Int, lastBytes: Double = 0, lastTicket: UInt64 = 0, growth: Double = 0, budgetPerEvent: Double = 0) {
            self.interval = interval
            self.lastBytes = lastBytes
            self.lastTicket = lastTicket
            self.growth = growth
            self.budgetPerEvent = budgetPerEvent
        }

        /// After how many actions the snapshot following one taken at `ticket` is due:
        /// enough for the events in between to pay for it, its size predicted from the last
        /// one written and the growth since (`Int.max`: never).
        @inlinable
        func actionsAfter(snapshotAt ticket: UInt64) -> Int {
            guard budgetPerEvent > 0, interval < .max else { return interval }
            let predicted = lastBytes + growth * Double(ticket > lastTicket ? ticket - lastTicket : 0)
            let spacing = (predicted / budgetPerEvent).rounded(.up)
            return spacing < Double(Int.max / 2) ? max(interval, Int(spacing)) : .max / 2
        }
    }
}
