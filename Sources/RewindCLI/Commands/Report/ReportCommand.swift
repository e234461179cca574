import ArgumentParser

/// `rewind report`: sealed reports from the field (``FieldReport``). Every other command opens
/// a report as it opens a log, given the team's key with `--key-file`.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Make, read and key sealed reports from the field.",
        discussion: """
            A report holds the events that led to a crash, a hang or a user's "report a problem", sealed to \
            the team's public key. Every command reads one as it reads a log: `rewind state REPORT --key-file \
            team.key`. Without the key, only its header (app, reason, trigger) can be read.
            """,
        subcommands: [ReportKeygenCommand.self, ReportCreateCommand.self, ReportPreviewCommand.self, ReportShowCommand.self, ReportFetchCommand.self]
    )
}
