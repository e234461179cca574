import Foundation

/// libpq's password file (`~/.pgpass`): one `host:port:database:user:password` a line, `*` in
/// the first four fields matching anything, `\:` and `\\` escaping, `#` starting a comment. The
/// first line that matches wins.
///
/// As libpq does, a file that its group or others may read is ignored: a password kept where
/// other users can read it is not used.
enum PostgresPassFile {
    static func password(path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let wanted = [host, String(port), database, user]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard !line.hasPrefix("#") else { continue }
            let fields = Self.fields(of: line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A line's fields, unescaped.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
