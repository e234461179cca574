import ArgumentParser
import Foundation
import RewindLog

/// The log argument, its keys and the output format every subcommand shares.
struct LogOptions: ParsableArguments {
    @Argument(help: "The Rewind log file.")
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

    /// Opens the log read-only, with the keys in `--key-file`.
    func open() throws -> EventLog {
        try EventLog(path: path, mode: .readOnly, keys: keys())
    }

    /// Prints a report as text or JSON.
    func print(_ report: some CommandReport) throws {
        try format.print(report)
    }
}
