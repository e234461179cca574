import ArgumentParser
import Foundation
import RewindLog

/// `rewind export PATH --output FILE`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a log (or part of it) as portable JSON Lines, e.g. for a bug report."
    )

    @OptionGroup var options: LogOptions
    @Option(name: .shortAndLong, help: "The file to write.") var output: String
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "From this seq.") var from: Int64?
    @Option(help: "Up to this seq.") var to: Int64?

    func run() throws {
        let seqs = (from != nil || to != nil) ? (from ?? 1)...(to ?? .max) : nil
        let count = try options.open().export(to: URL(fileURLWithPath: output), filter: EventFilter(seqs: seqs, session: session))
        if options.json {
            print(Rendering.jsonText(["events": count, "output": output]))
        } else {
            print("exported \(count) events to \(output); import with: rewind import \(output) --output LOG")
        }
    }
}

/// `rewind import FILE --output PATH`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a log from a portable export (JSON Lines)."
    )

    @Argument(help: "The export to read.") var file: String
    @Option(name: .shortAndLong, help: "The log to create (must not exist).") var output: String

    func run() throws {
        let log = try EventLog.importLog(from: URL(fileURLWithPath: file), to: output)
        let range = try log.seqRange()
        try log.close()
        print("imported \(range.map { "seq \($0.lowerBound)…\($0.upperBound)" } ?? "no events") into \(output)")
    }
}
