import ArgumentParser
import Foundation
import RewindLog

/// `rewind export PATH --output FILE`.
struct ExportCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a log (or part of it) as portable JSON Lines, e.g. for a bug report."
    )

    @OptionGroup var options: LogOptions
    @Option(name: .shortAndLong, help: "The file to write.") var output: String
    @OptionGroup var selection: EventSelection

    func run() throws {
        let log = try options.open()
        let count = try log.export(to: URL(fileURLWithPath: output), filter: selection.filter(in: log))
        try options.print(Report(events: count, output: output))
    }
}

extension ExportCommand {
    /// How many events were written, and where.
    struct Report: CommandReport {
        var events: Int
        var output: String

        var text: String { "exported \(events) events to \(output); import with: rewind import \(output) --output LOG" }
    }
}
