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
            "Keys to read encrypted sessions with: one `ID BASE64` line per key (its id, a space, its bytes in base64).",
            valueName: "path"
        )
    )
    var keyFile: String?

    @OptionGroup var format: OutputFormat

    /// Whether to print JSON.
    var json: Bool { format.json }

    /// The keys in `--key-file`, for reading; none without it.
    func keys() throws -> LogKeys {
        guard let keyFile else { return LogKeys() }
        do {
            return try LogKeys.reading(keyFileAt: keyFile)
        } catch {
            throw InputError("--key-file \(keyFile): \(error.reason)")
        }
    }

    /// The log argument when it names a PostgreSQL store rather than a file.
    var storeURL: String? {
        let lowered = path.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? path : nil
    }

    /// Whether the argument names one log: a file, or a store's URL with `log=` or `install=` (a
    /// store's URL without either may mean its only log, or all of them: `sessions` lists them
    /// all).
    var namesOneLog: Bool {
        guard let storeURL else { return true }
        return URLComponents(string: storeURL)?.queryItems?.contains { ["log", "install"].contains($0.name) } == true
    }

    /// The log argument as messages name it: a store's URL without its password.
    var displayName: String {
        storeURL.map(Self.redacted) ?? path
    }

    /// Connects to a store's log (see ``StoreLogs``) before a command reads it with ``open()``;
    /// nothing for a file. ``RewindTool`` calls it for every ``LogReadingCommand``.
    func prepare() async throws {
        guard let storeURL else { return }
        try await StoreLogs.open(storeURL, keys: keys())
    }

    /// Opens the log read-only, with the keys in `--key-file`: the file, or the store's log
    /// ``prepare()`` connected to.
    func open() throws -> any LogReader {
        guard let storeURL else { return try EventLog(path: path, mode: .readOnly, keys: keys()) }
        guard let log = StoreLogs.log(storeURL) else {
            // Only a command that skipped `prepare()` gets here: a mistake in the tool itself.
            throw InputError("\(Self.redacted(storeURL)): this command does not read a PostgreSQL store's log")
        }
        return log
    }

    /// A URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "a postgres:// URL that does not parse" }
        guard components.password != nil else { return url }
        components.password = nil
        return components.string ?? "the store"
    }

    /// Prints a report as text or JSON.
    func print(_ report: some CommandReport) throws {
        try format.print(report)
    }
}
