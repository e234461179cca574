import ArgumentParser
import Foundation
import RewindLog

/// `rewind report create LOG --session N [--around SEQ] --public-key-file F --output FILE`.
struct ReportCreateCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Seal a report of one session of a log, as an app does in the field.",
        discussion: """
            The report keeps the events before --around (the session's last event by default), from the \
            nearest snapshot before them: --events N of them (2000 by default), --seconds S, or \
            --whole-session; the window is halved until the report fits --size-limit. A session that ended \
            crashed makes a crash report; any other a manual one.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var window: ReportWindowOptions
    @Option(help: ArgumentHelp("The team's public key: a file holding its `ID BASE64` line (keygen's FILE.pub).", valueName: "path"))
    var publicKeyFile: String
    @Option(name: .shortAndLong, help: "The report file to write (must not exist).") var output: String

    func run() throws {
        let key = try Self.readPublicKey(publicKeyFile)
        let log = try options.open()
        let sealed = try window.preview(of: log, key: key).sealed
        try ReportKeygenCommand.createExclusively(output, data: sealed, mode: 0o600, what: "the report")
        let report = try FieldReport(bytes: sealed, path: output)
        try options.print(Report(output: output, bytes: sealed.count, header: report.header))
    }

    /// The public key in `path`: its first line that is not blank or a comment.
    static func readPublicKey(_ path: String) throws -> ReportKey {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError("--public-key-file \(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read as text" : "no such file")")
        }
        let line = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && !$0.hasPrefix("#") }
        do {
            return try ReportKey(line: line ?? "")
        } catch {
            throw InputError("--public-key-file \(path): \(error.reason)")
        }
    }
}

extension ReportCreateCommand {
    /// The report written.
    struct Report: CommandReport {
        var output: String
        var bytes: Int
        var header: ReportHeader

        var text: String {
            "sealed a \(header.reason) report of \(bytes) bytes to key '\(header.keyID)' in \(output); read it with: rewind report show \(output) --key-file KEYS"
        }
    }
}
