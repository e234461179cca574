import ArgumentParser

/// A subcommand whose whole answer is one report: `run()` prints it (text, or JSON with
/// `--json`) and exits 1 when the report answers "no".
///
/// The report is made apart from printing so that the inspector (`rewind serve`) answers its
/// API calls with the very same reports: a call is parsed as the command's arguments (the same
/// validation, the same errors) and its report is sent as the JSON `--json` prints.
protocol ReportingCommand: LogReadingCommand {
    associatedtype Report: CommandReport

    /// The command's answer. Throws for bad input (``InputError``, `ValidationError`) and logs
    /// that cannot be read (`EventLogError`).
    func report() throws -> Report
}

extension ReportingCommand {
    func run() throws {
        try printReport()
    }

    /// Prints the command's report; exits 1 when its answer is "no".
    func printReport() throws {
        let report = try report()
        try options.print(report)
        if report.answersNo { throw ExitCode(1) }
    }
}
