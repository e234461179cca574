import ArgumentParser
import Foundation
import RewindLog

/// Which events `log`, `export` and `stats` read: a session, a seq range and a time window.
struct EventSelection: ParsableArguments {
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "From this seq.") var from: Int64?
    @Option(help: "Up to this seq.") var to: Int64?
    @OptionGroup var window: TimeWindow

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try InputError.requirePositive(from, "--from")
        try InputError.requirePositive(to, "--to")
        try InputError.requireOrdered(from, to, "--from", "--to")
    }

    /// The filter for `log`; relative times count back from its last event.
    func filter(in log: any LogReader, limit: Int? = nil) throws -> EventFilter {
        var filter = EventFilter(session: session, limit: limit)
        if from != nil || to != nil { filter.seqs = (from ?? 1)...(to ?? .max) }
        if window.isGiven {
            // The last event's time, read by its seq: statistics would scan the whole log, and
            // the inspector filters every page it reads.
            // A session the log does not hold matches nothing, as without a time.
            let last = try session.map { id in try log.sessions().first { $0.id == id }?.seqRange?.upperBound } ?? log.seqRange()?.upperBound
            filter.times = try window.seconds(endingAt: try last.map { try log.event(at: $0).time } ?? 0)
        }
        return filter
    }
}
