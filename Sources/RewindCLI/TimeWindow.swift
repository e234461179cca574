import ArgumentParser
import RewindLog

/// `--since` / `--until`: the vocabulary's one time window, on the commands that read events
/// (`log`, `export`, `stats`) and on those that choose sessions (`sessions`, and `bisect` or
/// `verify` with `--all-sessions`). A time is ISO-8601, or a duration counted back from the
/// last event of what is read.
struct TimeWindow: ParsableArguments {
    @Option(help: ArgumentHelp(
        "From this time: ISO-8601 (2026-11-22T10:15:00Z) or a duration before the last event (90s, 10m, 2h, 1d).",
        valueName: "time"
    ))
    var since: String?
    @Option(help: ArgumentHelp("Up to this time (same forms as --since).", valueName: "time"))
    var until: String?

    /// Whether either end was given.
    var isGiven: Bool { since != nil || until != nil }

    func validate() throws {
        for (option, value) in [("--since", since), ("--until", until)] {
            if let value, TimePoint(value) == nil {
                throw InputError("\(option) '\(value)': give an ISO-8601 time (2026-11-22T10:15:00Z) or a duration such as 90s, 10m, 2h or 1d")
            }
        }
        if case let (.absolute(low, _)?, .absolute(high, _)?) = (since.flatMap(TimePoint.init), until.flatMap(TimePoint.init)), low > high {
            throw InputError("--since \(since!) is after --until \(until!)")
        }
    }

    /// The window in seconds since 1970, durations counted back from `end` (the last event's
    /// time); `nil` when neither end was given.
    func seconds(endingAt end: Double) throws -> ClosedRange<Double>? {
        guard isGiven else { return nil }
        let low = since.flatMap(TimePoint.init)?.seconds(before: end) ?? -.infinity
        let high = until.flatMap(TimePoint.init)?.lastSecond(before: end) ?? .infinity
        // Two durations can cross (--since 1h --until 2h), which validation cannot see.
        guard low <= high else { throw InputError("--since \(since!) is after --until \(until!)") }
        return low...high
    }

    /// The sessions recording during the window: all of them when none was given. Durations
    /// count back from the latest of their last events (or starts).
    func choose<Session>(_ sessions: [Session], start: (Session) -> Double, lastEvent: (Session) -> Double?) throws -> [Session] {
        let end = sessions.map { lastEvent($0) ?? start($0) }.max() ?? 0
        guard let window = try seconds(endingAt: end) else { return sessions }
        return sessions.filter { Self.overlaps(window, start: start($0), end: lastEvent($0)) }
    }

    /// Whether a session that started at `start` and whose last event was at `end` (`nil`: it
    /// has none) was recording during `window`.
    static func overlaps(_ window: ClosedRange<Double>, start: Double, end: Double?) -> Bool {
        start <= window.upperBound && max(start, end ?? start) >= window.lowerBound
    }
}

extension LogReader {
    /// When `session`'s last event was recorded, read by its seq (one indexed read); `nil`
    /// when it has none, or when the log no longer holds it (a damaged log: `check` says so,
    /// and listing its sessions should not fail on it).
    func lastEventTime(of session: LogSession) throws -> Double? {
        guard let last = session.seqRange?.upperBound else { return nil }
        do {
            return try event(at: last).time
        } catch EventLogError.seqNotFound {
            return nil
        }
    }
}
