import ArgumentParser
import Foundation
import RewindLog

/// The log argument, its keys and the output format every subcommand shares.
struct LogOptions: ParsableArguments {
    @Argument(help: "The Rewind log file, or one log of a PostgreSQL store: postgres://user@host:port/database[?log=ID or ?install=ID].")
    var path: String

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "Keys to read encrypted sessions and sealed reports with: one `ID BASE64` line per key (its id, a space, its bytes in base64).",
            valueName: "path"
        )
    )
    var keyFile: String?

    @OptionGroup var format: OutputFormat

    /// Whether to print JSON.
    var json: Bool { format.json }

    /// The keys in `--key-file`, for reading; none without it.
    func keys() throws -> LogKeys {
        try Self.keys(keyFile: keyFile)
    }

    /// The keys in the key file a `--key-file` option names, for reading; none without one.
    static func keys(keyFile: String?) throws -> LogKeys {
        guard let keyFile else { return LogKeys() }
        do {
            return try LogKeys.reading(keyFileAt: keyFile)
        } catch {
            throw InputError("--key-file \(keyFile): \(error.reason)")
        }
    }

    /// What the log argument names.
    var location: LogLocation { LogLocation(argument: path) }

    /// Connects to a store's log (see ``OpenLogs``) before a command reads it with ``open()``;
    /// nothing for a file. ``RewindTool`` calls it for every ``LogReadingCommand``.
    func prepare() async throws {
        guard case let .store(url) = location else { return }
        try await OpenLogs.openStore(url, keys: keys())
    }

    /// Opens the log read-only, with the keys in `--key-file`: the file — a log, or a sealed
    /// report read as one — (or the one `serve` keeps open, ``OpenLogs``), or the store's log
    /// ``prepare()`` connected to.
    func open() throws -> any LogReader {
        switch location {
        case let .file(path):
            if let kept = try OpenLogs.log(path) { return kept }
            return try OpenLogs.readFile(path, keys: keys())
        case let .store(url):
            guard let log = try OpenLogs.log(url) else {
                // Only a command that skipped `prepare()` gets here: a mistake in the tool itself.
                throw InputError("\(location): this command does not read a PostgreSQL store's log")
            }
            return log
        }
    }

    /// Prints a report as text or JSON.
    func print(_ report: some CommandReport) throws {
        try format.print(report)
    }
}
