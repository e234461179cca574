import Foundation
import PostgresNIO
import RewindLog

/// The store's shared rows — call sites, case paths, type shapes — found or added by every
/// writer (a push, a recorder), and the transactions writers run in.
extension PostgresLog {
    /// The id of a call site's row, added when the store does not have it.
    func sourceID(file: String, function: String, line: Int64, column: Int64, origin: String) async throws -> Int64 {
        _ = try await rows("""
            INSERT INTO rewind.sources (file, function, line, "column", origin)
            VALUES (\(file), \(function), \(line), \(column), \(origin))
            ON CONFLICT DO NOTHING
            """)
        return try await single(Int64.self, """
            SELECT id FROM rewind.sources
            WHERE file = \(file) AND function = \(function) AND line = \(line) AND "column" = \(column) AND origin = \(origin)
            """)
    }

    /// The id of a case path's row, added when the store does not have it.
    func actionID(_ name: String) async throws -> Int64 {
        _ = try await rows("INSERT INTO rewind.actions (name) VALUES (\(name)) ON CONFLICT DO NOTHING")
        return try await single(Int64.self, "SELECT id FROM rewind.actions WHERE name = \(name)")
    }

    /// The id of `shape`'s row, added when the store does not have it; each shape is stored once.
    func shapeID(_ shape: TypeShape?) async throws -> Int64? {
        guard let shape else { return nil }
        let text = try shape.storedJSON()
        _ = try await rows("""
            INSERT INTO rewind.type_shapes (fingerprint, digest, shape) VALUES (\(shape.fingerprint), sha256(convert_to(\(text), 'UTF8')), \(text))
            ON CONFLICT (digest) DO NOTHING
            """)
        return try await single(Int64.self, "SELECT id FROM rewind.type_shapes WHERE digest = sha256(convert_to(\(text), 'UTF8'))")
    }

    /// `gap.cases` as the `gaps.cases` column stores it.
    static func casesJSON(_ gap: LogGap) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: gap.cases, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () async throws -> T) async throws -> T {
        _ = try await rows("BEGIN")
        do {
            let result = try await body()
            _ = try await rows("COMMIT")
            return result
        } catch {
            _ = try? await rows("ROLLBACK")
            throw error
        }
    }
}
