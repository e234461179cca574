import ArgumentParser
import RewindLog

/// `rewind log PATH`: the events, filtered.
struct LogCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List events: seq, time, action case and source.",
        discussion: "With --json, one JSON object per line (JSON Lines), payload included."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var selection: EventSelection
    @Option(name: .customLong("case"), help: "Only action cases matching this pattern (`cart.remove`, `cart.*`).") var actionCase: String?
    @Option(help: "Only sources whose file contains this text.") var file: String?
    @Option(help: "Only sources on this line.") var line: Int?
    @Option(help: "At most this many events.") var limit: Int?
    @Flag(help: "Show each payload too.") var payload = false

    func validate() throws {
        try InputError.requirePositive(limit, "--limit", what: "a count")
        try InputError.requirePositive(line, "--line", what: "a line")
    }

    func run() throws {
        let log = try options.open()
        var cursor = log.events(try filter(in: log))
        var count = 0
        // Streamed, one event a line: a long log prints as it is read.
        while let stored = try cursor.next() {
            let event = payload || options.json ? try Rendering.opened(stored, in: log) : stored
            count += 1
            if options.json {
                print(try JSONOutput.line(EventReport(event, in: log)))
            } else {
                print("\(Rendering.timestamp(event.time))  " + Rendering.line(event))
                if payload, let text = event.payloadText ?? event.payload.map(Rendering.sealed) { print("    \(text)") }
            }
        }
        if count == 0 && !options.json { print("no events match") }
    }

    /// Which events the options select (the inspector's timeline reads with the same filter).
    func filter(in log: any LogReader) throws -> EventFilter {
        var filter = try selection.filter(in: log, limit: limit)
        (filter.actionCase, filter.file, filter.line) = (actionCase, file, line)
        return filter
    }
}
