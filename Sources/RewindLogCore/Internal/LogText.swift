import Foundation

/// The one rule for text a log stores: no NUL character (U+0000).
///
/// SQLite takes text up to its first NUL (GRDB binds strings as C strings), so a note
/// `"a\u{0}b"` came back as `"a"`; PostgreSQL's `text` refuses U+0000 outright, which lost a
/// recorder's whole batch. Neither store can keep such text whole, so every write path refuses
/// it with this error instead of changing it: `EventLog.append` and `beginSession` throw, the
/// importer names the line, and the recorder — which cannot refuse what the app dispatched —
/// logs the action without its note and reports it to `onFailure`.
@usableFromInline
package enum LogText {
    /// Whether `text` can be stored as it is.
    ///
    /// The writer asks it four times per event (case, file, function, note), so it scans with
    /// `memchr` over the string's contiguous UTF-8: about 11 ns a check for short strings,
    /// where `utf8.contains(0)`, byte by byte through the view's iterator, took 50–75 ns.
    @usableFromInline
    package static func isStorable(_ text: String?) -> Bool {
        guard let text else { return true }
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, 0, bytes.count) != nil
        }
        return !(found ?? text.utf8.contains(0))
    }

    /// Why `what` cannot be stored, in the words every path uses.
    @usableFromInline
    package static func refusal(_ what: String) -> String {
        "\(what) contains a NUL character (U+0000), which a Rewind log does not store (SQLite would cut the text there; PostgreSQL refuses it)"
    }

    /// Throws `.failed` naming `what` when `text` holds a NUL.
    package static func require(_ text: String?, _ what: String, path: String) throws(EventLogError) {
        guard isStorable(text) else { throw .failed(path: path, reason: refusal(what)) }
    }

    /// `text` with each NUL replaced by U+FFFD, for a row the recorder must write anyway (and
    /// reports).
    @usableFromInline
    package static func replacingNUL(_ text: String) -> String {
        isStorable(text) ? text : text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
    }

    /// `text` as a message may quote it when it came from a file: control characters escaped
    /// (a crafted file must not move a terminal's cursor) and at most `limit` characters.
    package static func printable(_ text: String, limit: Int = 80) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return text.unicodeScalars.count > limit ? shown + "…" : shown
    }
}
