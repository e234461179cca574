import ArgumentParser
import Foundation
import RewindLog

/// `rewind log PATH`: the events, filtered.
struct LogCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List events: seq, time, action case and source.",
        discussion: """
            With --json, one JSON object per line (JSON Lines), payload included. With --follow, \
            keeps printing the events committed after, as they come, until Ctrl-C (like tail -f). \
            With --caused-by SEQ, that event and everything it led to: the actions its middleware \
            dispatched and its effects sent, and theirs in turn (see `rewind why`).
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var selection: EventSelection
    @Option(name: .customLong("case"), help: "Only action cases matching this pattern (`cart.remove`, `cart.*`).") var actionCase: String?
    @Option(help: "Only sources whose file contains this text.") var file: String?
    @Option(help: "Only sources on this line.") var line: Int?
    @Option(help: ArgumentHelp("Only this event and what it led to, through middleware and effects.", valueName: "seq")) var causedBy: Int64?
    @Option(help: "At most this many events.") var limit: Int?
    @Flag(help: "Show each payload too.") var payload = false
    @Flag(name: .shortAndLong, help: "Keep printing new events as they are committed, until Ctrl-C.") var follow = false

    /// How often `--follow` looks for new events.
    static let followInterval = 0.2

    func validate() throws {
        try InputError.requirePositive(limit, "--limit", what: "a count")
        try InputError.requirePositive(line, "--line", what: "a line")
        try InputError.requirePositive(causedBy, "--caused-by")
        if follow {
            for (option, given) in [("--to", selection.to != nil), ("--until", selection.window.until != nil), ("--limit", limit != nil)] where given {
                throw InputError("\(option) ends the listing, --follow never does: give one of them")
            }
        }
    }

    func run() throws {
        let log = try options.open()
        var filter = try filter(in: log)
        var descendants = try causedBy.map { seq in
            // Only its session, from it on: whatever it led to comes after it, in its session.
            let origin = try log.event(at: seq)
            if let session = filter.session, session != origin.session { throw InputError("seq \(seq) is in session \(origin.session), not \(session)") }
            filter.session = origin.session
            let low = max(seq, filter.seqs?.lowerBound ?? seq), high = filter.seqs?.upperBound ?? .max
            guard low <= high else { throw InputError("--to \(high) is before --caused-by \(seq): nothing it led to comes before it") }
            filter.seqs = low...high
            // The limit counts the events listed, not those read.
            filter.limit = nil
            return CausalDescendants(of: seq)
        }
        let keep: (LoggedEvent) -> Bool = { event in
            guard let origin = descendants?.origin else { return true }
            return event.seq == origin || descendants?.admits(event) == true
        }
        // Where following starts: the log's end as the listing begins, or past the last event
        // listed if more came meanwhile.
        var listedThrough = try log.seqRange()?.upperBound ?? 0
        let count = try list(log, filter, keep: keep) { listedThrough = max(listedThrough, $0) }
        if count == 0 && !options.json { print(follow ? "no events match yet; following" : "no events match") }
        guard follow else { return }
        // Each look reads up to the end it saw first, so an event is printed once however the
        // commits and the looks interleave. Ctrl-C ends the tool (see Interruption).
        fflush(nil)
        while true {
            Thread.sleep(forTimeInterval: Self.followInterval)
            guard let end = try log.seqRange()?.upperBound, end > listedThrough else { continue }
            // Not before --from: a log still short of it lists nothing yet.
            let first = max(listedThrough + 1, selection.from ?? 1)
            listedThrough = end
            guard first <= end else { continue }
            filter.seqs = first...end
            _ = try list(log, filter, keep: keep) { _ in }
        }
    }

    /// Prints the events `filter` selects and `keep` keeps, streamed, one a line (a long log
    /// prints as it is read; when following, each line is written out at once), and how many
    /// there were.
    private func list(_ log: any LogReader, _ filter: EventFilter, keep: (LoggedEvent) -> Bool, listed: (Int64) -> Void) throws -> Int {
        var cursor = log.events(filter)
        var count = 0
        while let stored = try cursor.next() {
            guard keep(stored) else { continue }
            if causedBy != nil, let limit, count >= limit { break }
            let event = payload || options.json ? try Rendering.opened(stored, in: log) : stored
            count += 1
            listed(event.seq)
            if options.json {
                print(try JSONOutput.line(EventReport(event, in: log)))
            } else {
                print("\(Rendering.timestamp(event.time))  " + Rendering.line(event))
                if payload, let text = event.payloadText ?? event.payload.map(Rendering.sealed) { print("    \(text)") }
            }
            // Whole lines, as their events come: a pipe reads them at once, and Ctrl-C cuts
            // none in half.
            if follow { fflush(nil) }
        }
        return count
    }

    /// Which events the options select (the inspector's timeline reads with the same filter).
    func filter(in log: any LogReader) throws -> EventFilter {
        var filter = try selection.filter(in: log, limit: limit)
        (filter.actionCase, filter.file, filter.line) = (actionCase, file, line)
        return filter
    }
}
