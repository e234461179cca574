import Foundation
import RewindLogCore

/// One line of an export, decoded in one pass: its `type`, then the line of that type from the
/// same decoding of its JSON object. (The type decoded first and the typed line after parsed
/// each line twice: one parse gone, an import of the demo's 300,000-event export went from
/// about 8.0 to 6.7 s, medians of six runs.)
enum ExportLine: Decodable {
    case header(PortableLog.Header)
    case symbol(PortableLog.SymbolLine)
    /// Its failure kept for later: a session line before the header is refused as such first.
    case session(Result<PortableLog.SessionLine, Invalid>)
    case snapshot(PortableLog.SnapshotLine)
    case event(PortableLog.EventLine)
    case gap(PortableLog.GapLine)
    case unknown(String)

    /// A line that is not what its type says (or has no type): the type it failed to decode as,
    /// and why.
    struct Invalid: Error {
        var type: String
        var underlying: any Error
    }

    /// `line` decoded: an event's by the JSON codec's reader when it is sure of it
    /// (``PortableLog/EventLine/init(plainJSON:)``), any other, and an event's it is unsure of,
    /// by Foundation's `decoder`, whose value or error is then the answer.
    static func decoding(_ line: Data, with decoder: JSONDecoder) throws -> ExportLine {
        if let event = PortableLog.EventLine(plainJSON: line) { return .event(event) }
        return try decoder.decode(ExportLine.self, from: line)
    }

    init(from decoder: any Decoder) throws {
        func decode<T: Decodable>(_ type: T.Type) -> Result<T, Invalid> {
            do { return .success(try T(from: decoder)) } catch { return .failure(Invalid(type: "\(T.self)", underlying: error)) }
        }
        switch try decode(PortableLog.LineType.self).get().type {
        case "header": self = .header(try decode(PortableLog.Header.self).get())
        case "symbol": self = .symbol(try decode(PortableLog.SymbolLine.self).get())
        case "session": self = .session(decode(PortableLog.SessionLine.self))
        case "snapshot": self = .snapshot(try decode(PortableLog.SnapshotLine.self).get())
        case "event": self = .event(try decode(PortableLog.EventLine.self).get())
        case "gap": self = .gap(try decode(PortableLog.GapLine.self).get())
        case let other: self = .unknown(other)
        }
    }
}
