import Foundation
import RewindCodingCore

/// How a `TypeShape` is stored in a log's `type_shapes` table and in an export: JSON with
/// sorted keys, so that equal shapes are equal text and the table's `UNIQUE` stores each once.
extension TypeShape {
    package func storedJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Reads a stored shape, throwing an error whose description says where it went wrong
    /// (a damaged row or a hand-edited export is input like any other).
    package init(storedJSON text: String) throws(StoredShapeError) {
        do {
            self = try JSONDecoder().decode(TypeShape.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw StoredShapeError(error)
        } catch {
            throw StoredShapeError(reason: "\(type(of: error))")
        }
    }
}

extension SessionShapes {
    /// A session's shapes from their stored JSON.
    ///
    /// - Throws: ``EventLogError/corrupt(path:detail:)`` naming the session and the part when
    ///   one does not read as a shape.
    package init(storedAction action: String?, state: String?, session: Int64, path: String) throws(EventLogError) {
        func shape(_ text: String?, _ part: String) throws(EventLogError) -> TypeShape? {
            guard let text else { return nil }
            do {
                return try TypeShape(storedJSON: text)
            } catch {
                throw .corrupt(path: path, detail: "session \(session)'s \(part) type shape cannot be read (\(error))")
            }
        }
        self.init(action: try shape(action, "action"), state: try shape(state, "state"))
    }
}

/// Why a stored shape could not be read, in one line.
package struct StoredShapeError: Error, CustomStringConvertible {
    package var reason: String

    package init(reason: String) {
        self.reason = reason
    }

    package init(_ error: DecodingError) {
        let context: DecodingError.Context? = switch error {
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context), let .dataCorrupted(context): context
        @unknown default: nil
        }
        let path = context?.codingPath.map(\.stringValue).joined(separator: ".") ?? ""
        reason = (context?.debugDescription ?? "not a type shape") + (path.isEmpty ? "" : " at \(path)")
    }

    package var description: String { reason }
}
