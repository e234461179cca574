import ArgumentParser
import Foundation
import RewindLog

/// `rewind report show FILE [--key-file KEYS]`: what a report says.
struct ReportShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a report's header, and with the team's key its sealed details.",
        discussion: "Without --key-file only the header is read: the app, why the report was made, its trigger."
    )

    @Argument(help: "The report file.") var file: String
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The team's private key (a key file).", valueName: "path")) var keyFile: String?
    @OptionGroup var format: OutputFormat

    func run() throws {
        try format.print(try Report(reading: file, keyFile: keyFile))
    }
}

extension ReportShowCommand {
    /// A report's header, and its details when it was opened.
    struct Report: CommandReport {
        /// What the report at `path` says: opened with the keys in `keyFile`, if given.
        /// - Parameter name: How the report is named (its path unless given).
        init(reading path: String, named name: String? = nil, keyFile: String?) throws {
            let report = try FieldReport(contentsOf: path)
            let details = keyFile == nil ? nil : try report.open(with: try LogOptions.keys(keyFile: keyFile)).details
            self.init(file: name ?? path, header: report.header, details: details)
        }

        init(file: String, header: ReportHeader, details: ReportDetails?) {
            (self.file, self.header, self.details) = (file, header, details)
        }

        var file: String
        var header: ReportHeader
        /// Absent without the key.
        var details: ReportDetails?

        var text: String {
            // Every string here came from a file anyone with the app's public key can make:
            // shown with control characters escaped.
            func shown(_ text: String) -> String { LogText.printable(text, limit: 200) }
            var lines = [
                "\(file): \(shown(header.reason.description)) in \(shown(header.app.id)) \(shown(header.app.version)), sealed to key '\(header.keyID)' at \(Rendering.timestamp(header.createdAt))"
            ]
            if let action = header.triggerAction {
                let place = header.triggerSource.map { " at \(shown($0.file)):\($0.line)" } ?? ""
                lines.append("trigger: \(shown(action))\(place)")
            }
            guard let details else {
                lines.append("content sealed: open it with --key-file holding key '\(header.keyID)'")
                return lines.joined(separator: "\n")
            }
            var window = "session \(details.session)"
            if let first = details.firstSeq, let last = details.lastSeq {
                window += ", seq \(first)…\(last) (\(details.keptEvents) event\(details.keptEvents == 1 ? "" : "s")"
                if let asked = details.requestedEvents, asked > details.keptEvents { window += " of \(asked) asked" }
                window += ")"
            } else {
                window += ", no events"
            }
            if let trigger = details.triggerSeq { window += ", trigger seq \(trigger)" }
            lines.append(window)
            if let ending = details.ending {
                lines.append("ended \(ending.kind.rawValue) at seq \(ending.seq)" + (ending.markSummary.map { ": \($0)" } ?? ""))
            }
            if details.exceedsBound { lines.append("larger than its size bound even with the trigger alone (kept, flagged)") }
            if let note = details.note { lines.append("note: \(shown(note))") }
            for (key, value) in details.device.sorted(by: { $0.key < $1.key }) { lines.append("\(shown(key)): \(shown(value))") }
            return lines.joined(separator: "\n")
        }
    }
}
