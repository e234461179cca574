package import Foundation
import Rewind
import RewindCodingCore

extension PortableLog.EventLine {
    /// The event line `line` holds, read by the JSON codec's reader (``JSONReader``), or `nil`
    /// when that reader is unsure: a line that is not an event's, or not in the plainest JSON
    /// (see ``JSONReader``), or a value Foundation would refuse (a source's line past
    /// `Int64.max`, an origin the store does not know). The caller then decodes the line with
    /// Foundation's decoder, whose value or error is the answer; so this reader must only never
    /// read a value where Foundation would fail or read another, which
    /// `EventLineReaderTests` checks against Foundation.
    ///
    /// Event lines are nearly all of an export, and Foundation's decoder was about half of an
    /// import (profiled: `rewind import` of the demo's 300,000-event export); most of its time
    /// goes to `Codable`'s containers, not to parsing.
    package init?(plainJSON line: Data) {
        guard let event = line.withUnsafeBytes({ bytes in JSONReader.read(from: bytes, Self.read) }) else { return nil }
        self = event
    }

    /// The fields as the synthesized `Decodable` reads them: `type` (here "event" only), the
    /// rest by their names, the optional ones absent or `null` as `nil`.
    private static func read(_ reader: inout JSONReader) throws -> Self {
        var object = try reader.object()
        guard try reader.decode(String.self, forKey: "type", in: &object) == "event" else { throw JSONReader.Unsure() }
        return Self(
            seq: try reader.decode(Int64.self, forKey: "seq", in: &object),
            session: try reader.decode(Int64.self, forKey: "session", in: &object),
            time: try reader.decode(Double.self, forKey: "time", in: &object),
            action: try reader.decode(String.self, forKey: "action", in: &object),
            payload: try reader.decodeIfPresent(String.self, forKey: "payload", in: &object),
            encoding: try reader.decodeIfPresent(String.self, forKey: "encoding", in: &object),
            source: try reader.read(forKey: "source", in: &object, Self.source),
            redaction: try reader.decodeIfPresent(String.self, forKey: "redaction", in: &object),
            cause: try reader.decodeIfPresent(Int64.self, forKey: "cause", in: &object),
            root: try reader.decodeIfPresent(Int64.self, forKey: "root", in: &object)
        )
    }

    /// A source as `ActionSource.init(from:)` reads it: a line required, `column`, `info` and
    /// `origin` defaulted when absent, a line or column past `Int64.max` refused (here: unsure,
    /// so that Foundation's decoder says why).
    private static func source(_ reader: inout JSONReader) throws -> ActionSource {
        var object = try reader.object()
        func position(_ key: StaticString) throws -> UInt? {
            guard let value = try reader.decodeIfPresent(UInt.self, forKey: key, in: &object) else { return nil }
            guard value <= UInt(Int64.max) else { throw JSONReader.Unsure() }
            return value
        }
        guard let line = try position("line") else { throw JSONReader.Unsure() }
        let origin = try reader.decodeIfPresent(String.self, forKey: "origin", in: &object).map { name in
            guard let origin = ActionSource.Origin(rawValue: name) else { throw JSONReader.Unsure() }
            return origin
        }
        return ActionSource(
            file: try reader.decode(String.self, forKey: "file", in: &object),
            function: try reader.decode(String.self, forKey: "function", in: &object),
            line: line,
            column: try position("column") ?? 0,
            info: try reader.decodeIfPresent(String.self, forKey: "info", in: &object),
            origin: origin ?? .call
        )
    }
}
