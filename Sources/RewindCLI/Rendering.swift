import Foundation
import Rewind
import RewindLog

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

    /// An event as a JSON object; the payload is embedded as JSON when it is JSON text.
    static func json(_ event: LoggedEvent) -> [String: Any] {
        var object: [String: Any] = [
            "seq": event.seq, "session": event.session, "time": timestamp(event.time), "action": event.actionCase,
            "file": event.source.file, "function": event.source.function, "line": event.source.line,
            "column": event.source.column, "origin": event.source.origin.rawValue,
        ]
        if let info = event.source.info { object["info"] = info }
        if let redaction = event.redaction { object["redaction"] = redaction }
        if let payload = event.payload {
            object["payload"] = (try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed])) ?? payload.base64EncodedString()
        }
        return object
    }

    /// ISO-8601 with milliseconds, UTC.
    static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// Pretty JSON text.
    static func jsonText(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return "\(object)"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// One-line JSON text.
    static func compactJSON(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return "\(object)"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Columns padded to their widest cell.
    static func table(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// `1.2 MiB`.
    static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB"]
        var value = Double(count), unit = 0
        while value >= 1_024 && unit < units.count - 1 { value /= 1_024; unit += 1 }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }
}
