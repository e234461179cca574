public import Rewind

/// The writer's map from the tickets of recorded actions to their seqs, which turns each
/// action's cause (tickets, given on the dispatch path) into the seqs the log stores.
///
/// A store numbers its actions one after another, and a recorder commits them one after
/// another, so the map is a list of runs — consecutive tickets that got consecutive seqs — and a
/// whole session is usually one run, however long: an effect that sends its result an hour
/// after its cause still finds it. A run breaks where an action was not recorded (let go on a
/// stuck store), where another writer's seqs came in between, or where a second store shares
/// the recorder; the list keeps the newest ``maximumRuns``, and a cause older than those reads
/// as unknown. So does one in another session (the map starts afresh with each), one lost in a
/// gap, and one whose ticket was never mapped: a cause is a seq the log holds, or unknown, never
/// a wrong seq.
///
/// Events of the batch being encoded have no seq yet: a cause among them is linked by how many
/// events back it is (``EventLink/earlier(_:)``), which the log resolves as it gives seqs.
@usableFromInline
struct CausationMap {
    /// Tickets `firstTicket ..< firstTicket + count` are the events placed at `firstOrdinal…`
    /// of the batch being encoded, or, once committed, those at seqs `firstSeq…`.
    private struct Run {
        var firstTicket: UInt64
        var count: UInt64
        var firstOrdinal: Int
        var firstSeq: Int64?

        func offset(of ticket: UInt64) -> UInt64? {
            ticket >= firstTicket && ticket - firstTicket < count ? ticket - firstTicket : nil
        }
    }

    /// How many runs are kept; the oldest go first.
    static let maximumRuns = 4_096

    /// The session whose tickets are mapped.
    let session: Int64
    private var runs: [Run] = []
    /// Where the runs of the batch being encoded begin.
    private var pending: Int = 0

    init(session: Int64) {
        self.session = session
    }

    /// Places the event at `ordinal` of the batch being encoded and returns its links: its
    /// cause, and the root of its chain (itself, for an action without a cause).
    @usableFromInline
    mutating func place(ticket: ActionTicket, cause: ActionCause?, ordinal: Int) -> (cause: EventLink?, root: EventLink?) {
        if ticket != .untracked { add(ticket.rawValue, ordinal: ordinal) }
        guard let cause else { return (nil, .earlier(0)) }
        return (link(to: cause.parent, from: ordinal), link(to: cause.root, from: ordinal))
    }

    /// The batch encoded so far was committed with its first event at `firstSeq`.
    mutating func committed(firstSeq: Int64) {
        var merged = Array(runs[..<pending])
        for var run in runs[pending...] {
            run.firstSeq = firstSeq + Int64(run.firstOrdinal)
            // One run across batches when both the tickets and the seqs carry on.
            if let last = merged.last, let lastSeq = last.firstSeq,
               last.firstTicket + last.count == run.firstTicket, lastSeq + Int64(last.count) == run.firstSeq {
                merged[merged.count - 1].count += run.count
            } else {
                merged.append(run)
            }
        }
        if merged.count > Self.maximumRuns { merged.removeFirst(merged.count - Self.maximumRuns) }
        runs = merged
        pending = runs.count
    }

    private mutating func add(_ ticket: UInt64, ordinal: Int) {
        if runs.count > pending, let last = runs.last,
           last.firstTicket + last.count == ticket, last.firstOrdinal + Int(last.count) == ordinal {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(Run(firstTicket: ticket, count: 1, firstOrdinal: ordinal, firstSeq: nil))
        }
    }

    /// The seq, or the place in this batch, of the event with `ticket`; `nil` when unknown.
    private func link(to ticket: ActionTicket, from ordinal: Int) -> EventLink? {
        guard ticket != .untracked else { return nil }
        // Newest first: a cause is most often the action just before.
        for run in runs.reversed() {
            guard let offset = run.offset(of: ticket.rawValue) else { continue }
            if let firstSeq = run.firstSeq { return .seq(firstSeq + Int64(offset)) }
            let place = run.firstOrdinal + Int(offset)
            // Only an earlier event can be a cause.
            return place < ordinal ? .earlier(ordinal - place) : nil
        }
        return nil
    }
}
