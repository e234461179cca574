import ArgumentParser
import Foundation
import RewindLog

/// `rewind import FILE --output PATH`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a log from a portable export (JSON Lines), or from a sealed report."
    )

    @Argument(help: "The export (or report) to read.") var file: String
    @Option(name: .shortAndLong, help: "The log to create (must not exist).") var output: String
    @Option(name: .customLong("key-file"), help: ArgumentHelp("For a report: the team's private key (a key file).", valueName: "path"))
    var keyFile: String?
    @OptionGroup var format: OutputFormat

    func run() throws {
        let log: EventLog
        if FieldReport.isReport(at: file) {
            let keys: LogKeys
            keys = try LogOptions.keys(keyFile: keyFile)
            log = try EventLog.importReport(at: file, keys: keys, to: output).log
        } else {
            log = try EventLog.importLog(from: URL(fileURLWithPath: file), to: output)
        }
        let range = try log.seqRange()
        try log.close()
        try format.print(Report(output: output, firstSeq: range?.lowerBound, lastSeq: range?.upperBound))
    }
}

extension ImportCommand {
    /// The log created, and the seqs it holds (absent when the export held no events).
    struct Report: CommandReport {
        var output: String
        var firstSeq: Int64?
        var lastSeq: Int64?

        var text: String {
            guard let firstSeq, let lastSeq else { return "imported no events into \(output)" }
            return "imported seq \(firstSeq)…\(lastSeq) into \(output)"
        }
    }
}
