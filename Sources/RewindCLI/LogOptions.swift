import ArgumentParser
import Foundation
import RewindLog

/// The log argument, its keys and the output format every subcommand shares.
struct LogOptions: ParsableArguments {
    @Argument(help: "The Rewind log file (bisect and verify with --all-sessions: or a postgres:// store).")
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
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw InputError("--key-file \(keyFile): " + (FileManager.default.fileExists(atPath: keyFile) ? "the file cannot be read" : "no such file"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError("--key-file \(keyFile): not a key file (not UTF-8 text)")
        }
        do {
            return try LogKeys.reading(keyFile: text)
        } catch {
            throw InputError("--key-file \(keyFile): \(error.reason)")
        }
    }

    /// The log argument when it names a PostgreSQL store rather than a file.
    var storeURL: String? {
        let lowered = path.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? path : nil
    }

    /// Opens the log read-only, with the keys in `--key-file`.
    ///
    /// - Throws: ``InputError`` for a store's URL, naming it without its password: the
    ///   commands that read a store by URL take it before opening a file.
    func open() throws -> EventLog {
        if let storeURL {
            throw InputError("""
                \(Self.redacted(storeURL)): a PostgreSQL store; this command reads a log file. Bring the sessions into one with \
                `rewind pull` (`sessions` lists a store's; bisect and verify ask every session of a store with --all-sessions).
                """)
        }
        return try EventLog(path: path, mode: .readOnly, keys: keys())
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
