import ArgumentParser
import Foundation
import RewindLog

/// `rewind report preview LOG --session N [--around SEQ] [--content]`: what a report would reveal.
struct ReportPreviewCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show exactly what a report of a session would reveal, and the secrets it looks like it holds.",
        discussion: """
            Makes the report `create` would (no key needed: its size does not depend on the key) and prints \
            its header, its window, its sealed size and what the secret scan found (bearer tokens, JSON Web \
            Tokens, card numbers, email addresses), masked. --content prints the content itself, exactly as \
            it would be sealed (JSON Lines). Exits 1 when the scan finds something.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var window: ReportWindowOptions
    @Flag(help: "Print the content itself (JSON Lines), as it would be sealed.") var content = false

    func run() throws {
        let log = try options.open()
        let preview = try window.preview(of: log, key: try ReportKey.generate(id: "preview").publicKey)
        if content {
            FileHandle.standardOutput.write(preview.content)
        } else {
            try options.print(Report(header: preview.header, details: preview.details, sealedBytes: preview.sealed.count))
        }
        if !preview.secrets.isEmpty { throw ExitCode(1) }
    }
}

extension ReportPreviewCommand {
    /// What the report would say.
    struct Report: CommandReport {
        var header: ReportHeader
        var details: ReportDetails
        var sealedBytes: Int

        var text: String {
            var lines = [
                "a \(header.reason) report of session \(details.session): \(details.keptEvents) event\(details.keptEvents == 1 ? "" : "s")"
                    + (details.firstSeq.map { " (seq \($0)…\(details.lastSeq ?? $0))" } ?? "") + ", \(sealedBytes) bytes sealed"
                    + (details.exceedsBound ? ", larger than its bound" : ""),
            ]
            if let action = header.triggerAction {
                lines.append("in the clear: \(header.app.id) \(header.app.version), trigger \(action)"
                    + (header.triggerSource.map { " at \($0.file):\($0.line)" } ?? ""))
            } else {
                lines.append("in the clear: \(header.app.id) \(header.app.version)")
            }
            if details.secrets.isEmpty {
                lines.append("the secret scan found nothing")
            } else {
                lines.append("the secret scan found \(details.secrets.count):")
                lines += details.secrets.map { "  \($0)" }
            }
            return lines.joined(separator: "\n")
        }

        var answersNo: Bool { !details.secrets.isEmpty }
    }
}
