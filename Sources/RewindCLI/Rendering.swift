import Foundation
import Rewind
import RewindLog
import Synchronization

/// How the CLI shows events, times and tables.
enum Rendering {
    /// `seq 12  cart.setQuantity  RewindExamples/ShopScreens.swift:34 quantityStepped(_:to:)`.
    static func line(_ event: LoggedEvent) -> String {
        var text = "seq \(event.seq)  \(event.actionCase)  \(event.source.file):\(event.source.line) \(event.source.function)"
        if event.source.origin != .call { text += " [\(event.source.origin.rawValue)]" }
        if let info = event.source.info { text += " — \(info)" }
        if let redaction = event.redaction { text += " (redacted: \(redaction))" }
        return text
    }

    /// What caused `event`, in words: `seq 8 (root 8)`, `none: a root`, or why it is unknown.
    static func cause(of event: LoggedEvent) -> String {
        if event.isRoot { return "none: a root (a gesture or outside event)" }
        guard let cause = event.cause else { return "unknown (recorded before causes were, or lost in a gap or another session)" }
        return "seq \(cause)" + (event.root.map { " (root \($0))" } ?? " (root unknown)")
    }

    /// `event` with its payload opened when its session is encrypted and the log has its key;
    /// as it is (still sealed, ``LoggedEvent/keyID`` set) when the key was not given.
    ///
    /// - Throws: When the key given is the wrong one, or the payload fails authentication.
    static func opened(_ event: LoggedEvent, in log: any LogReader) throws -> LoggedEvent {
        guard event.keyID != nil else { return event }
        do {
            var opened = event
            opened.payload = try log.payload(of: event)
            opened.keyID = nil
            return opened
        } catch .keyMissing {
            return event
        }
    }

    /// What stands for an encrypted payload whose key was not given.
    static func sealed(_ payload: Data) -> String {
        "<encrypted: \(payload.count) bytes>"
    }

    /// ISO-8601 with milliseconds, UTC, truncated: an event printed as `.124` happened during
    /// that millisecond, so `--since` and `--until` given the printed time both include it (see
    /// ``TimePoint``). The formatter alone would round, printing an event at .1238 as .124.
    static func timestamp(_ seconds: Double) -> String {
        timestampFormatter.withLock { $0.string(from: Date(timeIntervalSince1970: millisecondStart(of: seconds))) }
    }

    /// The start of the millisecond `seconds` falls in, as the double that reading its printed
    /// form back gives: never after `seconds` itself.
    static func millisecondStart(of seconds: Double) -> Double {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return seconds }
        let milliseconds = (seconds * 1000).rounded(.down)
        let start = milliseconds / 1000
        return start > seconds ? (milliseconds - 1) / 1000 : start
    }

    /// One formatter for every timestamp: making one costs ~46 µs on Linux, formatting with it
    /// ~1 µs (measured), and a page of 100 events formats 100. Behind a lock, because the
    /// formatter is not safe to share between threads (the inspector answers calls in parallel).
    private static let timestampFormatter = Mutex({
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }())

    /// A diff from swift-custom-dump, its removed lines red and added lines green when
    /// ``Terminal/usesColour`` allows.
    static func diff(_ text: String) -> String {
        guard Terminal.usesColour else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            // swift-custom-dump marks changed lines in the first column only.
            switch line.first {
            case "-": Terminal.red + line + Terminal.reset
            case "+": Terminal.green + line + Terminal.reset
            default: String(line)
            }
        }.joined(separator: "\n")
    }

    /// Columns padded to their widest cell.
    static func table(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trailingSpacesTrimmed
        }.joined(separator: "\n")
    }

    /// `session 4`, or `sessions 1–3, 7` for ids in ascending order: runs shown as ranges.
    static func sessionList(_ ids: [Int64]) -> String {
        var runs: [ClosedRange<Int64>] = []
        for id in ids {
            if let last = runs.last, last.upperBound < .max, last.upperBound + 1 == id {
                runs[runs.count - 1] = last.lowerBound...id
            } else {
                runs.append(id...id)
            }
        }
        let text = runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" }.joined(separator: ", ")
        return (ids.count == 1 ? "session " : "sessions ") + text
    }

    /// `1.2 MiB`.
    static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB"]
        var value = Double(count), unit = 0
        while value >= 1_024 && unit < units.count - 1 { value /= 1_024; unit += 1 }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    /// `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`: three significant figures.
    static func duration(nanoseconds: UInt64) -> String {
        let units = ["ns", "µs", "ms", "s"]
        var value = Double(nanoseconds), unit = 0
        while value >= 999.5 && unit < units.count - 1 { value /= 1_000; unit += 1 }
        if unit == 0 { return "\(nanoseconds) ns" }
        return String(format: value >= 99.95 ? "%.0f %@" : value >= 9.995 ? "%.1f %@" : "%.2f %@", value, units[unit])
    }
}

private extension String {
    /// Without the padding an empty last cell leaves.
    var trailingSpacesTrimmed: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
