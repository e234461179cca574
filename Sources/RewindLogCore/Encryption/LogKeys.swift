import Foundation

/// The keys a log encrypts with and reads with.
///
/// Sessions the log begins are encrypted with ``current`` (in the clear without one). Reading
/// finds each session's key by the id the session recorded, among ``current`` and ``others``:
/// after rotating, keep the old keys here for as long as sessions recorded with them remain.
///
/// ```swift
/// let keys = LogKeys(current: try LogKey(id: "2026-11", bytes: newKey),
///                    others: [try LogKey(id: "2026-05", bytes: oldKey)])
/// let log = try EventLog(path: path, keys: keys)
/// ```
public struct LogKeys: Sendable {
    /// The key new sessions are encrypted with; `nil` records in the clear.
    public var current: LogKey?
    /// Keys for reading sessions recorded with them.
    public var others: [LogKey]

    /// Keys for a log.
    ///
    /// - Parameters:
    ///   - current: The key new sessions are encrypted with; `nil` records in the clear.
    ///   - others: Keys for reading older sessions. When two keys share an id, the first given
    ///     (``current`` first) is used.
    public init(current: LogKey? = nil, others: [LogKey] = []) {
        self.current = current
        self.others = others
    }

    /// The key with the given id.
    public subscript(id: String) -> LogKey? {
        if let current, current.id == id { return current }
        return others.first { $0.id == id }
    }

    /// Whether there is any key.
    public var isEmpty: Bool { current == nil && others.isEmpty }

    /// Reads the key file at `path` (see ``reading(keyFile:)`` for its lines), which must be a
    /// regular file that only its owner can read: keys read every session they sealed, so a
    /// key file that group or others can read is refused with the `chmod` that fixes it, as
    /// PostgreSQL's tools refuse such a `.pgpass`.
    ///
    /// - Throws: ``LogKey/Invalid`` saying what is wrong: no such file, not readable, readable
    ///   by others, not UTF-8 text, or a line that is not a key.
    public static func reading(keyFileAt path: String) throws(LogKey.Invalid) -> LogKeys {
        let fileManager = FileManager.default
        guard let attributes = try? fileManager.attributesOfItem(atPath: path) else {
            throw LogKey.Invalid(reason: fileManager.fileExists(atPath: path) ? "the file cannot be read" : "no such file")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw LogKey.Invalid(reason: "not a regular file") }
        if let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            throw LogKey.Invalid(
                reason: "group or others can read it (mode \(String(permissions & 0o777, radix: 8))); keys must be private: chmod 600 \(path)"
            )
        }
        guard let data = fileManager.contents(atPath: path) else { throw LogKey.Invalid(reason: "the file cannot be read") }
        guard let text = String(data: data, encoding: .utf8) else { throw LogKey.Invalid(reason: "not a key file (not UTF-8 text)") }
        return try reading(keyFile: text)
    }

    /// Reads a key file: one key per line, `ID BASE64` (an id, a space, the key's bytes in
    /// base64); blank lines and lines starting with `#` are skipped. The keys are for reading
    /// (``others``); ``current`` is left `nil`.
    ///
    /// - Throws: ``LogKey/Invalid`` naming the line that is not a key, or that repeats an id.
    public static func reading(keyFile text: String) throws(LogKey.Invalid) -> LogKeys {
        var keys: [LogKey] = []
        var lines: [String: Int] = [:]
        // A byte order mark some editors write would otherwise become part of the first id.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, let bytes = Data(base64Encoded: String(fields[1])) else {
                throw LogKey.Invalid(reason: "line \(index + 1) is not `ID BASE64` (an id, a space, the key in base64)")
            }
            let id = String(fields[0])
            if let first = lines[id] {
                throw LogKey.Invalid(reason: "line \(index + 1): key id '\(id)' is on line \(first) already (one line per id)")
            }
            lines[id] = index + 1
            do {
                keys.append(try LogKey(id: id, bytes: bytes))
            } catch {
                throw LogKey.Invalid(reason: "line \(index + 1): \(error.reason)")
            }
        }
        guard !keys.isEmpty else { throw LogKey.Invalid(reason: "the key file holds no key") }
        return LogKeys(others: keys)
    }
}
