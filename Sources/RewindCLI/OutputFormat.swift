import ArgumentParser

/// `--json`: how every subcommand prints its report.
struct OutputFormat: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    /// Prints a report as text or JSON.
    func print(_ report: some CommandReport) throws {
        Swift.print(json ? try JSONOutput.pretty(report) : report.text)
    }
}
