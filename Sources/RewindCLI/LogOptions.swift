import ArgumentParser
import RewindLog

/// The log argument and output format every subcommand shares.
struct LogOptions: ParsableArguments {
    @Argument(help: "The Rewind log file.")
    var path: String

    @OptionGroup var format: OutputFormat

    /// Whether to print JSON.
    var json: Bool { format.json }

    /// Opens the log read-only.
    func open() throws -> EventLog {
        try EventLog(path: path, mode: .readOnly)
    }

    /// Prints a report as text or JSON.
    func print(_ report: some CommandReport) throws {
        try format.print(report)
    }
}
