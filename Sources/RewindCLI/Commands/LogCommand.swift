import ArgumentParser
import Foundation
import RewindLog

/// `rewind log PATH`: the events, filtered.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List events: seq, time, action case and source.",
        discussion: "With --json, one JSON object per line (JSON Lines), payload included."
    )

    @OptionGroup var options: LogOptions
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "From this seq.") var from: Int64?
    @Option(help: "Up to this seq.") var to: Int64?
    @Option(name: .customLong("case"), help: "Only action cases matching this pattern (`cart.remove`, `cart.*`).") var actionCase: String?
    @Option(help: "Only sources whose file contains this text.") var file: String?
    @Option(help: "Only sources on this line.") var line: Int?
    @Option(help: "At most this many events.") var limit: Int?
    @Flag(help: "Show each payload too.") var payload = false

    func validate() throws {
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let log = try options.open()
        let seqs = (from != nil || to != nil) ? (from ?? 1)...(to ?? .max) : nil
        var cursor = log.events(EventFilter(seqs: seqs, session: session, actionCase: actionCase, file: file, line: line, limit: limit))
        var count = 0
        while let event = try cursor.next() {
            count += 1
            if options.json {
                print(Rendering.compactJSON(Rendering.json(event)))
            } else {
                print("\(Rendering.timestamp(event.time))  " + Rendering.line(event))
                if payload, let text = event.payloadText { print("    \(text)") }
            }
        }
        if count == 0 && !options.json { print("no events match") }
    }
}
