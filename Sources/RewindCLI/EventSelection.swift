import ArgumentParser
import Foundation
import RewindLog

/// Which events `log` and `export` read: a session, a seq range and a time window.
struct EventSelection: ParsableArguments {
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "From this seq.") var from: Int64?
    @Option(help: "Up to this seq.") var to: Int64?
    @Option(help: ArgumentHelp(
        "Only events at or after this time: ISO-8601 (2026-11-22T10:15:00Z) or a duration before the log's last event (90s, 10m, 2h, 1d).",
        valueName: "time"
    ))
    var since: String?
    @Option(help: ArgumentHelp("Only events at or before this time (same forms as --since).", valueName: "time"))
    var until: String?

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try InputError.requirePositive(from, "--from")
        try InputError.requirePositive(to, "--to")
        try InputError.requireOrdered(from, to, "--from", "--to")
        for (option, value) in [("--since", since), ("--until", until)] {
            if let value, TimePoint(value) == nil {
                throw InputError("\(option) '\(value)': give an ISO-8601 time (2026-11-22T10:15:00Z) or a duration such as 90s, 10m, 2h or 1d")
            }
        }
        if case let (.absolute(low)?, .absolute(high)?) = (since.flatMap(TimePoint.init), until.flatMap(TimePoint.init)), low > high {
            throw InputError("--since \(since!) is after --until \(until!)")
        }
    }

    /// The filter for `log`; relative times count back from its last event.
    func filter(in log: any LogReader, limit: Int? = nil) throws -> EventFilter {
        var filter = EventFilter(session: session, limit: limit)
        if from != nil || to != nil { filter.seqs = (from ?? 1)...(to ?? .max) }
        let points = (since.flatMap(TimePoint.init), until.flatMap(TimePoint.init))
        if points.0 != nil || points.1 != nil {
            // The last event's time, read by its seq: statistics would scan the whole log, and
            // the inspector filters every page it reads.
            // A session the log does not hold matches nothing, as without a time.
            let last = try session.map { id in try log.sessions().first { $0.id == id }?.seqRange?.upperBound } ?? log.seqRange()?.upperBound
            let end = try last.map { try log.event(at: $0).time } ?? 0
            let low = points.0?.seconds(before: end) ?? -.infinity, high = points.1?.seconds(before: end) ?? .infinity
            guard low <= high else { throw InputError("--since \(since!) is after --until \(until!)") }
            filter.times = low...high
        }
        return filter
    }
}
